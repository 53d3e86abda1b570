"""The benchmark (notebooks in `nbs/study/bench/`): the private step against the non-private one and Opacus, by shape,
in processes of their own (`dptie bench`). Modules are imported on first use."""
from ... import _lazy
_MODULES, __getattr__ = _lazy(__name__, __file__)
