"""A DP run killed with SIGKILL mid-way and started again ends exactly where an uninterrupted run ends (CPU),
and its ledger counts every step once. The model is the session's tiny one (`tiny_model` in conftest.py): what is
checked is the resumption, which does not depend on the model's size."""
import json, math, os, signal, subprocess, sys, time
from pathlib import Path
import pytest

pytestmark = pytest.mark.skipif(not os.environ.get("DPTIE_ASSETS"), reason="needs DPTIE_ASSETS")
ARGS = ["--task", "sst2", "--epsilon", "3", "--train-cap", "96", "--dev-cap", "16", "--max-len", "32", "--batch-size", "16",
        "--epochs", "2", "--num-threads", "1", "--checkpoint-every", "1", "--seed", "3", "--noise", "common"]  # one key: two processes, one noise

def cmd(out, model): return [str(Path(sys.executable).with_name("dptie")), "train", *ARGS, "--model", str(model), "--out", str(out)]

def test_sigkill_then_resume(tmp_path, tiny_model):
    # the uninterrupted reference and the run to kill start together: one thread each, and independent processes
    log = (tmp_path/"straight.log").open("w")
    straight = subprocess.Popen(cmd(tmp_path/"straight", tiny_model), stdout=log, stderr=subprocess.STDOUT)
    out = tmp_path/"killed"
    p = subprocess.Popen(cmd(out, tiny_model), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ck, t0 = out/"checkpoint.pt", time.time()
    try:
        while time.time() - t0 < 600:  # kill it once a checkpoint past step 3 exists (12 steps are planned)
            time.sleep(0.05)
            if ck.exists() and len(json.loads((out/"metrics.json").read_text()).get("history", [])) >= 3: break
            assert p.poll() is None, "the run finished before it could be killed"
        os.kill(p.pid, signal.SIGKILL); p.wait()
        assert straight.wait(timeout=900) == 0, (tmp_path/"straight.log").read_text()[-3000:]
    finally:
        for q in (p, straight):
            if q.poll() is None: q.kill(); q.wait()
        log.close()
    ref = json.loads((tmp_path/"straight"/"metrics.json").read_text())
    assert json.loads((out/"metrics.json").read_text())["status"] == "running"
    again = subprocess.run(cmd(out, tiny_model), capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-3000:]
    m = json.loads((out/"metrics.json").read_text())
    assert m["resumed_from_step"] > 0
    assert m["final"]["params_sha256"] == ref["final"]["params_sha256"]
    assert m["privacy"]["steps"] == ref["privacy"]["steps"] == ref["privacy"]["planned_steps"]
    # floats from two processes: equal up to rounding (the bitwise check is the parameters' hash above)
    assert math.isclose(m["privacy"]["epsilon_prv"], ref["privacy"]["epsilon_prv"], rel_tol=1e-9)
    assert m["privacy"]["epsilon_prv"] >= ref["privacy"]["epsilon_prv"] * (1 - 1e-9)
    for a, b in zip(m["history"], ref["history"], strict=True): assert math.isclose(a["loss"], b["loss"], rel_tol=1e-9, abs_tol=1e-12)
    for a, b in zip(m["evals"], ref["evals"], strict=True): assert math.isclose(a["acc"], b["acc"], rel_tol=1e-9)
