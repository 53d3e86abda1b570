"""Synthetic runs and benchmark records for the report's tests, made without training anything, and the tiny model that
the training tests run on.

Not part of the package: the report's chapters (`nbs/study/report/`), the training ones and the CLI's put this folder
on `sys.path` and import it. A fake run's config is `dataclasses.asdict(RunConfig(...))` and its name
`RunConfig.run_id()`, so a field added to the schema reaches the fakes by itself."""
from __future__ import annotations
import base64, math, zlib
from dataclasses import asdict
from pathlib import Path

import numpy as np
from dptie_nb.study.files import atomic_write_json
from dptie_nb.study.config import RunConfig

__all__ = ["fake_metrics", "fake_runs", "fake_bench", "sigma_spent", "NEW_FIELDS", "tiny_model"]

def sigma_spent(sigma:float) -> float:
    "The ε (PRV) a fake run with σ set by hand spent, whatever ε its batches were planned for: σ = 0.3 spent 22.1, σ = 0 (clip only) ∞."
    return 6.63 / sigma if sigma > 0 else math.inf

def _spent(c:dict) -> float|None:
    "The ε a fake run spent by PRV: its target when σ was calibrated to it, `sigma_spent` when σ was set by hand, None when non-private."
    if c["epsilon"] is None: return None
    return c["epsilon"] if c["sigma"] is None else sigma_spent(c["sigma"])

def _history(c:dict, steps:int, rng) -> list[dict]:
    "Logged steps: loss, batch size and cost, an untied run's head drift, and for a private run ε so far, clipping, norm quantiles, the norm split and the cross term's largest and smallest per-example share."
    private, tied, hist, spent = c["epsilon"] is not None, c["tying"] == "tied", [], _spent(c)
    drift0 = 1.41 if c["head_init"] == "random" else 0.0
    for s in range(1, steps + 1):
        row = dict(step=s, epoch=s / steps * c["epochs"], loss=0.7 - 0.1 * s / steps + 0.01 * rng.standard_normal(),
                   batch_size=int(rng.poisson(32)), step_time_s=0.1, peak_memory_mb=900.0)
        if not tied: row["head_drift"] = drift0 + 0.02 * s / steps
        if private:
            frac, e = math.sqrt(s / steps), 0.7 if tied else 0.55
            parts = dict(embed_in=0.05 * e, embed_out=0.6 * e, other=0.4)  # the keys of `GhostClipper.last_stats`
            if tied: parts["embed_cross"] = -0.02 + 0.01 * rng.standard_normal()
            row.update(eps_rdp=1.12 * spent * frac, eps_prv=spent * frac, clip_frac=0.9,
                       norm_q=dict(q10=1.1, q50=1.6, q90=2.4), norm2_parts=parts,
                       cross_share=dict(max=0.15 if c["task"] == "sst2" else 0.4, min=-0.05) if tied else dict(max=0.0, min=0.0))
        hist.append(row)
    return hist

def _data(c:dict) -> dict:
    "What `train` records about the data subsets it used."
    n_train, n_dev = c["train_cap"], c["dev_cap"]
    common = dict(task=c["task"], data_seed=c["data_seed"], max_len=c["max_len"], truncated=0, mean_tokens=30.0)
    return dict(train=dict(common, split="train", rows_in_file=67_349 if c["task"] == "sst2" else 9_999, rows_used=n_train,
                           cap=n_train, label_counts=[n_train // 2, n_train - n_train // 2]),
                dev=dict(common, split="dev", rows_in_file=872, rows_used=n_dev, cap=n_dev,
                         label_counts=[n_dev // 2 - 10, n_dev // 2 + 10]))

#: what `train` records since evaluations see below accuracy: a run made before has none of them
NEW_FIELDS = dict(final=("dev_bal_acc", "dev_auroc", "dev_pos_share", "dev_label_loss", "dev_correct"),
                  evals=("bal_acc", "auroc", "pos_share", "label_loss"), history=("cross_share", "head_drift"),
                  model_info=("head_drift_init",))

def _evals(c:dict, steps:int, acc:float, pos_share:float) -> list[dict]:
    "Evaluations at step 0, halfway and at the end: every metric moves linearly from chance to its final value."
    out = []
    for s in (0, steps // 2, steps):
        f = s / steps
        out.append(dict(step=s, acc=0.5 + (acc - 0.5) * f, bal_acc=0.5 + (acc - 0.5) * f, auroc=0.5 + 1.2 * (acc - 0.5) * f,
                        pos_share=0.5 + (pos_share - 0.5) * f, loss=0.69, label_loss=0.6931 - 0.1 * (acc - 0.5) * f, n=c["dev_cap"]))
    if pos_share in (0.0, 1.0): out[-1].update(bal_acc=0.5, auroc=0.5)  # a constant prediction
    return out

def _correct(c:dict, n_right:int, counts:list, one_class:int|None) -> dict:
    "Which dev examples a run got right, packed as `train` stores them: those of label `one_class`, or the first `n_right` of an order fixed by task and seed (two arms of one seed are paired, the better one right wherever the other is)."
    if one_class is not None: ok = np.arange(c["dev_cap"]) >= counts[0] if one_class == 1 else np.arange(c["dev_cap"]) < counts[0]
    else:
        order = np.random.default_rng(zlib.crc32(repr((c["task"], c["seed"])).encode())).permutation(c["dev_cap"])
        ok = np.zeros(c["dev_cap"], bool); ok[order[:n_right]] = True
    return dict(n=len(ok), bits=base64.b64encode(np.packbits(ok).tobytes()).decode("ascii"))

def fake_metrics(task:str="sst2", # task
                 tying:str="tied", # "tied" or "untied"
                 epsilon:float|None=3.0, # target ε (None: non-private)
                 seed:int=0, # training seed
                 acc:float=0.6, # final dev accuracy (a fraction)
                 regime:str="pretrained", # "pretrained" or "random"
                 steps:int=20, # logical steps
                 status:str="ok", # "ok", "running" or "failed"
                 one_class:int|None=None, # the label every dev prediction ends on (acc is then that label's share), or None
                 legacy:bool=False, # a run made before evaluations saw below accuracy: none of `NEW_FIELDS`
                 **cfg, # any other RunConfig field
                ) -> dict:
    "A metrics dict shaped like `dptie_nb.study.train.train`'s, with made-up but consistent numbers (dev accuracy rounded to whole dev examples)."
    run = RunConfig(**{**dict(task=task, regime=regime, tying=tying, epsilon=epsilon, seed=seed, train_cap=1000, dev_cap=200,
                              num_threads=1), **cfg})
    c, private = asdict(run), run.epsilon is not None
    rng = np.random.default_rng(zlib.crc32(repr((task, tying, epsilon, seed)).encode()))  # the same numbers in every process
    n_train, q = c["train_cap"], c["batch_size"] / c["train_cap"]
    noise = "secure" if c["secure_noise"] else "seeded"
    data = _data(c)
    counts = data["dev"]["label_counts"]
    n_right = counts[one_class] if one_class is not None else int(round(acc * c["dev_cap"]))
    acc, pos_share = n_right / c["dev_cap"], float(one_class) if one_class is not None else 0.5 + 0.1 * (acc - 0.5)
    m = dict(schema=1, run_id=run.run_id(), status=status, error=None, config=c,
             model_info=dict(model=c["model"], source=f"/assets/models/{c['model']}", pretrained=regime == "pretrained",
                             tying=tying, head_init=None if tying == "tied" else c["head_init"],
                             **({} if tying == "tied" else dict(head_drift_init=1.41 if c["head_init"] == "random" else 0.0)),
                             params=dict(total=16_100_000 if tying == "tied" else 28_966_000, trainable=16_100_000,
                                         input_embedding=12_865_792, head=12_865_792, tied=tying == "tied")),
             environment=dict(python="3.12.3", torch="2.13.0", transformers="5.24.0", opacus="1.6.0", dptie="0.1.0",
                              platform="Linux-x86_64", cpu_count=2, torch_threads=1, device=c["device"]),
             data=data,
             privacy=dict(private=private, delta=n_train ** -1.1, sample_rate=q if private else None, planned_steps=steps,
                          noise_multiplier=(c["sigma"] if c["sigma"] is not None else 0.6 + 2 / epsilon) if private else None,
                          expected_batch_size=q * n_train if private else None, accountant_for_calibration=c["accountant"],
                          noise=noise, sampling=noise if private else None, diagnostics=c["diagnostics"]),
             history=_history(c, steps, rng),
             evals=_evals(c, steps, acc, pos_share))
    if c["diagnostics"] == "off":  # release mode: the rows keep step and ε, the training subset its size
        m["history"] = [{k: v for k, v in r.items() if k in ("step", "epoch", "eps_rdp", "eps_prv", "head_drift")} for r in m["history"]]
        for k in ("label_counts", "mean_tokens", "truncated"): m["data"]["train"].pop(k)
    if status == "ok":
        m["privacy"].update(steps=steps, ledger={}, epsilon_rdp=1.12 * _spent(c) if private else None,
                            epsilon_prv=_spent(c) if private else None)
        ev = m["evals"][-1]
        m["final"] = dict(dev_acc=acc, dev_loss=0.69, **{f"dev_{k}": ev[k] for k in NEW_FIELDS["evals"]},
                          dev_correct=_correct(c, n_right, counts, one_class), steps=steps, train_time_s=3.0, mean_step_time_s=0.1,
                          median_step_time_s=0.1, peak_memory_mb=900.0)
    if status == "failed": m["error"] = "RuntimeError: boom"
    if legacy:
        for part, keys in NEW_FIELDS.items():
            for d in (m[part] if isinstance(m.get(part), list) else [m.get(part) or {}]):
                for k in keys: d.pop(k, None)
    return m

def fake_runs(runs_dir:str|Path, # folder to fill (runs go to runs_dir/<run-id>/metrics.json)
              tasks=("sst2", "qnli"), # tasks
              epsilons=(3.0, None), # target ε values (None: non-private)
              seeds=(0, 1, 2), # seeds
              gap:float=0.02, # untied − tied accuracy (a fraction) at every private setting
              debris:bool=True, # also write a corrupt metrics.json and a failed.json
              tag:str="", # the preset's name (run names start with it)
              sigmas=(), # σ set by hand: for each, also a tied and an untied run per task, private ε and seed with that σ
             ) -> list[dict]:
    "Write a small grid of fake runs (tied and untied) to `runs_dir`; return their metrics dicts."
    rng, runs = np.random.default_rng(0), []
    for task in tasks:
        for eps in epsilons:
            for seed in seeds:
                tied = 0.6 + 0.02 * seed + (0.05 if eps is None else 0) + 0.01 * rng.standard_normal()
                untied = tied + (gap if eps is not None else 0) + 0.005 * rng.standard_normal()
                for tying, acc in (("tied", tied), ("untied", untied)):
                    m = fake_metrics(task, tying, eps, seed, acc=float(acc), tag=tag)
                    runs.append(m); atomic_write_json(Path(runs_dir)/m["run_id"]/"metrics.json", m)
    for sigma in sigmas:  # after the grid, so that its numbers do not depend on these
        for task in tasks:
            for eps in [e for e in epsilons if e is not None]:
                for seed in seeds:
                    tied = 0.55 + 0.02 * seed + 0.01 * rng.standard_normal()
                    for tying, acc in (("tied", tied), ("untied", tied + gap + 0.005 * rng.standard_normal())):
                        m = fake_metrics(task, tying, eps, seed, acc=float(acc), tag=tag, sigma=sigma)
                        runs.append(m); atomic_write_json(Path(runs_dir)/m["run_id"]/"metrics.json", m)
    if debris:
        d = Path(runs_dir)/"qqp-dptie-mini-pretrained-tied-eps3-s9"; d.mkdir(parents=True, exist_ok=True)
        (d/"metrics.json").write_text('{"schema": 1, "status": "ok", "config": {"task": "qq')  # killed mid-write
        f = fake_metrics("qqp", "untied", 3.0, 9)
        atomic_write_json(Path(runs_dir)/f["run_id"]/"failed.json",
                          dict(run_id=f["run_id"], config=f["config"], error="PapermillExecutionError: CUDA out of memory", seconds=4.0))
    return runs

def fake_bench(path:str|Path) -> Path:
    "Write a small benchmark file shaped like `dptie_nb.study.bench.bench_grid`'s (a list of records), with one out-of-memory and one refused mode."
    recs = []
    for B in (8, 32):
        for mode, mem, t in (("nonprivate", 300, 0.1), ("dptie-tied", 420, 0.3), ("dptie-untied", 470, 0.25),
                             ("opacus-pe-tied", 300 + 160 * B, 0.2 * B), ("opacus-ghost-untied", 480, 0.3), ("opacus-ghost-tied", None, None)):
            st, msg = "ok", ""
            if mode == "opacus-pe-tied" and B == 32: st, msg = "failed", "out of memory: OutOfMemoryError: CUDA out of memory"
            if mode == "opacus-ghost-tied": st, msg = "refused", "NotImplementedError: tying is not supported"
            recs.append(dict(shape="dptie-mini", mode=mode, B=B, T=128, loss="class", device="cpu", device_name="x86_64",
                             peak_mem_mb=mem if st == "ok" else None, step_time_s=t if st == "ok" else None, status=st, message=msg,
                             step_times_s=[t * 0.9, t, t * 1.2] if st == "ok" else None))
    return atomic_write_json(path, recs)


def tiny_model(path:str|Path) -> Path:
    """A model folder for runs whose test checks what a run records, resumes, clips or accounts, not what it learns: GPT-2's
    vocabulary (the tokenizer's ids), one layer of width 32, GPT-2's dropout (10%), random weights (seed 0), tied.
    1.6M parameters against dptie-mini's 16M: a 3-step run costs about a twentieth (0.9 s against 23 s, side by side)."""
    import torch  # here, not at the top: the report's chapters import this file and need no torch or transformers
    from transformers import GPT2Config, GPT2LMHeadModel
    path = Path(path); path.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=2, n_positions=64, vocab_size=50257,
                               bos_token_id=50256, eos_token_id=50256)).save_pretrained(path)
    return path
