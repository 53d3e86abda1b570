#!/usr/bin/env python3
"""The one GPU run that made `dptie-mini-reviews` (and measured a wider variant), as sent to an H200.

Inputs (staged from a folder, see --stage): the IMDb reviews tokenised by `dptie pretrain --tokenize-only --documents
paragraph` (xz), dptie-mini's weights rounded to bf16 (xz), its config, the GPT-2 tokenizer and SST-2. It then
1. times a training step of each shape (bf16 autocast) and sizes the run to a wall-clock budget;
2. runs `dptie pretrain --init-from dptie-mini` on the reviews (the first 200k tokens held out) for that many steps;
3. writes the model in bf16, probes it on SST-2 beside dptie-mini and random init, and tars it in <16 MiB parts;
4. the same for a wider model from random init, when --wide is given (its weights do not come back: too large).
Everything measured goes to report.json in --out, rewritten after each phase, so a timeout still returns it.

Run from the repository root (the package installed): `python tools/dptie-mini-reviews/gpu_run.py --stage STAGE`.
What it produced, the command it ran with and the commit it ran at are recorded in reports/models/dptie-mini-reviews/
(README.md, gpu_report.json, gpu_log.txt); this copy imports today's names (dptie_nb.lm, dptie_nb.corpus)."""
import argparse, contextlib, json, lzma, gzip, os, shutil, sys, tarfile, time, traceback
from pathlib import Path

T0 = time.time()
p = argparse.ArgumentParser()
p.add_argument("--stage", required=True, help="folder with the inputs (inputs/ layout)")
p.add_argument("--work", default="scratch/gpu-work")
p.add_argument("--out", default=os.environ.get("OUT", "scratch/gpu-out"))
p.add_argument("--device", default="cuda")
p.add_argument("--main-seconds", type=float, default=225)
p.add_argument("--wide-seconds", type=float, default=105)
p.add_argument("--wide", default="4,8,512", help="layers,heads,width of the wider variant ('' to skip)")
p.add_argument("--batch-size", type=int, default=512)
p.add_argument("--seq-len", type=int, default=128)
p.add_argument("--lr", type=float, default=1.5e-3)
p.add_argument("--max-steps", type=int, default=0, help="cap the steps (a dry run); 0: none")
p.add_argument("--eval-batches", type=int, default=0, help="held-out batches an evaluation (a dry run); 0: all")
p.add_argument("--probe-train", type=int, default=4000)
p.add_argument("--probe-dev", type=int, default=0, help="0: the whole dev split")
a = p.parse_args()
out, work, stage = Path(a.out), Path(a.work), Path(a.stage)
out.mkdir(parents=True, exist_ok=True); work.mkdir(parents=True, exist_ok=True)
report = dict(args=vars(a), phases={})

def say(*x): print(f"[{time.time() - T0:6.1f}s]", *x, flush=True)
def save_report():
    report["wall_seconds"] = round(time.time() - T0, 1)
    tmp = out/".report.json.tmp"; tmp.write_text(json.dumps(report, indent=1, default=str)); os.replace(tmp, out/"report.json")

# --- unpack the inputs
assets = work/"assets"
if not (work/"reviews.tokens.npy").exists():
    with lzma.open(stage/"reviews.tokens.npy.xz") as f, open(work/"reviews.tokens.npy", "wb") as g: shutil.copyfileobj(f, g)
shutil.copy(stage/"reviews.tokens.json", work/"reviews.tokens.json")
shutil.copytree(stage/"assets", assets, dirs_exist_ok=True)
with lzma.open(stage/"dptie-mini.bf16.safetensors.xz") as f, open(assets/"models/dptie-mini/model.safetensors", "wb") as g: shutil.copyfileobj(f, g)
with gzip.open(assets/"glue/SST-2/train.tsv.gz") as f, open(assets/"glue/SST-2/train.tsv", "wb") as g: shutil.copyfileobj(f, g)
os.environ["DPTIE_ASSETS"] = str(assets); os.environ["HF_HUB_OFFLINE"] = "1"
say("inputs unpacked")

import torch
from dptie_nb.pretrain import main as pretrain_main
from dptie_nb.lm import _quiet_build, gpt2_config, pretrain_optimizer as make_optimizer
from dptie_nb.corpus import load_tokens
from dptie_nb.model import build_model, lm_loss, param_counts
from dptie_nb.probe import probe
cuda = a.device.startswith("cuda")
torch.backends.cuda.matmul.allow_tf32 = True; torch.backends.cudnn.allow_tf32 = True
import transformers, numpy
report["env"] = dict(torch=torch.__version__, transformers=transformers.__version__, numpy=numpy.__version__,
                     python=sys.version.split()[0], gpu=torch.cuda.get_device_name(0) if cuda else None, cuda=torch.version.cuda)
say(report["env"])
toks = load_tokens(work/"reviews.tokens.npy")
report["tokens"] = dict(total=int(len(toks)), train=int(len(toks) - 200_000))

def sync():
    if cuda: torch.cuda.synchronize()

def calibrate(spec, n=10):
    "Seconds a training step of `spec` takes at the run's batch (bf16 autocast on cuda), and peak memory."
    model = _quiet_build(spec, 0).to(a.device); model.train()
    opt = make_optimizer(model, 1e-6)
    x = torch.randint(0, 50257, (a.batch_size, a.seq_len), device=a.device); m = torch.ones_like(x)
    ctx = torch.autocast("cuda", dtype=torch.bfloat16) if cuda else contextlib.nullcontext()
    if cuda: torch.cuda.reset_peak_memory_stats()
    times = dict(fwd=0.0, step=0.0)
    for i in range(3 + n):
        sync(); t = time.perf_counter()
        with ctx: loss = lm_loss(model, x, m).mean()
        sync(); t1 = time.perf_counter()
        opt.zero_grad(set_to_none=True); loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); sync()
        if i >= 3: times["fwd"] += t1 - t; times["step"] += time.perf_counter() - t
    # the forward without the LM head and softmax: where the rest of the step goes
    t_body = 0.0
    with torch.no_grad():
        for i in range(3 + n):
            sync(); t = time.perf_counter()
            with ctx: model.base_model(input_ids=x).last_hidden_state
            sync()
            if i >= 3: t_body += time.perf_counter() - t
    r = dict(step_s=times["step"] / n, fwd_s=times["fwd"] / n, body_fwd_nograd_s=t_body / n,
             tokens_per_s=a.batch_size * a.seq_len * n / times["step"], params=param_counts(model)["total"],
             peak_gib=torch.cuda.max_memory_allocated() / 2**30 if cuda else None)
    del model, opt, x; 
    if cuda: torch.cuda.empty_cache()
    return r

def run(name, budget, extra, spec):
    ph = report["phases"][name] = dict(budget_s=budget)
    try:
        t = time.time(); cal = calibrate(spec); ph["calibration"] = cal
        say(name, "calibration", {k: (round(v, 4) if isinstance(v, float) else v) for k, v in cal.items()})
        steps = max(20, int(budget / (cal["step_s"] * 1.12)))
        if a.max_steps: steps = min(steps, a.max_steps)
        warmup = max(1, min(200, steps // 10))
        folder = work/name
        argv = ["--tokens", str(work/"reviews.tokens.npy"), *extra, "--out", str(folder), "--device", a.device,
                "--bf16" if cuda else "--no-bf16", "--batch-size", str(a.batch_size), "--seq-len", str(a.seq_len),
                "--steps", str(steps), "--warmup", str(warmup), "--lr", str(a.lr), "--min-lr", str(a.lr / 10),
                "--eval-every", str(max(1, steps // 40)), "--checkpoint-every", str(10**9),
                "--max-minutes", str(budget * 1.3 / 60 + 0.5), "--heldout-tokens", "200000", "--quiet"]
        if a.eval_batches: argv += ["--eval-batches", str(a.eval_batches)]
        ph["argv"], ph["steps_planned"], ph["passes_planned"] = argv, steps, steps * a.batch_size * a.seq_len / report["tokens"]["train"]
        say(name, f"{steps} steps planned ({ph['passes_planned']:.2f} passes over the training tokens)"); save_report()
        t = time.time(); rec = pretrain_main(argv); ph["train_wall_s"] = round(time.time() - t, 1)
        log = json.loads((folder/"pretrain_log.json").read_text())
        ph.update(steps_done=rec["steps_done"], finished=rec["finished"], stop_reason=rec["stop_reason"],
                  final_heldout_loss=rec["final_heldout_loss"], first_heldout_loss=log[0]["val"], log=log,
                  tokens_seen=rec["tokens_seen"], elapsed_s=rec["elapsed_seconds"],
                  tokens_per_s_run=rec["tokens_seen"] / rec["elapsed_seconds"])
        for r in log[:: max(1, len(log) // 10)] + log[-1:]: say(name, f"step {r['step']}: train {r['train']}, held-out {r['val']:.4f}, {r['sec']} s")
        save_report()
        return folder
    except Exception:
        ph["error"] = traceback.format_exc(); say(name, "FAILED\n" + ph["error"]); save_report()
        return None

# --- the main model: dptie-mini continued on the reviews
folder = run("main", a.main_seconds, ["--init-from", "dptie-mini"], "dptie-mini")
if folder is not None:
    try:
        exp = work/"export"/"dptie-mini-reviews"; exp.mkdir(parents=True, exist_ok=True)
        m = build_model(str(folder), "tied"); m.to(torch.bfloat16).save_pretrained(exp)
        for f in ("pretrain_command.json", "pretrain_log.json", "loss.png"): shutil.copy(folder/f, exp/f)
        say("exported", sorted(os.listdir(exp)))
        tar = work/"main.tar"
        with tarfile.open(tar, "w") as tf: tf.add(exp, arcname="dptie-mini-reviews")
        data, part = tar.read_bytes(), 15 * 2**20
        for i in range(0, len(data), part): (out/f"main.tar.{i // part:02d}").write_bytes(data[i:i + part])
        report["main_tar"] = dict(bytes=len(data), parts=(len(data) + part - 1) // part)
        say("main model written to $OUT", report["main_tar"]); save_report()
        t = time.time()
        df = probe([str(exp), "dptie-mini", "random:dptie-mini"], train_n=a.probe_train, dev_n=a.probe_dev or None,
                   device=a.device, quiet=True, batch_size=256)
        report["probe_main"] = json.loads(df.to_json(orient="records")); say("probe\n" + df.to_string()); save_report()
    except Exception:
        report["export_error"] = traceback.format_exc(); say("export/probe FAILED\n" + report["export_error"]); save_report()

# --- a wider variant from random initialisation, if asked and if there is time
if a.wide:
    L, H, W = (int(v) for v in a.wide.split(","))
    left = 470 - (time.time() - T0) - 45
    budget = min(a.wide_seconds, left) if cuda else a.wide_seconds
    if budget > 20:
        wf = run("wide", budget, ["--layers", str(L), "--heads", str(H), "--width", str(W)], gpt2_config(L, H, W, 256))
        if wf is not None:
            try:
                df = probe([str(wf)], train_n=a.probe_train, dev_n=a.probe_dev or None, device=a.device, quiet=True, batch_size=256)
                report["probe_wide"] = json.loads(df.to_json(orient="records")); say("probe wide\n" + df.to_string())
                shutil.copy(wf/"pretrain_command.json", out/"wide_pretrain_command.json")
            except Exception: report["wide_probe_error"] = traceback.format_exc(); say(report["wide_probe_error"])
    else: report["phases"]["wide"] = dict(skipped=f"only {left:.0f} s left")
save_report(); say("done")
