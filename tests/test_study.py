"""The study end to end, as CI runs it: the `smoke` preset through papermill, then the report, from the console command."""
import json, os, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
needs_assets = pytest.mark.skipif(not os.environ.get("DPTIE_ASSETS"), reason="needs DPTIE_ASSETS")

def dptie(*args, cwd):
    exe = Path(sys.executable).with_name("dptie")
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, timeout=1800)

@needs_assets
def test_smoke_sweep_and_report(smoke_sweep):
    "`dptie sweep --preset smoke --jobs 2 --out DIR`, started when the session began (`smoke_sweep` in conftest.py)"
    rc, output, out = smoke_sweep
    assert rc == 0, output
    runs = sorted((out/"runs").iterdir())
    assert len(runs) == 7, [p.name for p in runs]
    for run in runs:
        m = json.loads((run/"metrics.json").read_text())
        assert m["status"] == "ok", (run.name, m.get("error"))
        assert (run/"experiment.ipynb").exists()
        if m["config"]["epsilon"] is not None:
            assert m["privacy"]["epsilon_prv"] <= m["config"]["epsilon"] + 1e-9, run.name
    assert {json.loads((r_/"metrics.json").read_text())["config"]["task"] for r_ in runs} == {"sst2", "qnli", "qqp"}
    # a second sweep finds everything done
    r2 = dptie("sweep", "--preset", "smoke", "--out", str(out), cwd=ROOT)
    first = r2.stdout.splitlines()[0]
    assert "reusing the 7 finished run(s)" in first and "7 already done, 0 to run" in first, r2.stdout
    # a corrupt metrics file is skipped by the report, with its reason
    bad = out/"runs"/"broken-run"; bad.mkdir(); (bad/"metrics.json").write_text("{not json")
    r3 = dptie("report", "--runs", str(out/"runs"), "--out", str(out), cwd=ROOT)
    assert r3.returncode == 0, r3.stdout + r3.stderr
    html = (out/"report.html").read_text()
    assert "broken-run" in html and (out/"report.md").exists()
    assert list((out/"figures").glob("*.png"))

def test_unknown_preset_is_a_clear_error(tmp_path):
    r = dptie("sweep", "--preset", "nope", "--out", str(tmp_path), cwd=ROOT)
    assert r.returncode != 0 and "unknown preset 'nope'" in r.stderr, r.stderr[-2000:]

def test_misspelt_preset_makes_nothing(tmp_path):
    "`dptie report --preset defualt`: one line naming the closest preset, exit 2, and no reports/defualt/ left behind"
    for cmd in ("report", "study"):
        r = dptie(cmd, "--preset", "defualt", cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stdout + r.stderr
        assert "unknown preset 'defualt' (did you mean 'default'?)" in r.stderr, r.stderr
    assert not list(tmp_path.iterdir()), list(tmp_path.iterdir())

def test_study_help_explains_its_options():
    r = dptie("study", "--help", cwd=ROOT)
    assert r.returncode == 0 and "the preset to run and report" in r.stdout and "notebooks run at the same time" in r.stdout, r.stdout

def test_every_status_word_is_explained_in_the_readme():
    from dptie_nb.study.sweep import STATUS
    readme = (ROOT/"README.md").read_text()
    assert [w for w in STATUS if f"- `{w}`:" not in readme] == [], "README's list of the words `dptie sweep --list` prints"

def test_bad_epsilon_is_a_clear_error(tmp_path):
    r = dptie("train", "--epsilon", "0", "--out", str(tmp_path), cwd=ROOT)
    assert r.returncode != 0 and "epsilon=0: a target ε must be a positive finite number" in r.stderr, r.stderr[-2000:]

def test_report_without_runs_fails(tmp_path):
    r = dptie("report", "--runs", str(tmp_path/"none"), "--out", str(tmp_path/"out"), cwd=ROOT)
    assert r.returncode == 1 and "no readable run" in r.stderr, r.stdout + r.stderr
    assert (tmp_path/"out"/"report.html").exists()  # the page still says so
