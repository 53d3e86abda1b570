"""Every ```python block of the README runs as written (a user copies them first)."""
import os, re
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT/"README.md").read_text(), re.S)

@pytest.mark.skipif(not os.environ.get("DPTIE_ASSETS"), reason="needs DPTIE_ASSETS (the tokenizer, SST-2, the models)")
@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_python_block(i, monkeypatch, capsys):
    "Each Python block runs, and prints what its `# prints \"...\"` comments say it prints (issue 48 item 5)"
    import torch
    monkeypatch.chdir(ROOT); torch.set_num_threads(1)
    exec(compile(BLOCKS[i], f"README.md python block {i + 1}", "exec"), {})
    out = capsys.readouterr().out
    for want in re.findall(r'# prints "([^"]+)"', BLOCKS[i]):
        assert want in out, f"README.md python block {i + 1} says it prints {want!r}; it printed {out[-300:]!r}"

def test_readme_shows_the_library():
    "The README's Python is the library's recommended loop: make_private with a per-example loss_fn, priv.step(), a resume"
    code = "\n".join(BLOCKS)
    for must in ("make_private(", "loss_fn=", "priv.step()", "priv.state_dict()", "priv.load_state_dict("):
        assert must in code, f"the README's Python no longer shows {must!r}: the library example is gone or changed"

def test_readme_is_generated_from_index():
    "README.md is nbs/index.ipynb rendered (`python tools/readme.py`), and short enough to read (issue 36: ≤ 200 lines)"
    import sys; sys.path.insert(0, str(ROOT/"tools"))
    from readme import render, first_difference
    text = render()
    assert (ROOT/"README.md").read_text() == text, f"{first_difference((ROOT/'README.md').read_text(), text)}: run python tools/readme.py"
    assert len(text.splitlines()) <= 200, len(text.splitlines())

def test_worked_examples_cite_their_committed_runs():
    "Each committed run the experiment template's introduction cites exists, and the accuracy it quotes is that run's (issue 36, item 8)"
    import json
    nb = json.loads((ROOT/"nbs"/"study"/"experiment.ipynb").read_text())
    intro = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    for para in intro.split("\n\n"):
        runs = re.findall(r"`(reports/[^`]+?/runs/[^`/]+)(?:/metrics\.json)?/?`", para)
        for run in runs:
            m = json.loads((ROOT/run/"metrics.json").read_text())
            acc = f"{100 * m['final']['dev_acc']:.1f}%"
            assert acc in para, f"the template cites {run}, whose dev accuracy is {acc}, but says: {para[:300]}"
        assert runs or not re.search(r"\d+\.\d%", para), f"an accuracy with no committed run cited: {para[:300]}"

def test_shell_example_states_its_committed_run():
    "The shell example's stated accuracy is its committed run's (reports/readme/shell-train, made by that very command)"
    import json
    text = (ROOT/"README.md").read_text()
    said = re.search(r'# ends "dev accuracy ([0-9.]+)% after (\d+) steps"', text)
    assert said, "the README's shell example no longer says what it ends on"
    m = json.loads((ROOT/"reports/readme/shell-train/metrics.json").read_text())
    assert f"{100 * m['final']['dev_acc']:.1f}" == said.group(1) and m["final"]["steps"] == int(said.group(2)), (said.groups(), m["final"]["dev_acc"])
    cfg = m["config"]   # the committed run is the command the README shows
    for k, v in dict(model="dptie-mini-reviews", optimizer="adamw", lr=1e-4, warmup=0.06, lr_schedule="linear", restrict_loss=True,
                     max_len=64, batch_size=32, epochs=0.0475, epsilon=None).items():
        assert cfg[k] == v, (k, cfg[k], v)

def test_papermill_example_states_its_committed_run():
    "The papermill example's template defaults with its -p values are the committed default-preset run it names, and its accuracy is that run's"
    import json
    text = (ROOT/"README.md").read_text()
    said = re.search(r'"dev accuracy ([0-9.]+)%" after (\d+) s of training', text)
    assert said and "-p tying untied -p seed 1" in text, "the README's papermill example no longer says what it makes"
    m = json.loads((ROOT/"reports/default/runs/default-sst2-dptie-mini-reviews-pretrained-untied-eps3-s1/metrics.json").read_text())
    assert f"{100 * m['final']['dev_acc']:.1f}" == said.group(1) and round(m["final"]["train_time_s"]) == int(said.group(2))
    nb = json.loads((ROOT/"nbs/study/experiment.ipynb").read_text())
    ns = {}; exec("".join(next(c["source"] for c in nb["cells"] if "parameters" in c["metadata"].get("tags", []))), ns)
    ns.update(tying="untied", seed=1, num_threads=1)
    differ = {k: (ns[k], v) for k, v in m["config"].items() if k in ns and k not in ("tag", "out") and ns[k] != v}
    assert not differ, f"the template's defaults are no longer that run's settings: {differ}"

def test_pilot_numbers_come_from_its_runs():
    "The README's small-batch sentence quotes pilot-v4's checks as `selection.pilot_checks` computes them from the committed runs"
    import re
    from dptie_nb.study.report.selection import pilot_checks
    readme = " ".join((ROOT/"README.md").read_text().split())
    said = re.search(r"at DP-SGD 0\.1 the noise binds and ε 8 − ε 1 is \+([\d.]+) points, yet tied and untied differ on (\d+) of "
                     r"([\d,]+) held-out predictions \(two seeds of one arm: (\d+)\)", readme)
    assert said, "the README no longer states the pilot's checks 1 and 4 for DP-SGD 0.1"
    row = pilot_checks("pilot-v4", ROOT/"reports").set_index("recipe").loc["p4-sgd0.1"]
    dose, arms, n, seeds = said.groups()
    assert "passed" in row["2. noise binds"] and f"ε 8 − ε 1 +{dose} points" in row["4. dose-response"], row["4. dose-response"]
    assert f"tied and untied differ on {arms} of {n}" in row["1. arms can differ"] and f"seeds 0 and 1 of tied on {seeds};" in row["1. arms can differ"]
