#!/usr/bin/env bash
# The device benchmark (issue 33) in one call: GPT-2 and DistilGPT2 (random weights), T = 128 and 256, B = 16, 32, 64,
# bf16 and float32, six modes (non-private, dptie tied and untied, the tied matrix materialised as the paper does,
# Opacus per-example on the tied model, Opacus ghost on the untied one), each configuration's
# torch.cuda.max_memory_allocated and median step time (5 steps after 2 warm-up), all in one process
# (dptie_nb.study.bench.bench_grid.device_sweep), cheapest first, within a 7-minute budget (--budget-s; what does not fit is recorded
# `skipped`): under 8 minutes on one H200. Then one figure per precision and T, in the CPU grid's style.
#
#   bash tools/gpu/bench_gpu.sh                                    # on the GPU machine: reports/bench/gpu/<precision>-T<T>/
#   bash tools/gpu/bench_gpu.sh --device cpu --out scratch/gpu     # the same path on the CPU at tiny shapes (tested in 18_bench_grid)
#
# It needs torch, transformers, opacus, fastcore, matplotlib and pandas, and the model configs under $DPTIE_ASSETS/configs
# (default ../shared/assets). Where the GPU image lacks the pure-Python ones, WHEELS=<folder of wheels> installs them into a
# private folder first (stage them where the project's environment is: pip download --no-deps --only-binary=:all: -d WHEELS
# opacus==<its version> fastcore==<its version>).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=reports/bench/gpu
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[$i]}" = "--out" ] && OUT=${args[$((i + 1))]}; done
if [ -n "${WHEELS:-}" ]; then
  SITE=${TMPDIR:-/tmp}/dptie-bench-site
  python -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$WHEELS"/*.whl
  export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" DPTIE_ASSETS=${DPTIE_ASSETS:-$PWD/../shared/assets} MPLBACKEND=Agg
rc=0
python -m dptie_nb.study.bench.bench --preset gpu --out "$OUT" "$@" || rc=$?
python - "$OUT" <<'PY'
import sys
from pathlib import Path
from dptie_nb.study.report.figures import plot_bench
from dptie_nb.study.report.sources import load_bench
for f in sorted(Path(sys.argv[1]).glob("*/bench.json")):
    plot_bench(load_bench(f)[0], save=f.parent/"bench.png"); print(f"wrote {f.parent/'bench.png'}")
PY
exit $rc
