"""bf16 against float32 on this CPU, one thread: `step_profile` of dptie-mini, and two short pretraining runs of the same
steps (chapter 10_pretrain). Run from the repository root (the package installed):

    dptie pretrain --tokenize-only --corpus $DPTIE_ASSETS/corpus-reviews --documents paragraph --tokens-cache scratch/pt-runs/reviews.tokens.npy
    python tools/dptie-mini-reviews/cpu_bf16_bench.py --tokens scratch/pt-runs/reviews.tokens.npy --work scratch/pt-runs

It writes WORK/bench_cpu.json; the run recorded in reports/models/dptie-mini-reviews/cpu_bf16_bench.json is its output."""
import argparse, json, shutil, time
from pathlib import Path
import numpy as np, torch
from dptie_nb.corpus import load_tokens
from dptie_nb.lm import cpu_bf16_support, heldout_loss, heldout_starts, step_profile, windows
from dptie_nb.model import build_model
from dptie_nb.pretrain import main

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--tokens", default="scratch/pt-runs/reviews.tokens.npy", help="the reviews' token cache")
p.add_argument("--work", default="scratch/pt-runs", help="folder for the two runs and bench_cpu.json")
a = p.parse_args()
work = Path(a.work); work.mkdir(parents=True, exist_ok=True)
torch.set_num_threads(1)
res = dict(cpu_bf16=cpu_bf16_support(), threads=torch.get_num_threads())
toks = load_tokens(a.tokens)
x = windows(toks, np.arange(16) * 10_000 + 300_000, 128)
m = build_model("dptie-mini", "tied")
for b, fl in ((False, False), (False, True), (True, False), (True, True), (False, True), (True, True)):
    r = step_profile(m, x, bf16=b, repeats=3, flat=fl); print(json.dumps(r), flush=True)
    res.setdefault("profile", []).append(r)
for name, flag in (("fp32", "--no-bf16"), ("bf16", "--bf16")):
    out = work/f"cpu-{name}"; shutil.rmtree(out, ignore_errors=True)
    t = time.time()
    rec = main(["--tokens", a.tokens, "--init-from", "dptie-mini", "--out", str(out), "--device", "cpu", flag, "--steps", "24", "--warmup", "4",
                "--eval-every", "8", "--eval-batches", "8", "--checkpoint-every", "1000", "--num-threads", "1", "--quiet"])
    log = json.loads((out/"pretrain_log.json").read_text())
    res[name] = dict(wall=time.time() - t, elapsed=rec["elapsed_seconds"], log=log, command=rec["command"])
    print(name, res[name]["wall"], [(r["step"], r["train"], r["val"], r["sec"]) for r in log], flush=True)
starts = heldout_starts(200_000, 128, 128)
for name in ("fp32", "bf16"):
    mm = build_model(str(work/f"cpu-{name}"), "tied")
    res[name]["final_heldout_fp32_eval"] = heldout_loss(mm, toks, starts, 128, 16, "cpu", False)
    print(name, "final held-out (float32 eval, 128 windows)", res[name]["final_heldout_fp32_eval"], flush=True)
(work/"bench_cpu.json").write_text(json.dumps(res, indent=1))
