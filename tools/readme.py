"""README.md is generated from nbs/index.ipynb (nbdev's convention, without Quarto): its markdown cells as they are,
its code cells as ```python blocks, one blank line between cells.

    python tools/readme.py           # write README.md
    python tools/readme.py --check   # exit 1, naming the first differing line, when README.md is not current
"""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INDEX, README = ROOT/"nbs"/"index.ipynb", ROOT/"README.md"

def render(index:Path=INDEX) -> str:
    "The README's text from the index notebook's cells."
    cells = json.loads(index.read_text())["cells"]
    src = lambda c: "".join(c["source"]).strip("\n")
    parts = [src(c) if c["cell_type"] == "markdown" else f"```python\n{src(c)}\n```" for c in cells
             if c["cell_type"] in ("markdown", "code") and src(c)]
    return "\n\n".join(parts) + "\n"

def first_difference(a:str, b:str) -> str:
    "Where two texts first differ, as a line number and both lines."
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y: return f"line {i}: README.md has {x[:80]!r}, nbs/index.ipynb gives {y[:80]!r}"
    return f"README.md has {len(a.splitlines())} lines, nbs/index.ipynb gives {len(b.splitlines())}"

if __name__ == "__main__":
    text = render()
    if "--check" in sys.argv[1:]:
        if README.read_text() != text:
            sys.exit(f"README.md is not generated from nbs/index.ipynb ({first_difference(README.read_text(), text)}): "
                     f"edit nbs/index.ipynb, then run python tools/readme.py")
    else: README.write_text(text); print(f"README.md: {len(text.splitlines())} lines from nbs/index.ipynb")
