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
    "The tiny model of `fixtures.tiny_model` (one layer of width 32, GPT-2's vocabulary, random, tied), made once per session."
    sys.path.insert(0, str(ROOT/"tests"))
    from fixtures import tiny_model as make
    return make(tmp_path_factory.mktemp("tiny-model"))

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
