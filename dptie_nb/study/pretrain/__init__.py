"""Pretraining the study's small GPT-2-shaped models on public text, and probing them (notebooks in
`nbs/study/pretrain/`). Modules are imported on first use."""
from ... import _lazy
_MODULES, __getattr__ = _lazy(__name__, __file__)
