# Run from the repository root with PYTHONPATH=. DPTIE_ASSETS=../shared/assets; /work/pt-runs/reviews.tokens.npy is the token cache of
# `dptie pretrain --tokenize-only --corpus $DPTIE_ASSETS/corpus-reviews --documents paragraph --tokens-cache ...`.
import json, torch
torch.set_num_threads(1)
from dptie_nb.probe import probe, probe_markdown
from dptie_nb.pretrain import heldout_loss, heldout_starts, load_tokens
from dptie_nb.model import build_model
res = {}
toks = load_tokens("/work/pt-runs/reviews.tokens.npy")
st = heldout_starts(200_000, 128, 256)
for name in ("dptie-mini", "dptie-mini-reviews"):
    m = build_model(name, "tied")
    res[name] = heldout_loss(m, toks, st, 128, 16, "cpu", False); print("held-out", name, res[name], flush=True)
df = probe(["dptie-mini-reviews", "dptie-mini", "random:dptie-mini"], quiet=False)
res["probe"] = json.loads(df.to_json(orient="records"))
print(probe_markdown(df))
json.dump(res, open("/work/pt-runs/final_eval.json", "w"), indent=1)
open("/work/pt-runs/probe_table.md", "w").write(probe_markdown(df) + "\n")
