"""dptie: does weight tying still pay under DP-SGD? Exact ghost clipping for tied embeddings, accountants and a
notebook-driven study. The modules are generated from the notebooks in `nbs/`; this file only makes them
available as attributes (`dptie_nb.ghost`, `dptie_nb.model`, ...), imported on first use."""
__version__ = "0.1.0"

import importlib as _importlib

_MODULES = ("assets", "data", "model", "accountant", "ghost", "dpoptim", "bench", "train", "sweep", "report",
            "pretrain", "distributed", "checkpoint", "cli")

def __getattr__(name):
    if name in _MODULES: return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def __dir__(): return sorted(list(globals()) + list(_MODULES))
