# Run from the repository root with PYTHONPATH=. DPTIE_ASSETS=../shared/assets; /work/pt-runs/reviews.tokens.npy is the token cache of
# `dptie pretrain --tokenize-only --corpus $DPTIE_ASSETS/corpus-reviews --documents paragraph --tokens-cache ...`.
"bf16 vs float32 on this CPU, 1 thread: step_profile of dptie-mini, and two short pretraining runs of the same steps."
import json, time, sys, shutil
import numpy as np, torch
torch.set_num_threads(1)
from dptie_nb.pretrain import step_profile, main, heldout_loss, heldout_starts, load_tokens, windows, cpu_bf16_support
from dptie_nb.model import build_model
res = dict(cpu_bf16=cpu_bf16_support(), threads=torch.get_num_threads())
toks = load_tokens("/work/pt-runs/reviews.tokens.npy")
x = windows(toks, np.arange(16) * 10_000 + 300_000, 128)
m = build_model("dptie-mini", "tied")
for b, fl in ((False, False), (False, True), (True, False), (True, True), (False, True), (True, True)):
    r = step_profile(m, x, bf16=b, repeats=3, flat=fl); print(json.dumps(r), flush=True)
    res.setdefault("profile", []).append(r)
T = "/work/pt-runs/reviews.tokens.npy"
for name, flag in (("fp32", "--no-bf16"), ("bf16", "--bf16")):
    out = f"/work/pt-runs/cpu-{name}"; shutil.rmtree(out, ignore_errors=True)
    t = time.time()
    rec = main(["--tokens", T, "--init-from", "dptie-mini", "--out", out, "--device", "cpu", flag, "--steps", "24", "--warmup", "4",
                "--eval-every", "8", "--eval-batches", "8", "--checkpoint-every", "1000", "--num-threads", "1", "--quiet"])
    log = json.loads(open(out + "/pretrain_log.json").read())
    res[name] = dict(wall=time.time() - t, elapsed=rec["elapsed_seconds"], log=log, command=rec["command"])
    print(name, res[name]["wall"], [(r["step"], r["train"], r["val"], r["sec"]) for r in log], flush=True)
starts = heldout_starts(200_000, 128, 128)
for name in ("fp32", "bf16"):
    mm = build_model(f"/work/pt-runs/cpu-{name}", "tied")
    res[name]["final_heldout_fp32_eval"] = heldout_loss(mm, toks, starts, 128, 16, "cpu", False)
    print(name, "final held-out (float32 eval, 128 windows)", res[name]["final_heldout_fp32_eval"], flush=True)
json.dump(res, open("/work/pt-runs/bench_cpu.json", "w"), indent=1)
