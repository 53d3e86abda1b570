"""dptie: does weight tying still pay under DP-SGD? Exact ghost clipping for tied embeddings, accountants and a
notebook-driven study. The modules are generated from the notebooks in `nbs/`; this file only makes them
available as attributes (`dptie_nb.ghost`, `dptie_nb.model`, ...), imported on first use, and the few names a user
needs at the front door, the DP library's: `from dptie_nb import make_private, GhostClipper, epsilon, noise_multiplier`.
The study's names stay in their modules (`dptie_nb.config.RunConfig`, `dptie_nb.train.train`)."""
__version__ = "0.1.0"

import importlib as _importlib

from pathlib import Path as _Path
_MODULES = tuple(sorted(p.stem for p in _Path(__file__).parent.glob("*.py") if not p.stem.startswith("_")))  # what nbdev exported

#: the front door: the names a user needs, each from its module, imported on first use (`import dptie_nb` stays light)
FRONT_DOOR = dict(make_private="private", PrivateTraining="private", private_plan="private", DPOptimizer="dpoptim",
                  GhostClipper="ghost", epsilon="accountant", noise_multiplier="accountant", PrivacyLedger="accountant",
                  PoissonSampler="sampling")  # the library's alone: a study run is dptie_nb.train.train(dptie_nb.config.RunConfig(...))

def __getattr__(name):
    if name in FRONT_DOOR: return getattr(_importlib.import_module(f"{__name__}.{FRONT_DOOR[name]}"), name)
    if name in _MODULES: return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def __dir__(): return sorted(list(globals()) + list(_MODULES) + list(FRONT_DOOR))
