"""The CPU checks of dptie-mini-reviews: the float32 held-out loss of dptie-mini and of the model on 256 held-out windows,
and the SST-2 probe table (`dptie_nb.probe`). Run from the repository root (the package installed):

    python tools/dptie-mini-reviews/final_eval.py --tokens scratch/pt-runs/reviews.tokens.npy --work scratch/pt-runs

It writes WORK/final_eval.json and WORK/probe_table.md; reports/models/dptie-mini-reviews/probe.json is the recorded output."""
import argparse, json
from pathlib import Path
import torch
from dptie_nb.corpus import load_tokens
from dptie_nb.lm import heldout_loss, heldout_starts
from dptie_nb.model import build_model
from dptie_nb.probe import probe, probe_markdown

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--tokens", default="scratch/pt-runs/reviews.tokens.npy", help="the reviews' token cache")
p.add_argument("--work", default="scratch/pt-runs", help="folder for final_eval.json and probe_table.md")
a = p.parse_args()
work = Path(a.work); work.mkdir(parents=True, exist_ok=True)
torch.set_num_threads(1)
res = {}
toks = load_tokens(a.tokens)
st = heldout_starts(200_000, 128, 256)
for name in ("dptie-mini", "dptie-mini-reviews"):
    m = build_model(name, "tied")
    res[name] = heldout_loss(m, toks, st, 128, 16, "cpu", False); print("held-out", name, res[name], flush=True)
df = probe(["dptie-mini-reviews", "dptie-mini", "random:dptie-mini"], quiet=False)
res["probe"] = json.loads(df.to_json(orient="records"))
print(probe_markdown(df))
(work/"final_eval.json").write_text(json.dumps(res, indent=1))
(work/"probe_table.md").write_text(probe_markdown(df) + "\n")
