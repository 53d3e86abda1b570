"""Exported cells stay short: lists every cell of nbs/*.ipynb that starts with an export directive (`#| export`,
`#|export`, `#| exports`) and has more than MAX lines, and can cut such a cell into several exported cells at its
top-level definitions (consecutive statements grouped up to MAX lines; the code itself is not changed).

    python tools/cells.py                     # list the long exported cells (exit 1 when there is one)
    python tools/cells.py --cut nbs/X.ipynb   # cut X's long exported cells; a single definition over MAX stays whole
"""
import ast, json, re, secrets, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX = 40
EXPORT = re.compile(r"^#\|\s*exports?\s*$")

def source(cell:dict) -> str: return "".join(cell["source"])

def exported(cell:dict) -> bool:
    "Whether `cell` is a code cell whose first line is an export directive."
    return cell["cell_type"] == "code" and bool(EXPORT.match(source(cell).split("\n", 1)[0].strip()))

def long_cells(nb:Path, most:int=MAX) -> list[tuple[int, str, int]]:
    "(index, id, lines) of each exported cell of `nb` longer than `most` lines."
    cells = json.loads(nb.read_text())["cells"]
    return [(i, c.get("id", ""), len(source(c).splitlines())) for i, c in enumerate(cells)
            if exported(c) and len(source(c).splitlines()) > most]

def pieces(code:str) -> list[list[str]]:
    "The lines of `code` in top-level pieces: each statement (decorators included) with the comments and blanks above it."
    lines, tree = code.split("\n"), ast.parse(code)
    starts = [min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])]) - 1 for n in tree.body]
    for k, s in enumerate(starts):  # comments right above a statement belong to it
        while s > (starts[k - 1] if k else 0) and lines[s - 1].lstrip().startswith("#"): s -= 1
        starts[k] = s
    starts[0] = 0
    return [lines[a:b] for a, b in zip(starts, starts[1:] + [len(lines)])]

def _trim(lines:list[str]) -> list[str]:
    while lines and not lines[0].strip(): lines = lines[1:]
    while lines and not lines[-1].strip(): lines = lines[:-1]
    return lines

def cut(src:str, most:int=MAX) -> list[str]:
    "The sources of the cells that `src` (an exported cell) is cut into: its directive on each, pieces grouped up to `most` lines."
    head, code = src.split("\n", 1)
    groups, cur = [], []
    for p in pieces(code):
        if _trim(cur) and 1 + len(_trim(cur + p)) > most: groups.append(_trim(cur)); cur = []
        cur = cur + p
    if _trim(cur): groups.append(_trim(cur))
    return [head + "\n" + "\n".join(g) for g in groups]

def _as_source(text:str) -> list[str]:
    lines = text.split("\n")
    return [l + "\n" for l in lines[:-1]] + [lines[-1]]

def cut_notebook(nb:Path, most:int=MAX) -> int:
    "Cut every long exported cell of `nb` in place; returns how many cells it added."
    d = json.loads(nb.read_text())
    out, added = [], 0
    for c in d["cells"]:
        if not (exported(c) and len(source(c).splitlines()) > most): out.append(c); continue
        parts = cut(source(c), most)
        for k, text in enumerate(parts):
            new = dict(c, source=_as_source(text), outputs=[], execution_count=None)
            if k: new["id"] = secrets.token_hex(4)
            out.append(new)
        added += len(parts) - 1
    d["cells"] = out
    nb.write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n")
    return added

if __name__ == "__main__":
    if sys.argv[1:2] == ["--cut"]:
        for fn in sys.argv[2:]: print(f"{fn}: {cut_notebook(Path(fn))} cell(s) added")
        sys.exit(0)
    rows = [(nb, *row) for nb in sorted((ROOT/"nbs").glob("*.ipynb")) for row in long_cells(nb)]
    for nb, i, cid, n in rows: print(f"{nb.relative_to(ROOT)}: cell {i} ({cid}) has {n} lines")
    sys.exit(1 if rows else 0)
