"""Runs every chapter under nbs/lib/ and nbs/study/ (its cells are the tests), one pytest test per notebook, as `nbdev_test` does.

Cells flagged `#| assets` need the offline assets (`DPTIE_ASSETS`), `#| slow` ones take minutes (run them with
`bash .ci/test --slow`), `#| cuda` ones need a GPU. A flagged cell that cannot or should not run is left out of its
notebook's run and counted as a skipped test of its own (`test_flagged_cells`), so nothing passes without running.
The papermill templates in nbs/study/ are not chapters: `tests/test_templates.py` executes them."""
import json, os, re
import pytest
from pathlib import Path
from nbdev.config import get_config
from nbdev.doclinks import nbglob
from nbdev.test import test_nb as run_notebook  # not named test_*: pytest would collect it

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = {ROOT/"nbs"/"study"/"experiment.ipynb", ROOT/"nbs"/"study"/"report.ipynb"}   # papermill's, beside the study's chapters
NBS = sorted(p for p in nbglob(str(ROOT/"nbs"), as_path=True) if p not in TEMPLATES)
FLAGS = {"assets": "set DPTIE_ASSETS", "slow": "pass --slow", "cuda": "run on a machine with CUDA"}

def flagged(nb:Path, flag:str) -> int:
    "Number of code cells of `nb` flagged `#| flag`"
    return sum(1 for c in json.loads(nb.read_text())["cells"]
               if c["cell_type"] == "code" and re.search(rf"^#\|\s*{flag}\b", "".join(c["source"]), re.M))

def enabled(flag:str, config) -> bool:
    if flag == "assets": return bool(os.environ.get("DPTIE_ASSETS"))
    if flag == "slow": return bool(config.getoption("--slow"))
    import torch
    return torch.cuda.is_available()

@pytest.mark.parametrize("nb", NBS, ids=[str(p.relative_to(ROOT/"nbs")) for p in NBS])
def test_notebook(nb, monkeypatch, request):
    monkeypatch.chdir(ROOT)
    force = [f for f in FLAGS if enabled(f, request.config)]
    ok, secs = run_notebook(nb.absolute(), skip_flags=get_config().tst_flags.split(), force_flags=force,
                            basepath=get_config().config_path)
    assert ok, f"{nb.name} failed (its traceback is printed above)"

CELLS = [(nb, f) for nb in NBS for f in FLAGS if flagged(nb, f)]

@pytest.mark.parametrize("nb,flag", CELLS, ids=[f"{nb.stem}-{f}" for nb, f in CELLS])
def test_flagged_cells(nb, flag, request):
    "Flagged cells run inside `test_notebook` when their flag is on (nbdev skips them by settings.ini's tst_flags unless forced); otherwise this test says they were skipped"
    assert flag in get_config().tst_flags.split(), f"'{flag}' is not in settings.ini's tst_flags: nbdev would run its cells on every machine"
    if not enabled(flag, request.config):
        pytest.skip(f"{flagged(nb, flag)} cell(s) of {nb.name} flagged '{flag}' did not run: {FLAGS[flag]}")
