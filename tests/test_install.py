"""Install what you use (issue 49): `pip install .` is the DP library, whose modules import nothing outside its
requirements, and a DP step runs in an environment that holds those requirements and their dependencies alone."""
import ast, configparser, os, re, subprocess, sys, tempfile
from importlib import metadata
from pathlib import Path
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from test_imports import LIBRARY, PKG, ROOT

CFG = configparser.ConfigParser(); CFG.read(ROOT/"settings.ini")
BASE = CFG["DEFAULT"]["requirements"].split()
STUDY = CFG["DEFAULT"]["study_requirements"].split()

def third_party(mod:str) -> set:
    "The top-level names of every import outside the package and the standard library in dptie_nb/MOD.py"
    out = set()
    for node in ast.walk(ast.parse((PKG/f"{mod}.py").read_text())):
        if isinstance(node, ast.Import): out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module: out.add(node.module.split(".")[0])
    return {n for n in out if n not in sys.stdlib_module_names and n not in ("dptie_nb", "__future__")}

def dists_of(reqs) -> set:
    "The distributions `reqs` install: themselves and their dependencies, transitively (extras left out), canonical names"
    seen, todo = set(), [Requirement(r).name for r in reqs]
    while todo:
        n = canonicalize_name(todo.pop())
        if n in seen: continue
        seen.add(n)
        for r in metadata.distribution(n).requires or []:
            req = Requirement(r)
            if req.marker is None or req.marker.evaluate({"extra": ""}): todo.append(req.name)
    return seen

def entries_of(dist:str) -> set:
    "The top-level files and folders a distribution installed in site-packages (its packages, modules and libraries)"
    d = metadata.distribution(dist)
    names = {Path(str(f)).parts[0] for f in d.files or [] if not str(f).startswith("..")}
    return {n for n in names if not n.endswith((".dist-info", ".pth", "__pycache__"))}

def tops_of(dist:str) -> set:
    "The top-level importable names a distribution installed"
    return {n.split(".")[0] for n in entries_of(dist)}

def test_the_base_install_is_the_library():
    "setup.py's install_requires is settings.ini's `requirements`; the study's packages are the `study` extra's"
    reqs = metadata.requires("dptie_nb") or []
    base = sorted(r.split(";")[0].replace(" ", "") for r in reqs if "extra" not in r)
    assert base == sorted(BASE), f"pip install . gives {base}, settings.ini says {BASE}: reinstall (.ci/env.sh)"
    study = sorted(r.split(";")[0].replace(" ", "") for r in reqs if re.search(r"extra\s*==\s*.study.", r))
    assert set(STUDY) <= set(study) and not set(BASE) & set(study), study

def test_the_library_imports_only_its_requirements():
    "Every third-party import of a library module comes from `requirements` or what they pull in"
    allowed = set().union(*(tops_of(d) for d in dists_of(BASE)))
    bad = {m: sorted(third_party(m) - allowed) for m in LIBRARY if third_party(m) - allowed}
    assert not bad, f"library modules import packages outside `requirements` (add them there, or move the code to the study): {bad}"

def test_a_dp_step_with_the_base_install_alone():
    "In an interpreter that sees only the base requirements and their dependencies (no transformers, pandas, papermill), make_private trains"
    with tempfile.TemporaryDirectory() as d:
        for dist in dists_of(BASE):
            site = Path(metadata.distribution(dist).locate_file(""))
            for top in entries_of(dist):
                if (site/top).exists() and not (Path(d)/top).exists(): os.symlink(site/top, Path(d)/top)
        os.symlink(PKG, Path(d)/"dptie_nb")
        code = ("import sys; sys.path[:0] = [sys.argv[1]]\n"
                "import torch; from dptie_nb import make_private\n"
                "class LM(torch.nn.Module):\n"
                "    def __init__(s): super().__init__(); s.emb = torch.nn.Embedding(50, 8); s.head = torch.nn.Linear(8, 50, bias=False); s.head.weight = s.emb.weight\n"
                "    def forward(s, x): return s.head(s.emb(x).mean(1))\n"
                "torch.manual_seed(0); m = LM()\n"
                "data = [(torch.randint(0, 50, (5,)), torch.randint(0, 50, ())) for _ in range(64)]\n"
                "loss = lambda model, b: torch.nn.functional.cross_entropy(model(b[0]), b[1], reduction='none')\n"
                "priv = make_private(m, torch.optim.SGD(m.parameters(), lr=0.1), data, 16, 1, 3.0, loss_fn=loss, micro_batch_size=8)\n"
                "priv.step(); priv.step()\n"
                "study = sorted(n for n in ('transformers', 'pandas', 'papermill', 'matplotlib', 'datasets', 'tqdm') if n in sys.modules)\n"
                "print('eps', priv.epsilon(), 'study', study)\n")
        out = subprocess.run([sys.executable, "-I", "-S", "-c", code, d], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "study []" in out.stdout and float(out.stdout.split()[1]) > 0, out.stdout

def test_the_cli_names_every_study_package():
    "`dptie` answers a missing study package with the extra to install: it knows each study requirement by its import name"
    from dptie_nb.study.cli import STUDY_IMPORTS
    missing = [r for r in STUDY if not tops_of(Requirement(r).name) & set(STUDY_IMPORTS)]
    assert not missing, f"dptie_nb.study.cli.STUDY_IMPORTS lacks the import names of {missing}"
