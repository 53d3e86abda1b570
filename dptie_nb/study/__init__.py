"""The study (notebooks in `nbs/study/`): does weight tying still pay under DP-SGD? Configuration and presets, data,
models and their tied or untied arms, training, the sweep and the `dptie` CLI; the benchmark (`bench/`), the
pretraining of the study's small models (`pretrain/`) and the report (`report/`) in folders of their own. It uses the
DP library one folder up (`dptie_nb`); the library never imports it. Modules are imported on first use."""
from .. import _lazy
_MODULES, __getattr__ = _lazy(__name__, __file__)
