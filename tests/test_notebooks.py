"""Runs every notebook under nbs/ (its cells are the tests), one pytest test per notebook, as `nbdev_test` does."""
import pytest
from pathlib import Path
from nbdev.config import get_config
from nbdev.doclinks import nbglob
from nbdev.test import test_nb as run_notebook  # not named test_*: pytest would collect it

ROOT = Path(__file__).resolve().parents[1]
NBS = sorted(nbglob(str(ROOT/"nbs"), as_path=True))

@pytest.mark.parametrize("nb", NBS, ids=[str(p.relative_to(ROOT/"nbs")) for p in NBS])
def test_notebook(nb, monkeypatch):
    monkeypatch.chdir(ROOT)
    ok, secs = run_notebook(nb.absolute(), skip_flags=get_config().tst_flags.split(), basepath=get_config().config_path)
    assert ok, f"{nb.name} failed (its traceback is printed above)"
