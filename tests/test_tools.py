"""The scripts in tools/ run against today's package: every name they import from dptie_nb exists, and each parses."""
import ast, importlib
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = sorted((ROOT/"tools").rglob("*.py"))

@pytest.mark.parametrize("script", TOOLS, ids=[str(p.relative_to(ROOT/"tools")) for p in TOOLS])
def test_imports_resolve(script):
    tree = ast.parse(script.read_text(), str(script))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dptie_nb"):
            mod = importlib.import_module(node.module)
            missing = [a.name for a in node.names if not hasattr(mod, a.name)]
            assert not missing, f"{script.relative_to(ROOT)}: {node.module} has no {missing} (line {node.lineno})"
