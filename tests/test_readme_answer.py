"""The README's "answer so far" in step with the report it quotes (issue 23, item 7): the accuracy bullets' numbers
appear in reports/study/report.md (whose appendix holds the pilot that chose its recipe) or in the first study's,
reports/default/report.md, and the cost ranges the README states are the study report's."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUM = re.compile(r"[−+-]?\d+(?:\.\d+)(?:[–-]\d+(?:\.\d+)?)?×?")

def answer() -> str:
    r = (ROOT/"README.md").read_text()
    return r[r.index("## The answer so far"):r.index("\n## ", r.index("## The answer so far") + 5)]

def bullets(text:str) -> list[str]:
    return [b for b in re.split(r"\n- ", text)[1:]]

def report() -> str:
    return "".join((ROOT/"reports"/p/"report.md").read_text() for p in ("study", "default", "pilot"))

def ends(n:str) -> list[str]:
    "A number as the report may print it: each end of a range, with a true minus sign."
    n = n.replace("-", "−").rstrip("×")
    return [x.lstrip("+") for x in n.split("–")]

def test_accuracy_numbers_are_the_reports():
    rep = report().replace("-", "−")
    missing = [n for b in bullets(answer())[:2] for n in dict.fromkeys(NUM.findall(b))
               if "×" not in n and not all(e in rep for e in ends(n))]
    assert not missing, f"numbers in the README's answer that reports/study/report.md (nor default's, nor pilot's) does not state: {missing}"

def test_cost_ranges_are_the_reports():
    rep, a = (ROOT/"reports"/"study"/"report.md").read_text(), " ".join(answer().split())
    pe = re.search(r"Against per-example clipping of the same tied model \(Opacus\), our exact ghost clipping took (\S+)× the time and (\S+)× the peak memory", rep)
    same = re.search(r"what tying costs within one engine: (\S+)× the time", rep)
    assert pe and same, "the report states both cost comparisons"
    assert f"it takes {pe.group(1)}× the time and {pe.group(2)}× the peak memory" in a, (pe.groups(), "README")
    assert f"within one engine: {same.group(1)}× the time" in a, (same.group(1), "README")
