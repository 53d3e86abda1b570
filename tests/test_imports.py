"""The package's import graph, read from its code (`ast`, every import, at the top of a module or inside a function):
no circle, and every arrow runs down the declared layers. `python tests/test_imports.py` prints the graph's numbers."""
import ast, functools, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT/"dptie_nb"

#: lowest first. A module imports modules of lower layers, and of its own wing; never one above it, nor the other
#: wing of its layer: the jobs write files (runs, benchmark, models), the report wing reads them.
LAYERS = [
    {"plumbing": ["files", "runner", "accountant", "distributed", "sampling", "factors", "assets", "noise"]},
    {"definitions": ["config", "definitions"]},
    {"engine": ["rules", "batch", "bounds", "verify", "ghost", "emulations", "data", "model", "locality", "dpoptim", "private",
                "engine", "corpus", "lm", "provenance", "evaluation", "mechanism"]},
    {"jobs": ["warm", "train", "launch", "templates", "pretrain_config", "pretrain", "probe", "bench_grid", "bench_child", "bench_study", "bench", "sweep"], "report": ["results", "stats", "design", "sources", "figures", "phrases", "costs", "findings", "walk", "selection", "report"]},
    {"face": ["cli"]},
]

#: imports of the package inside a function, each with its reason; every other one sits at the top of its module
IN_FUNCTIONS = {
    ("cli", "*"): "each command's module when that command runs: torch, transformers, Opacus, papermill and matplotlib take about 10 s to import, which `dptie --help` should not wait for",
    ("bench_child", "_build"): "the library's private_plan, for a checkout whose make_engine takes a plan: the older checkouts it also times may predate dptie_nb.private",
    ("launch", "*"): "train, distributed and evaluation (torch, transformers, Opacus) once `dptie train` has checked its options, model and data: a misspelt name is refused in about a second (issue 48)",
}

@functools.cache
def paths() -> dict[str, Path]:
    "Each module's file, by its name (names are unique across the package's folders: the library's at the root, the study's under study/)"
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        if p.stem in ("__init__", "_modidx") or "__pycache__" in p.parts: continue
        assert p.stem not in out, f"two modules named {p.stem}: {out[p.stem]} and {p}"
        out[p.stem] = p
    return out

def modules() -> list[str]:
    return sorted(paths())

def dotted(m:str) -> str:
    "A module's import name, e.g. dptie_nb.study.train"
    return ".".join(paths()[m].relative_to(ROOT).with_suffix("").parts)

def _targets(node, here:str, names:dict) -> list[str]:
    "The package modules an import node in module `here` (dotted) names; `names` maps dotted names to module names"
    if isinstance(node, ast.Import): return [names[a.name] for a in node.names if a.name in names]
    base = node.module or ""
    if node.level:   # relative: from the package of `here`, `level` folders up
        pkg = here.split(".")[:-node.level]
        base = ".".join(pkg + ([base] if base else []))
    if base in names: return [names[base]]
    return [names[f"{base}.{a.name}"] for a in node.names if f"{base}.{a.name}" in names]

def imports(mod:str) -> list[tuple[str, str|None]]:
    "(imported module, enclosing function or None) for each import of the package in `mod`, `importlib.import_module('dptie_nb.x')` included."
    names = {dotted(m): m for m in modules()}
    here, tree = dotted(mod), ast.parse(paths()[mod].read_text())
    out = []
    def visit(node, fn):
        for ch in ast.iter_child_nodes(node):
            f = ch.name if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn is None else fn
            if isinstance(ch, (ast.Import, ast.ImportFrom)): out.extend((t, fn) for t in _targets(ch, here, names))
            elif (isinstance(ch, ast.Call) and getattr(ch.func, "attr", getattr(ch.func, "id", None)) == "import_module" and ch.args
                  and isinstance(ch.args[0], ast.Constant) and str(ch.args[0].value) in names):
                out.append((names[str(ch.args[0].value)], fn))
            visit(ch, f)
    visit(tree, None)
    return [(t, fn) for t, fn in out if t != mod]

def graph() -> dict[str, set]:
    return {m: {t for t, _ in imports(m)} for m in modules()}

def cycles(g:dict) -> list[list[str]]:
    "The strongly connected components of more than one module (Tarjan), each sorted."
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def strong(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in sorted(g[v]):
            if w not in index: strong(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    sys.setrecursionlimit(10_000)
    for v in sorted(g):
        if v not in index: strong(v)
    return out

def levels(g:dict) -> dict[str, int]:
    "Each module's level: 1 for one that imports nothing of the package, else one above the highest it imports (a circle counts once)."
    memo = {}
    def lv(m, seen=()):
        if m in memo: return memo[m]
        deps = [d for d in g[m] if d not in seen]
        memo[m] = r = 1 + max((lv(d, seen + (m,)) for d in deps), default=0)
        return r
    return {m: lv(m) for m in g}

def where(m:str) -> tuple[int, str]:
    "(layer, wing) of a module in `LAYERS`."
    hits = [(i, w) for i, layer in enumerate(LAYERS) for w, ms in layer.items() if m in ms]
    assert len(hits) == 1, f"{paths()[m].relative_to(ROOT)} is in {len(hits)} places of LAYERS: give it one layer (tests/test_imports.py)"
    return hits[0]

def test_no_circle():
    c = cycles(graph())
    assert not c, f"import circles: {c}"

def test_every_module_has_a_layer():
    for m in modules(): where(m)
    listed = {m for layer in LAYERS for ms in layer.values() for m in ms}
    assert listed <= set(modules()), f"LAYERS names modules that do not exist: {sorted(listed - set(modules()))}"

def test_arrows_run_down_the_layers():
    bad = []
    for m, deps in graph().items():
        (lm, wm) = where(m)
        for d in deps:
            (ld, wd) = where(d)
            if ld > lm or (ld == lm and wd != wm): bad.append(f"{m} ({wm}) imports {d} ({wd})")
    assert not bad, "imports against the layers of tests/test_imports.py: " + "; ".join(sorted(bad))

def test_report_wing_reads_only():
    "The report wing (results, stats, design, sources, figures, phrases, costs, findings, report) imports neither the benchmark's code nor the sweep's"
    for m in LAYERS[3]["report"]:
        assert not graph()[m] & set(LAYERS[3]["jobs"]), (m, graph()[m])

def test_imports_at_the_top():
    hidden = [(m, t, fn) for m in modules() for t, fn in imports(m) if fn is not None
              and (m, fn) not in IN_FUNCTIONS and (m, "*") not in IN_FUNCTIONS]
    assert not hidden, f"imports of the package inside functions (move them to the top of the module): {hidden}"

def numbers(g:dict|None=None) -> dict:
    g = g or graph()
    lv = levels(g)
    return dict(modules=len(g), edges=sum(len(v) for v in g.values()), levels=max(lv.values()), cycles=len(cycles(g)),
                in_functions=sum(1 for m in g for t, fn in imports(m) if fn is not None))

if __name__ == "__main__":
    g = graph(); lv = levels(g)
    print(numbers(g))
    for k in sorted(set(lv.values()), reverse=True): print(k, " ".join(sorted(m for m in lv if lv[m] == k)))
    for c in cycles(g): print("circle:", " -> ".join(c))

#: the DP library: what `make_private` needs, and nothing of the study (GLUE, papermill, pandas, figures, the report)
LIBRARY = ["sampling", "accountant", "factors", "rules", "batch", "bounds", "verify", "ghost", "locality", "noise", "dpoptim", "private",
           "distributed"]
STUDY_ONLY = ("pandas", "papermill", "matplotlib", "datasets", "nbformat")

def test_the_library_imports_no_study_module():
    "A fresh interpreter that imports the DP library loads no study module of the package, nor pandas, papermill, matplotlib or datasets"
    import subprocess
    code = (f"import sys; import {', '.join('dptie_nb.' + m for m in LIBRARY)}; "
            "print(sorted(m for m in sys.modules if m.startswith('dptie_nb.'))); "
            f"print(sorted(m for m in {STUDY_ONLY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    mods, heavy = [eval(line) for line in out.stdout.strip().splitlines()[-2:]]
    assert {m.split(".")[1] for m in mods} <= set(LIBRARY), f"the DP library imported study modules: {sorted(m for m in mods if m.split('.')[1] not in LIBRARY)}"
    assert not heavy, f"the DP library imported {heavy}"

def test_two_folders():
    "The DP library's modules sit at the package's root with their chapters in nbs/lib/; every other module under study/, its chapter under nbs/study/"
    import re
    for m, p in paths().items():
        want = PKG if m in LIBRARY else PKG/"study"
        assert p.parent == want or (m not in LIBRARY and p.is_relative_to(want)), f"{p.relative_to(ROOT)} belongs under {want.relative_to(ROOT)}/"
    for nb in (ROOT/"nbs").rglob("*.ipynb"):
        if (m := re.search(r"#\|\s*default_exp\s+([\w.]+)", nb.read_text())):
            mod = m.group(1).split(".")[-1]
            assert nb.parent.relative_to(ROOT/"nbs").parts[0] == ("lib" if mod in LIBRARY else "study"), f"{nb.relative_to(ROOT)} exports {m.group(1)}"

ASSEMBLED = ("DPOptimizer", "PoissonSampler", "PrivacyLedger")   # the parts of a private run the library's `assemble` builds
OLDER_CHECKOUTS = {"bench_child"}   # times an older checkout's run, built with that checkout's own classes where it predates the plan

def test_the_study_assembles_no_private_run():
    "No study module constructs the library's DP optimizer, sampler or ledger: every private run is `private.assemble`'s (through `make_engine`)"
    for m, p in paths().items():
        if m in LIBRARY or m in OLDER_CHECKOUTS: continue
        calls = [n for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.Call)]
        named = lambda f: f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        bad = sorted({f"{named(c.func)} (line {c.lineno})" for c in calls if named(c.func) in ASSEMBLED})
        assert not bad, (f"{p.relative_to(ROOT)} builds {bad} itself: build a private run's engine with "
                         "dptie_nb.study.engine.make_engine(kind, model, optimizer, plan, ...), whose dptie step is the library's "
                         "assemble (sampler, ledger, DP optimizer); a plan's sampler is plan.sampler(seed)")
    child = ast.parse(paths()["bench_child"].read_text())   # its own run is the plan's: the other branch is an older checkout's
    assert any(isinstance(n, ast.Attribute) and n.attr == "private_plan" for n in ast.walk(child))

def test_the_library_never_imports_the_study():
    "Every import of a library module (at the top or inside a function) names a library module"
    for m in LIBRARY:
        bad = [t for t, _ in imports(m) if t not in LIBRARY]
        assert not bad, f"{paths()[m].relative_to(ROOT)} imports {bad}: the DP library imports torch, opacus and itself only"

def test_front_door():
    "The names a user needs import from the package itself, each the object its module defines"
    import importlib, dptie_nb
    for name, mod in dptie_nb.FRONT_DOOR.items():
        assert getattr(dptie_nb, name) is getattr(importlib.import_module(f"dptie_nb.{mod}"), name), name

def chapters() -> dict[str, str]:
    "Each module's chapter: the stem of the notebook in nbs/ whose `default_exp` names it."
    import re
    out = {}
    for nb in (ROOT/"nbs").rglob("*.ipynb"):
        m = re.search(r"#\|\s*default_exp\s+([\w.]+)", nb.read_text())
        if m: out[m.group(1).split(".")[-1]] = nb.stem
    return out

#: the library's chapters in the order of the idea (the tour's five steps: which examples, ε, each example's norm,
#: clipping, noise, the step, make_private), then what the engine rests on, read after it (issue 49, item 6)
IDEA = ["sampling", "accountant", "factors", "ghost", "noise", "dpoptim", "private"]
RESTS_ON = ["bounds", "rules", "verify", "batch", "locality", "distributed"]

def test_chapters_in_reading_order():
    "The library's chapters follow the idea (the tour, then IDEA, then RESTS_ON), a library chapter importing an earlier one or one of RESTS_ON; each study chapter (10-) imports only chapters numbered before it"
    ch = chapters()
    assert set(ch) == set(modules()), f"modules without a chapter, or chapters without a module: {set(ch) ^ set(modules())}"
    assert sorted(IDEA + RESTS_ON) == sorted(LIBRARY), "every library module is either a step of the idea or something it rests on"
    order = [ch[m] for m in IDEA + RESTS_ON]
    assert order == sorted(order) and (ROOT/"nbs"/"lib"/"00_tour.ipynb").exists(), f"the library's chapters, in the idea's order: {order}"
    late = [(ch[m], ch[t]) for m, ts in graph().items() for t in ts if ch[t] >= ch[m] and not (m in LIBRARY and t in RESTS_ON)]
    assert not late, f"chapters that import a chapter numbered after them (renumber so each comes after what it uses): {late}"
    lib = sorted(ch[m] for m in LIBRARY); study = sorted(ch[m] for m in ch if m not in LIBRARY)
    assert lib[-1] < "10" <= study[0], f"the library's chapters must be numbered 00-09 and the study's from 10: {lib[-1]}, {study[0]}"

def test_every_library_cell_has_its_example():
    "As in fastcore: in the library's chapters (nbs/lib/) each exported cell is followed by a code cell that is not exported, its example or test"
    import json
    bare = []
    for nb in sorted((ROOT/"nbs"/"lib").glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        code = lambda c: c["cell_type"] == "code"
        exported = lambda c: code(c) and "".join(c["source"]).lstrip().startswith("#| export")
        for i, c in enumerate(cells):
            if exported(c) and (i + 1 == len(cells) or not code(cells[i + 1]) or exported(cells[i + 1])):
                first = next((l for l in c["source"][1:] if l.strip() and not l.startswith(("@", "#"))), "").strip()
                bare.append(f"{nb.name} cell {i}: {first[:60]}")
    assert not bare, "exported cells with no example or test right under them: " + "; ".join(bare)

def test_the_front_door_is_the_library():
    "The package's front door holds the DP library's names only: the study's stay in their modules"
    import dptie_nb
    assert set(dptie_nb.FRONT_DOOR.values()) <= set(LIBRARY), {n: m for n, m in dptie_nb.FRONT_DOOR.items() if m not in LIBRARY}
