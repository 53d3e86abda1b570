import os, shutil, signal, subprocess, sys, tempfile
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("MPLBACKEND", "Agg")
if not os.environ.get("DPTIE_ASSETS") and (ROOT.parent/"shared"/"assets").is_dir():
    os.environ["DPTIE_ASSETS"] = str(ROOT.parent/"shared"/"assets")

def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False, help="also run notebook cells flagged `#| slow`")

@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A model folder for runs whose test checks what a run records, resumes or accounts, not what it learns: GPT-2's
    vocabulary (the tokenizer's ids), one layer of width 32, random weights (seed 0), tied. 1.6M parameters against
    dptie-mini's 16M: its first-step privacy check and its steps cost a tenth. Made once per session."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    d = tmp_path_factory.mktemp("tiny-model")
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=2, n_positions=64, vocab_size=50257,
                               bos_token_id=50256, eos_token_id=50256)).save_pretrained(d)
    return d

# The smoke sweep (`dptie sweep --preset smoke --jobs 2`: 7 notebooks, one thread each, about 3.5 minutes on 2 cores)
# starts as soon as its test is collected and runs beside the tests before it, whose processes leave a core idle much of
# the time; `test_smoke_sweep_and_report` waits for it (the `smoke_sweep` fixture). Nothing else reads its folder.
SMOKE_TEST = "test_study.py::test_smoke_sweep_and_report"
_smoke = {}

def dptie_exe() -> str: return str(Path(sys.executable).with_name("dptie"))

def _start_smoke():
    d = Path(tempfile.mkdtemp(prefix="dptie-smoke-"))
    fh = (d/"sweep.log").open("w")
    proc = subprocess.Popen([dptie_exe(), "sweep", "--preset", "smoke", "--jobs", "2", "--out", str(d/"out")], cwd=ROOT,
                            stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)  # its own group: stopped with its kernels
    _smoke.update(proc=proc, dir=d, fh=fh)

def pytest_collection_finish(session):
    if (os.environ.get("DPTIE_ASSETS") and not session.config.option.collectonly
            and any(i.nodeid.endswith(SMOKE_TEST) for i in session.items)): _start_smoke()

def pytest_sessionfinish(session, exitstatus):
    "A sweep still running when the session ends (a failure with -x, Ctrl-C) is stopped as Ctrl-C stops it, then its folder removed"
    p = _smoke.get("proc")
    if p is None: return
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGINT)
        try: p.wait(timeout=60)
        except subprocess.TimeoutExpired: os.killpg(p.pid, signal.SIGKILL); p.wait()
    _smoke["fh"].close()
    shutil.rmtree(_smoke["dir"], ignore_errors=True)

@pytest.fixture(scope="session")
def smoke_sweep():
    "(exit code, output, --out folder) of the session's smoke sweep, once it has finished"
    if "proc" not in _smoke: _start_smoke()
    p = _smoke["proc"]
    p.wait(timeout=1800)
    _smoke["fh"].flush()
    return p.returncode, (_smoke["dir"]/"sweep.log").read_text(), _smoke["dir"]/"out"
