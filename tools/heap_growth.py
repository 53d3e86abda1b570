"""How a study run's memory grows from step to step, by precision (issue 46 item 4): RSS and glibc's heap after every fifth step.

A run of pilot-v4's shape (dptie-mini-reviews, SST-2 subsample, T = 64, the 20-step warm-start, DP-Adam at eps 3,
micro-batches of 128, B = 128 so that steps are short), each precision in a fresh process, `train`'s bounded heap on.
After every fifth logical batch it records RSS, glibc's `mallinfo2` (heap in use, free, mmapped) and the bytes of
every tensor Python can reach. Cases: each precision as `train` runs it (oneDNN's and ideep's kernel caches capped by
`bound_kernel_caches`), then bf16 with both caches at `--caches` entries (torch's default, 1,024): the growth the cap
removes. Writes reports/bench/heap_growth.json.

    python tools/heap_growth.py [--steps 40] [--batch-size 128] [--precisions bf16,float32] [--caches 1024]
"""
import argparse, json, os, platform, subprocess, sys, tempfile
from pathlib import Path
from run_memory import pilot_shape
from dptie_nb.study.provenance import KERNEL_CACHES

CHILD = r"""
import ctypes, gc, json, sys
import torch
import dptie_nb.study.train as T
from dptie_nb.study.config import RunConfig
class MI2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
libc = ctypes.CDLL("libc.so.6"); libc.mallinfo2.restype = MI2
def rss():
    with open("/proc/self/statm") as f: return int(f.read().split()[1]) * 4096 / 2**20
def tensor_mib():
    seen = {}
    for o in gc.get_objects():
        try:
            if isinstance(o, torch.Tensor): s = o.untyped_storage(); seen[s.data_ptr()] = s.nbytes()
        except Exception: pass
    return sum(seen.values()) / 2**20
rows, one, n = [], T._one_step, [0]
def counted(*a, **k):
    r = one(*a, **k); n[0] += 1
    if n[0] % 5 == 0:
        m = libc.mallinfo2()
        rows.append(dict(step=n[0], rss=rss(), heap_in_use=m.uordblks / 2**20, heap_free=m.fordblks / 2**20, mmapped=m.hblkhd / 2**20, tensors=tensor_mib()))
    return r
T._one_step = counted
cfg = RunConfig(**json.loads(sys.argv[1]))
m = T.train(cfg, out=sys.argv[2], progress=False)
print(json.dumps(dict(rows=rows, peak_memory_mb=m["final"]["peak_memory_mb"], median_step_time_s=m["final"]["median_step_time_s"],
                      kernel_caches=m["environment"].get("kernel_caches"))))
"""

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40); ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--precisions", default="bf16,float32"); ap.add_argument("--caches", type=int, default=1024)
    ap.add_argument("--out", default="reports/bench/heap_growth.json")
    a = ap.parse_args(argv)
    cases = [(p, None) for p in a.precisions.split(",")] + [("bf16", a.caches)]
    out = []
    for prec, cache in cases:
        cfg = pilot_shape("tied", a.batch_size, a.steps, precision=prec, optimizer="adam", momentum=0.0, lr=4e-3)
        env = {k: v for k, v in os.environ.items() if k not in KERNEL_CACHES}   # None: train's cap
        if cache is not None: env.update({k: str(cache) for k in KERNEL_CACHES})
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(cfg), d], capture_output=True, text=True, env=env)
        if r.returncode: sys.exit(f"{prec}: {r.stderr[-2000:]}")
        rec = json.loads(r.stdout.strip().splitlines()[-1]); rs = rec["rows"]
        per = (rs[-1]["rss"] - rs[0]["rss"]) / (rs[-1]["step"] - rs[0]["step"]) if len(rs) > 1 else float("nan")
        out.append(dict(precision=prec, caches=cache, rss_mib_per_step=per, **rec))
        print(f"{prec:8s} kernel caches {cache if cache is not None else 'capped':>6}: RSS {rs[0]['rss']:.0f} -> {rs[-1]['rss']:.0f} MiB "
              f"from step {rs[0]['step']} to {rs[-1]['step']} ({per:+.1f} MiB a step); reachable tensors {rs[0]['tensors']:.0f} -> {rs[-1]['tensors']:.0f} MiB; median step {rec['median_step_time_s']:.2f} s", flush=True)
    res = dict(what=__doc__.splitlines()[0], steps=a.steps, batch_size=a.batch_size, cases=out,
               machine=dict(platform=platform.platform(), python=sys.version.split()[0]), note="MiB; runs beside other work (memory does not depend on it)")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {a.out}")

if __name__ == "__main__": main()
