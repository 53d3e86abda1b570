"""Where a study run's memory goes, by phase, with glibc's heap bounded (what `train` does) and as glibc leaves it (issue 46 item 4).

Short runs of pilot-v4's shape (dptie-mini-reviews, SST-2 subsample N = 16,384, T = 64, bf16, the 20-step public warm-start,
DP-SGD at eps 3, micro-batches of 128), each in a fresh process: `--steps` steps at B = 512 and at B = 64, tied and untied. Each run
records `final.memory_mb` (peak RSS of setup, evaluation, the first step with its autograd check, and the other steps)
and `final.peak_memory_mb`. "glibc default" turns `train`'s `bound_heap` off in that process. `--micro-batches` sets
the micro-batch (128, the study's, by default): a step's transient memory grows with it, not with B. Writes
reports/bench/run_memory.json.

    python tools/run_memory.py [--steps 8] [--batch-sizes 512,64] [--tyings tied,untied] [--micro-batches 128] [--heaps bounded,default]
    python tools/run_memory.py --plot reports/bench/run_memory_micro.json   # the figure of a written JSON, beside it
"""
import argparse, json, platform, subprocess, sys, tempfile
from pathlib import Path

CHILD = """
import json, sys
import dptie_nb.study.train as T
from dptie_nb.study.config import RunConfig
if sys.argv[1] == "default": T.bound_heap = lambda: False
cfg = RunConfig(**json.loads(sys.argv[2]))
m = T.train(cfg, out=sys.argv[3], progress=False)
print(json.dumps(dict(memory_mb=m["final"]["memory_mb"], peak_memory_mb=m["final"]["peak_memory_mb"],
                      mmap_threshold=m["environment"].get("heap_mmap_threshold"), steps=m["final"]["steps"])))
"""

def pilot_shape(tying:str, B:int, steps:int, **over) -> dict:
    "A RunConfig's fields for `steps` steps of pilot-v4's shape at batch B (DP-SGD at eps 3, bf16, micro-batches of 128); `over` replaces any"
    return dict(dict(model="dptie-mini-reviews", task="sst2", regime="pretrained", tying=tying, epsilon=3.0, max_len=64,
                     train_cap=18384, holdout=2000, eval_split="holdout", label_words="bad,good", restrict_loss=False,
                     batch_size=B, epochs=steps * B / 16384, max_grad_norm=1.0, micro_batch_size=128, precision="bf16",
                     accountant="rdp", warm_start_steps=20, warm_start_lr=1e-4, eval_every=10_000, num_threads=1,
                     optimizer="sgd", momentum=0.9, lr=0.1, checkpoint_every=0), **over)

PHASES = ("setup", "evaluation", "first step", "steps")

def figure(rows:list, path:Path):
    "Peak RSS by phase, one group of bars per run (tying, B, micro-batch, heap), with the 2 GB line of issue 46"
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    fig, a = plt.subplots(figsize=(1.6 + 1.3 * len(rows), 3.6))
    w = 0.8 / len(PHASES)
    for k, ph in enumerate(PHASES):
        a.bar([i + (k - 1.5) * w for i in range(len(rows))], [r["memory_mb"].get(ph, 0) for r in rows], w, label=ph)
    a.axhline(2e9 / 2**20, color="k", ls="--", lw=0.8, label="2 GB")
    a.set_xticks(range(len(rows)), [f"{r['tying']}\nB = {r['B']}, micro {r.get('micro_batch', 128)}\n{r['heap']} heap" for r in rows], fontsize=8)
    a.set_ylabel("peak RSS of the phase (MiB)"); a.legend(fontsize=8, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.28))
    a.set_title("A study run's memory by phase (dptie-mini-reviews, T = 64, bf16, DP-SGD)", fontsize=9)
    fig.tight_layout(); fig.savefig(path, dpi=120); plt.close(fig)

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plot", default=None, help="draw the figure of this JSON (beside it, .png) and stop")
    ap.add_argument("--steps", type=int, default=8); ap.add_argument("--batch-sizes", default="512,64")
    ap.add_argument("--tyings", default="tied,untied"); ap.add_argument("--micro-batches", default="128")
    ap.add_argument("--heaps", default="bounded,default")
    ap.add_argument("--out", default="reports/bench/run_memory.json")
    a = ap.parse_args(argv)
    if a.plot:
        figure(json.loads(Path(a.plot).read_text())["rows"], Path(a.plot).with_suffix(".png")); return
    rows = []
    for tying, B, mb in [(t, b, m) for t in a.tyings.split(",") for b in map(int, a.batch_sizes.split(",")) for m in map(int, a.micro_batches.split(","))]:
        cfg = pilot_shape(tying, B, a.steps, eval_every=max(1, a.steps // 2), micro_batch_size=mb)
        for heap in a.heaps.split(","):
            with tempfile.TemporaryDirectory() as d:
                r = subprocess.run([sys.executable, "-c", CHILD, heap, json.dumps(cfg), d], capture_output=True, text=True)
            if r.returncode: sys.exit(f"{tying} B={B} micro {mb} {heap}: {r.stderr[-2000:]}")
            rec = json.loads(r.stdout.strip().splitlines()[-1])
            rows.append(dict(tying=tying, B=B, micro_batch=mb, heap=heap, **rec))
            print(f"{tying:6s} B={B:4d} micro {mb:4d} heap {heap:8s}: peak {rec['peak_memory_mb']:.0f} MB; " +
                  ", ".join(f"{k} {v:.0f}" for k, v in rec["memory_mb"].items()), flush=True)
    out = dict(what=__doc__.splitlines()[0], steps=a.steps, rows=rows, machine=dict(platform=platform.platform(), python=sys.version.split()[0]),
               note="RSS in MiB (/proc VmHWM per phase); runs beside other work on a 2-core machine (memory does not depend on it)")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text(json.dumps(out, indent=1) + "\n")
    figure(rows, Path(a.out).with_suffix(".png"))
    print(f"wrote {a.out} and its figure")

if __name__ == "__main__": main()
