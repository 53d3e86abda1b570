import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("MPLBACKEND", "Agg")
if not os.environ.get("DPTIE_ASSETS") and (ROOT.parent/"shared"/"assets").is_dir():
    os.environ["DPTIE_ASSETS"] = str(ROOT.parent/"shared"/"assets")

def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False, help="also run notebook cells flagged `#| slow`")
