"""The README's "answer so far" in step with the report it quotes (issue 36, item 7): its three answer lines are the
study report's, word for word, and every other number it states appears in reports/study/report.md (or, for the
earlier studies it mentions, in reports/study2/, reports/default/ or reports/pilot/)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUM = re.compile(r"[−+-]?\d+(?:\.\d+)(?:[–-]\d+(?:\.\d+)?)?×?")
LABELS = ("Memory", "Accuracy", "Privacy cost")

def answer() -> str:
    r = (ROOT/"README.md").read_text()
    start = r.index("## The answer so far")
    return r[start:r.index("\n#", start + 5)]

def report(which=("study", "study2", "default", "pilot")) -> str:
    return "".join((ROOT/"reports"/p/"report.md").read_text() for p in which)

def ends(n:str) -> list[str]:
    "A number as the report may print it: each end of a range, with a true minus sign."
    n = n.replace("-", "−").rstrip("×")
    return [x.lstrip("+") for x in n.split("–")]

def test_the_three_answers_are_the_reports():
    rep = (ROOT/"reports"/"study"/"report.md").read_text()
    for label in LABELS:
        line = next((l for l in answer().splitlines() if l.startswith(f"**{label}.**")), None)
        assert line, f"the README's answer has no **{label}.** line"
        assert line in rep.splitlines(), f"the README's {label} line is not the report's: {line[:120]}"

def test_every_number_is_the_reports():
    rep = report().replace("-", "−")
    missing = [n for n in dict.fromkeys(NUM.findall(answer())) if not all(e in rep for e in ends(n))]
    assert not missing, f"numbers in the README's answer that reports/study/report.md (nor study2's, default's or pilot's) does not state: {missing}"

def test_the_answer_is_short():
    "At most 200 words besides the three lines and the figure (issue 36, item 2)"
    rest = [l for l in answer().splitlines()[1:] if not l.startswith((*(f"**{x}.**" for x in LABELS), "!["))]
    assert len(" ".join(rest).split()) <= 200, len(" ".join(rest).split())

def test_the_report_reads_in_a_minute():
    "The study's report (issue 36, item 2): a main body of at most 20,000 characters before its Appendix, a conclusion of at most 120 words"
    rep = (ROOT/"reports"/"study"/"report.md").read_text()
    assert "\n# Appendix" in rep, "the report has no Appendix heading"
    main = rep[:rep.index("\n# Appendix")]
    assert len(main) <= 20_000, len(main)
    concl = main[main.index("## Conclusion"):]
    concl = concl[:concl.index("\n## ", 5)]
    assert len(concl.split()) - 2 <= 120, len(concl.split())
