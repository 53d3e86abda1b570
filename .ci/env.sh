# Sourced by .ci/test, .ci/main, .ci/lab and .ci/run: a virtual environment with the package installed (created or
# reused; pip's output in .venv/pip.log), DPTIE_ASSETS defaulting to ../shared/assets (the package finds that folder by
# itself too), and the Jupyter kernel papermill runs ("python3").
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
if [ -z "${DPTIE_ASSETS:-}" ] && [ -d "$ROOT/../shared/assets" ]; then
  export DPTIE_ASSETS=$(cd "$ROOT/../shared/assets" && pwd)
fi
VENV=${DPTIE_VENV:-$ROOT/.venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
# CI (CI=true) installs without the `lab` extra: no test starts JupyterLab, and JupyterLab's jsonschema format extras
# (rfc3987_syntax builds a grammar at import) add about 1-2 s to every process that imports nbformat. DPTIE_EXTRAS overrides.
if [ "${CI:-}" = "true" ]; then EXTRAS=${DPTIE_EXTRAS:-dev}; else EXTRAS=${DPTIE_EXTRAS:-dev,lab}; fi
want=$( (cat setup.py settings.ini; echo "extras=$EXTRAS") | sha1sum | cut -c1-40)
if [ "$(cat "$VENV/.dptie-installed" 2>/dev/null)" != "$want" ]; then
  # pip's own output (its progress, and the many "WARNING: Location ... is ignored" lines of some mirrors) goes to a log
  # under the venv: the screen gets one line before and one after, and the log's tail only when the install fails.
  log="$VENV/pip.log"; t0=$SECONDS
  echo "dptie: installing into $VENV (torch 2.13.0 CPU, transformers, opacus, nbdev, papermill, extras: $EXTRAS); pip's output: $log"
  if ! { "$VENV/bin/python" -m pip install -q --upgrade pip &&
         "$VENV/bin/python" -m pip install -q -e ".[$EXTRAS]" &&
         "$VENV/bin/python" -m ipykernel install --sys-prefix --name python3; } >"$log" 2>&1; then
    echo "dptie: the install failed; the last lines of $log (pip's location warnings left out):" >&2
    { grep -v "^WARNING: Location" "$log" || true; } | tail -n 25 >&2; exit 1
  fi
  echo "$want" > "$VENV/.dptie-installed"
  echo "dptie: installed in $((SECONDS - t0)) s"
fi
export PATH="$VENV/bin:$PATH"
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg TOKENIZERS_PARALLELISM=false
