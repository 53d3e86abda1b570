#!/usr/bin/env python3
"""A second, shorter H200 run, after `dptie pretrain` took its cross-entropy over contiguous rows (`window_loss`):
1. times a training step of the dptie-mini shape with the old layout (`lm_loss`, `[B, V, T-1]`) and the new one;
2. trains the wider variant (4 layers x 512, 8 heads) from random initialisation on the reviews for a wall-clock
   budget with the new layout, and probes it on SST-2 (its weights are too large to bring back with the limits).
Inputs as for gpu_run.py, without dptie-mini's weights. report2.json in --out is rewritten after each phase.

Run from the repository root (the package installed): `python tools/dptie-mini-reviews/gpu_run2.py --stage STAGE`;
its record is in reports/models/dptie-mini-reviews/ (README.md, gpu_report2.json, gpu_log2.txt)."""
import argparse, contextlib, json, lzma, gzip, os, shutil, sys, time, traceback
from pathlib import Path
T0 = time.time()
p = argparse.ArgumentParser()
p.add_argument("--stage", required=True); p.add_argument("--work", default="scratch/gpu-work2")
p.add_argument("--out", default=os.environ.get("OUT", "scratch/gpu-out2")); p.add_argument("--device", default="cuda")
p.add_argument("--wide-seconds", type=float, default=190); p.add_argument("--wide", default="4,8,512")
p.add_argument("--batch-size", type=int, default=512); p.add_argument("--seq-len", type=int, default=128)
p.add_argument("--lr", type=float, default=1.5e-3); p.add_argument("--max-steps", type=int, default=0)
p.add_argument("--eval-batches", type=int, default=0); p.add_argument("--probe-train", type=int, default=4000)
p.add_argument("--probe-dev", type=int, default=0)
a = p.parse_args()
out, work, stage = Path(a.out), Path(a.work), Path(a.stage)
out.mkdir(parents=True, exist_ok=True); work.mkdir(parents=True, exist_ok=True)
report = dict(args=vars(a), phases={})
def say(*x): print(f"[{time.time() - T0:6.1f}s]", *x, flush=True)
def save_report():
    report["wall_seconds"] = round(time.time() - T0, 1)
    tmp = out/".report2.json.tmp"; tmp.write_text(json.dumps(report, indent=1, default=str)); os.replace(tmp, out/"report2.json")
assets = work/"assets"
if not (work/"reviews.tokens.npy").exists():
    with lzma.open(stage/"reviews.tokens.npy.xz") as f, open(work/"reviews.tokens.npy", "wb") as g: shutil.copyfileobj(f, g)
shutil.copy(stage/"reviews.tokens.json", work/"reviews.tokens.json")
shutil.copytree(stage/"assets", assets, dirs_exist_ok=True)
with gzip.open(assets/"glue/SST-2/train.tsv.gz") as f, open(assets/"glue/SST-2/train.tsv", "wb") as g: shutil.copyfileobj(f, g)
os.environ["DPTIE_ASSETS"] = str(assets); os.environ["HF_HUB_OFFLINE"] = "1"
import torch
from dptie_nb.pretrain import main as pretrain_main
from dptie_nb.lm import _quiet_build, gpt2_config, pretrain_optimizer as make_optimizer, window_loss
from dptie_nb.corpus import load_tokens
from dptie_nb.model import lm_loss, param_counts
from dptie_nb.probe import probe
cuda = a.device.startswith("cuda")
report["env"] = dict(torch=torch.__version__, gpu=torch.cuda.get_device_name(0) if cuda else None)
toks = load_tokens(work/"reviews.tokens.npy"); report["tokens"] = dict(total=int(len(toks)), train=int(len(toks) - 200_000))
say("ready", report["env"])
def sync():
    if cuda: torch.cuda.synchronize()
def calibrate(cfg, loss_fn, n=10):
    model = _quiet_build(cfg, 0).to(a.device); model.train(); opt = make_optimizer(model, 1e-6)
    x = torch.randint(0, 50257, (a.batch_size, a.seq_len), device=a.device)
    ctx = torch.autocast("cuda", dtype=torch.bfloat16) if cuda else contextlib.nullcontext()
    if cuda: torch.cuda.reset_peak_memory_stats()
    fwd = step = 0.0
    for i in range(3 + n):
        sync(); t = time.perf_counter()
        with ctx: loss = loss_fn(model, x).mean()
        sync(); t1 = time.perf_counter()
        opt.zero_grad(set_to_none=True); loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); sync()
        if i >= 3: fwd += t1 - t; step += time.perf_counter() - t
    r = dict(step_s=step / n, fwd_s=fwd / n, tokens_per_s=a.batch_size * a.seq_len * n / step, params=param_counts(model)["total"],
             peak_gib=torch.cuda.max_memory_allocated() / 2**30 if cuda else None)
    del model, opt, x
    if cuda: torch.cuda.empty_cache()
    return r
old = lambda m, x: lm_loss(m, x, torch.ones_like(x))
try:
    mini = gpt2_config(4, 4, 256, 256)
    for name, fn in (("mini_lm_loss", old), ("mini_window_loss", window_loss), ("mini_lm_loss_again", old), ("mini_window_loss_again", window_loss)):
        report["phases"][name] = calibrate(mini, fn); say(name, report["phases"][name]); save_report()
except Exception: report["calibration_error"] = traceback.format_exc(); say(report["calibration_error"]); save_report()
L, H, W = (int(v) for v in a.wide.split(","))
ph = report["phases"]["wide"] = dict(budget_s=a.wide_seconds)
try:
    cal = calibrate(gpt2_config(L, H, W, 256), window_loss); ph["calibration"] = cal; say("wide calibration", cal)
    steps = max(20, int(a.wide_seconds / (cal["step_s"] * 1.12)))
    if a.max_steps: steps = min(steps, a.max_steps)
    folder = work/"wide"
    argv = ["--tokens", str(work/"reviews.tokens.npy"), "--layers", str(L), "--heads", str(H), "--width", str(W), "--out", str(folder),
            "--device", a.device, "--bf16" if cuda else "--no-bf16", "--batch-size", str(a.batch_size), "--seq-len", str(a.seq_len),
            "--steps", str(steps), "--warmup", str(max(1, min(200, steps // 10))), "--lr", str(a.lr), "--min-lr", str(a.lr / 10),
            "--eval-every", str(max(1, steps // 40)), "--checkpoint-every", str(10**9), "--max-minutes", str(a.wide_seconds * 1.25 / 60 + 0.3),
            "--heldout-tokens", "200000", "--quiet"] + (["--eval-batches", str(a.eval_batches)] if a.eval_batches else [])
    ph.update(argv=argv, steps_planned=steps, passes_planned=steps * a.batch_size * a.seq_len / report["tokens"]["train"])
    say("wide", steps, "steps planned", round(ph["passes_planned"], 2), "passes"); save_report()
    rec = pretrain_main(argv)
    log = json.loads((folder/"pretrain_log.json").read_text())
    ph.update(steps_done=rec["steps_done"], finished=rec["finished"], final_heldout_loss=rec["final_heldout_loss"], log=log,
              tokens_seen=rec["tokens_seen"], elapsed_s=rec["elapsed_seconds"], tokens_per_s_run=rec["tokens_seen"] / rec["elapsed_seconds"])
    for r in log[:: max(1, len(log) // 8)] + log[-1:]: say("wide", r["step"], r["train"], round(r["val"], 4), r["sec"])
    save_report()
    df = probe([str(folder)], train_n=a.probe_train, dev_n=a.probe_dev or None, device=a.device, quiet=True, batch_size=256)
    report["probe_wide"] = json.loads(df.to_json(orient="records")); say("probe wide\n" + df.to_string())
except Exception: ph["error"] = traceback.format_exc(); say("wide FAILED\n" + ph["error"])
save_report(); say("done")
