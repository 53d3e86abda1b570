"""How fast a DP step's Gaussian noise can be drawn, and its update applied, on one core (issue 46 items 2 and 3), beside a memory copy.

Each candidate fills a float32 buffer of `--n` values (default 29M: dptie-mini-reviews untied) with N(0, 1), one thread;
the median of `--repeat` fills, alternated. Also the package's own path, `DPOptimizer._add_noise` (keyed streams of
NOISE_CHUNK values, float32, noise added in place), on that many values; and one step of torch's Adam over that many
parameters (one tensor, with a gradient) in its three implementations: the default for-loop, `foreach=True` and
`fused=True`. Writes reports/bench/noise_rate.json.

    python tools/noise_rate.py [--n 29000000] [--repeat 5]
"""
import argparse, json, platform, statistics, sys, time
from pathlib import Path
import numpy as np, torch

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=29_000_000); ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default="reports/bench/noise_rate.json")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    x, y = torch.empty(a.n), torch.zeros(a.n)
    g = torch.Generator().manual_seed(1)
    from dptie_nb.dpoptim import DPOptimizer
    lin = torch.nn.Linear(1, 1)
    opt = DPOptimizer(torch.optim.SGD(lin.parameters(), lr=0.), lin, 1.0, 1.0, expected_batch_size=1., noise_key=1)
    cands = {"torch.randn (MT19937, vectorised Box-Muller)": lambda: torch.randn(a.n, generator=g, out=x),
             "numpy PCG64 standard_normal float32 (ziggurat)": (lambda G: lambda: G.standard_normal(dtype=np.float32, out=x.numpy()))(np.random.Generator(np.random.PCG64(1))),
             "numpy SFC64 standard_normal float32 (ziggurat)": (lambda G: lambda: G.standard_normal(dtype=np.float32, out=x.numpy()))(np.random.Generator(np.random.SFC64(1))),
             "numpy Philox standard_normal float32 (ziggurat)": (lambda G: lambda: G.standard_normal(dtype=np.float32, out=x.numpy()))(np.random.Generator(np.random.Philox(1))),
             "dptie DPOptimizer._add_noise (keyed torch streams, added in place)": lambda: opt._add_noise([y], ["w"]),
             "memory copy of the same size": lambda: y.copy_(x)}
    for impl in ("for-loop", "foreach", "fused"):     # the update over every parameter: the optimizer's own pass
        w = torch.nn.Parameter(torch.zeros(a.n)); w.grad = torch.randn(a.n, generator=g)
        kw = {"for-loop": dict(foreach=False), "foreach": dict(foreach=True), "fused": dict(fused=True)}[impl]
        cands[f"torch.optim.Adam step ({impl})"] = (lambda o: o.step)(torch.optim.Adam([w], lr=1e-3, **kw))
    ts = {k: [] for k in cands}
    for _ in range(a.repeat):
        for k, f in cands.items():
            t = time.perf_counter(); f(); ts[k].append(time.perf_counter() - t)
    opt.detach()
    rows = [dict(method=k, seconds=statistics.median(v), floats_per_s=a.n / statistics.median(v), all_s=v) for k, v in ts.items()]
    copy = next(r for r in rows if r["method"].startswith("memory"))["seconds"]
    for r in rows: r["x_copy"] = r["seconds"] / copy
    rec = dict(what=__doc__.splitlines()[0], n=a.n, threads=1, repeat=a.repeat, rows=rows,
               machine=dict(platform=platform.platform(), python=sys.version.split()[0], torch=torch.__version__, numpy=np.__version__),
               note="one thread, beside other work on a 2-core machine: compare rows of this run, not runs")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text(json.dumps(rec, indent=1) + "\n")
    for r in rows: print(f"{r['method']:68s} {r['seconds']:.3f} s  {r['floats_per_s'] / 1e6:7.1f} M floats/s  {r['x_copy']:5.1f}x a copy")
    print(f"wrote {a.out}")

if __name__ == "__main__": main()
