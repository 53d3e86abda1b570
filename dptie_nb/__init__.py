"""dptie: does weight tying still pay under DP-SGD? Two folders of one package, generated from the notebooks in `nbs/`:

- `dptie_nb/` is the DP library (notebooks in `nbs/lib/`): Poisson sampling, the accountants, per-example norms and
  their bounds, exact ghost clipping for tied embeddings, the DP optimizer and `make_private`. It imports torch and
  Opacus only, never the study. Its names a user needs are at the front door:
  `from dptie_nb import make_private, GhostClipper, epsilon, noise_multiplier`.
- `dptie_nb.study` is the study (notebooks in `nbs/study/`): configuration and presets, data, models and arms, training,
  the sweep and the CLI, with `bench/`, `pretrain/` and `report/` as folders of their own
  (`dptie_nb.study.config.RunConfig`, `dptie_nb.study.train.train`; `pip install .[study]`).

Modules are imported on first use (`dptie_nb.ghost`, `dptie_nb.study.train`): `import dptie_nb` stays light."""
__version__ = "0.1.0"

import importlib as _importlib

from pathlib import Path as _Path

def _lazy(package:str, folder:str):
    "A package's `__getattr__` and `__dir__`: its modules and subpackages, each imported on first use"
    here = _Path(folder).parent
    names = tuple(sorted({p.stem for p in here.glob("*.py") if not p.stem.startswith("_")}
                         | {p.parent.name for p in here.glob("*/__init__.py")}))
    def __getattr__(name):
        if name in names: return _importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return names, __getattr__

_MODULES, _module = _lazy(__name__, __file__)   # the library's modules, and `study`

#: the front door: the names a user needs, each from its module, imported on first use (`import dptie_nb` stays light)
FRONT_DOOR = dict(make_private="private", PrivateTraining="private", private_plan="private", DPOptimizer="dpoptim",
                  GhostClipper="ghost", epsilon="accountant", noise_multiplier="accountant", PrivacyLedger="accountant",
                  PoissonSampler="sampling")  # the library's alone: a study run is dptie_nb.study.train.train(dptie_nb.study.config.RunConfig(...))

def __getattr__(name):
    if name in FRONT_DOOR: return getattr(_importlib.import_module(f"{__name__}.{FRONT_DOOR[name]}"), name)
    return _module(name)

def __dir__(): return sorted(list(globals()) + list(_MODULES) + list(FRONT_DOOR))
