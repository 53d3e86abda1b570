"""reports/ holds results, and results that name no folder of the machine that made them: no code, no absolute paths."""
import re, subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MACHINE = re.compile(rb"/(work|home|tmp|root)/")  # where this project's machines keep checkouts, homes and scratch files

def tracked(under:str="reports") -> list[Path]:
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--", under], capture_output=True, check=True).stdout
    return [ROOT/p for p in out.decode().split("\0") if p]

def test_reports_hold_no_code():
    "Code lives in the package, tools/ and tests/; reports/ keeps what code produced"
    py = sorted(str(p.relative_to(ROOT)) for p in (ROOT/"reports").rglob("*.py"))
    assert not py, f"Python files under reports/: {py}; move them to tools/ and keep their record (command, log, hashes) beside the results"

def test_no_machine_paths_in_committed_reports():
    bad = {}
    for p in tracked():
        if p.suffix in (".png", ".safetensors") or not p.is_file(): continue
        hits = sorted({m.group(0).decode() for m in MACHINE.finditer(p.read_bytes())})
        if hits: bad[str(p.relative_to(ROOT))] = hits
    assert not bad, (f"{len(bad)} committed file(s) under reports/ name a folder of the machine that made them "
                     f"(e.g. {dict(list(bad.items())[:3])}): write paths relative to the project root (dptie_nb.study.runner.portable)")
