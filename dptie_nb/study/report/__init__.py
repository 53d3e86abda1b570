"""The report (notebooks in `nbs/study/report/`), a pipeline: it reads the committed runs (`results`), computes the
statistics (`stats`), reads what a preset declared against them (`design`: the primary comparison, the control, the
gates), and writes words, tables and figures (`report`). It never imports the jobs that write runs.
Modules are imported on first use."""
from ... import _lazy
_MODULES, __getattr__ = _lazy(__name__, __file__)
