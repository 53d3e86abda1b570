"""The report (notebooks in `nbs/study/report/`): it reads the committed runs (`results`), computes the design's
comparisons and gates, and writes words, tables and figures (`report`). It never imports the jobs that write runs.
Modules are imported on first use."""
from ... import _lazy
_MODULES, __getattr__ = _lazy(__name__, __file__)
