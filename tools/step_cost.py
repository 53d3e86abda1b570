"""A DP step's cost broken down by component at the study's shapes, beside a non-private step on the same batch (issue 46).

The README's private loop (`make_private(model, Adam, data, ..., loss_fn=...)`, then `priv.step()`) on `dptie-mini-reviews`,
tied and untied, T = 64, the study's loss (the label word's cross-entropy over the full vocabulary at the last position),
torch's default Adam as the user's optimizer, one thread. Each private step is followed, in the same process, by a
non-private step (forward, `loss.mean().backward()`, the same kind of Adam step) on the very batch the Poisson sampler
drew, so the two see the same number of examples and the same load from the rest of the machine.

Components of the private step, in seconds per step: the forward; backward to the layers' outputs (autograd, with the
engine's own checks); per-example norms (the rules' factors and the Gram/ghost norms); the clipped sums; the noise; the
optimizer update; the locality re-check at the default rate (every step is checked here and its time scaled by the rate
`check_rate_for(micro-batches)`, and, since a check draws one of the step's micro-batches at random, a small last one as
often as a full one, its recompute of the whole micro-batch scaled to the mean micro-batch's size, its recomputes of
single examples as they are: the check's expected cost); the rest of the step. The ratio is the median over steps of
(private step without its check + rate x expected check) / non-private step. Writes reports/bench/step_cost.json and step_cost.png.

`--dropout P` sets every dropout module's p (the model's own is 0.1): at 0 nothing in the forward is random, so the
micro-batch's own losses stand for the check's recompute of the whole micro-batch (chapter 08d_locality) and the default
rate is the one `check_rate_for` gives at `CHECK_COST_ALONE`.

    python tools/step_cost.py [--batch-sizes 24,64,256] [--steps 4] [--micro-batch 256] [--dropout 0.0 --out reports/bench/step_cost_nodropout.json]
"""
import argparse, json, platform, statistics, sys, time, warnings
from pathlib import Path
import torch

PRIVATE = ("forward", "backward to outputs", "per-example norms", "clipped sums", "noise", "optimizer", "re-check (at its rate)", "rest")
NONPRIVATE = ("forward", "backward", "optimizer", "rest")

def _rows(batch) -> int:
    "Examples in a collated batch (a dict of tensors, batch first)"
    return next(iter(batch.values())).shape[0] if isinstance(batch, dict) else len(batch)

class Clock:
    "Seconds spent in wrapped callables, by name; calls inside the re-check count as the re-check"
    def __init__(self): self.d, self.in_check = {}, False
    def wrap(self, name, f):
        def g(*a, **k):
            if self.in_check and name == "forward":   # the check's recomputes: the whole micro-batch's, and each single example's
                t = time.perf_counter()
                try: return f(*a, **k)
                finally:
                    part = "check solos" if len(a) > 1 and _rows(a[1]) == 1 else "check full"
                    self.d[part] = self.d.get(part, 0.0) + time.perf_counter() - t
            if self.in_check and name != "check": return f(*a, **k)
            t = time.perf_counter()
            try: return f(*a, **k)
            finally: self.d[name] = self.d.get(name, 0.0) + time.perf_counter() - t
        return g

def private_step(priv, clock):
    "One timed `priv.step()`: {component: seconds}, its total, and the indices of its batch"
    clock.d = {}
    t = time.perf_counter(); priv.step(); total = time.perf_counter() - t
    d = clock.d
    bwd = d.get("clipper backward", 0.0)
    inner = d.get("rules", 0.0) + d.get("norms", 0.0) + d.get("clipped sums", 0.0)
    out = {"forward": d.get("forward", 0.0), "backward to outputs": bwd - inner,
           "per-example norms": d.get("rules", 0.0) + d.get("norms", 0.0), "clipped sums": d.get("clipped sums", 0.0),
           "noise": d.get("noise", 0.0), "optimizer": d.get("optimizer", 0.0), "check": d.get("check", 0.0)}
    out["rest"] = total - sum(out.values())
    return out, total, priv.sampler.last_batch, d.get("checked_n"), d.get("check solos", 0.0)

def nonprivate_step(model, opt, loss, batch):
    "One non-private step on `batch`: {component: seconds} and its total"
    t0 = time.perf_counter(); l = loss(model, batch).mean(); t1 = time.perf_counter(); l.backward(); t2 = time.perf_counter()
    opt.step(); t3 = time.perf_counter(); opt.zero_grad(set_to_none=True); t4 = time.perf_counter()
    return {"forward": t1 - t0, "backward": t2 - t1, "optimizer": t3 - t2, "rest": t4 - t3}, t4 - t0

def measure(tying, B, steps, micro, T=64, N=65536, dropout=None):
    "Alternated private and non-private steps of one (tying, B): medians per component and the paired ratio"
    from dptie_nb.study.model import build_model
    from dptie_nb.private import make_private
    from dptie_nb.dpoptim import CHECK_COST, CHECK_COST_ALONE, check_rate_for
    from dptie_nb.study.bench.bench_grid import per_example_loss, random_batch
    import dptie_nb.ghost as ghost
    import copy
    model = build_model("dptie-mini-reviews", tying=tying).train()
    if dropout is not None:
        for mod in model.modules():
            if isinstance(mod, torch.nn.modules.dropout._DropoutNd): mod.p = dropout
    plain = copy.deepcopy(model)          # the non-private step's own copy: no clipper hooks on it
    params = [p for p in model.parameters() if p.requires_grad]
    bank = random_batch(model.config.vocab_size, 1024, T, torch.Generator().manual_seed(0))
    def collate(ids):
        ix = torch.tensor(ids, dtype=torch.long) % 1024
        return {k: (v[ix] if k != "label_token_ids" else v) for k, v in bank.items()}
    clock = Clock()
    loss = lambda m, b: per_example_loss(m, b, "class")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        priv = make_private(model, torch.optim.Adam(params, lr=1e-6), list(range(N)), B, 100, 3.0, seed=0,
                            loss_fn=clock.wrap("forward", loss), collate_fn=collate, micro_batch_size=micro, check_rate=1.0)
    o, cl = priv.optimizer, priv.optimizer.clipper
    check = o._check_locality
    def checked(*a, **k):
        clock.in_check = True
        clock.d["checked_n"] = len(a[0])                      # the micro-batch this step's check drew
        try: return clock.wrap("check", check)(*a, **k)
        finally: clock.in_check = False
    o._check_locality = checked
    o._add_noise = clock.wrap("noise", o._add_noise)
    o.optimizer.step = clock.wrap("optimizer", o.optimizer.step)
    cl.backward = clock.wrap("clipper backward", cl.backward)
    cl._uses = clock.wrap("rules", cl._uses); cl._norms = clock.wrap("norms", cl._norms)
    sums = ghost._clipped_sums; ghost._clipped_sums = clock.wrap("clipped sums", sums)
    opt = torch.optim.Adam([p for p in plain.parameters() if p.requires_grad], lr=1e-6)
    try:
        priv.step()                                            # the first step and its first-step check: not timed
        nonprivate_step(plain, opt, loss, collate(list(range(B))))
        P, NP, ratios, sizes = [], [], [], []
        for k in range(steps):
            comp, tot, idx, checked_n, solos = private_step(priv, clock)
            micro_batches = max(1, -(-len(idx) // (micro or max(len(idx), 1))))
            rate = check_rate_for(micro_batches, CHECK_COST_ALONE if o._own_forward() else CHECK_COST)   # "auto", as the forward makes it
            chk = comp.pop("check")
            # a check draws one of the step's micro-batches at random, a small last one as often as a full one: its expected
            # cost is its single-example recomputes plus the rest of it scaled to the mean micro-batch (proportional to its examples)
            exp_chk = solos + (chk - solos) * (len(idx) / micro_batches) / checked_n if checked_n else chk
            comp["re-check (at its rate)"] = rate * exp_chk
            ptot = tot - chk + rate * exp_chk
            ncomp, ntot = nonprivate_step(plain, opt, loss, collate(idx.tolist()))
            P.append(comp); NP.append(ncomp); ratios.append(ptot / ntot); sizes.append(len(idx))
            print(f"{tying:6s} B={B:4d} (drew {len(idx)}): private {ptot:.2f} s (check {chk:.2f} s of {checked_n} examples, "
                  f"expected {exp_chk:.2f} s, at rate {rate:.2f}), "
                  f"non-private {ntot:.2f} s, ratio {ratios[-1]:.2f}", flush=True)
    finally:
        ghost._clipped_sums = sums; o.detach()
    med = lambda rows, keys: {k: statistics.median(r[k] for r in rows) for k in keys}
    return dict(tying=tying, B=B, T=T, micro_batch=micro, steps=steps, drawn=sizes, private_s=med(P, PRIVATE),
                nonprivate_s=med(NP, NONPRIVATE), ratio=statistics.median(ratios), ratios=ratios,
                private_total_s=statistics.median(sum(r.values()) for r in P),
                nonprivate_total_s=statistics.median(sum(r.values()) for r in NP))

def figure(rows, path, note:str=""):
    "Stacked bars per B: each tying's private and non-private step by component"
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    Bs = sorted({r["B"] for r in rows})
    fig, axes = plt.subplots(1, len(Bs), figsize=(4.2 * len(Bs), 4.2), squeeze=False)
    colours = dict(zip(dict.fromkeys(PRIVATE + NONPRIVATE), plt.cm.tab10.colors))
    for ax, B in zip(axes[0], Bs):
        bars = [(f"{r['tying']}\n{kind}", r[f"{kind}_s"]) for r in rows if r["B"] == B for kind in ("nonprivate", "private")]
        for x, (lab, comp) in enumerate(bars):
            bottom = 0.0
            for k, v in comp.items():
                ax.bar(x, max(v, 0.0), bottom=bottom, color=colours[k], label=k if (ax is axes[0][0] and x in (0, 1)) else None)
                bottom += max(v, 0.0)
        ax.set_xticks(range(len(bars)), [l for l, _ in bars], fontsize=8)
        rs = ", ".join(f"{r['tying']} {r['ratio']:.2f}x" for r in rows if r["B"] == B)
        ax.set_title(f"B = {B}: private / non-private {rs}", fontsize=9); ax.set_ylabel("seconds per step (one thread)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    fig.legend(seen.values(), seen.keys(), loc="lower center", ncol=5, fontsize=8)
    fig.suptitle(f"dptie-mini-reviews{note}, T = 64: the README's private step (make_private, Adam) against a non-private Adam step", fontsize=10)
    fig.tight_layout(rect=(0, 0.1, 1, 0.95)); fig.savefig(path, dpi=110); plt.close(fig)

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch-sizes", default="24,64,256"); ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--micro-batch", type=int, default=256, help="make_private's micro_batch_size (B above it: several)")
    ap.add_argument("--tyings", default="tied,untied"); ap.add_argument("--out", default="reports/bench/step_cost.json")
    ap.add_argument("--dropout", type=float, default=None, help="every dropout module's p (default: the model's own, 0.1)")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    rows = [measure(t, int(B), a.steps, a.micro_batch, dropout=a.dropout) for B in a.batch_sizes.split(",") for t in a.tyings.split(",")]
    rec = dict(what=__doc__.splitlines()[0], model="dptie-mini-reviews", dropout="the model's own (0.1)" if a.dropout is None else a.dropout, threads=1, optimizer="torch.optim.Adam (defaults)",
               machine=dict(platform=platform.platform(), python=sys.version.split()[0], torch=torch.__version__), rows=rows,
               note="measured on a 2-core machine beside other work; each ratio pairs a private and a non-private step "
                    "taken one after the other on the same batch")
    out = Path(a.out); out.parent.mkdir(parents=True, exist_ok=True); out.write_text(json.dumps(rec, indent=1) + "\n")
    figure(rows, out.with_suffix(".png"), "" if a.dropout is None else f" with dropout {a.dropout:g}")
    for r in rows:
        parts = ", ".join(f"{k} {v:.3f}" for k, v in r["private_s"].items())
        print(f"{r['tying']:6s} B={r['B']:4d}: ratio {r['ratio']:.2f} (private {r['private_total_s']:.2f} s, non-private "
              f"{r['nonprivate_total_s']:.2f} s); private: {parts}")
    print(f"wrote {out} and {out.with_suffix('.png')}")

if __name__ == "__main__": main()
