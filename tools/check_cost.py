"""What the later locality check costs per DP step (issue 45), measured side by side in one process.

The README's private loop (`make_private(..., loss_fn=...)`, `priv.step()`) on `dptie-mini-reviews`, tied and untied, T = 64,
the study's loss (the label word's cross-entropy over the full vocabulary, last position), SGD; at each batch size each
step runs with `check_rate=1` (one random micro-batch of every step checked), one thread, and the check is timed inside
the step (its share of the step without it, median over steps; both from the same step, so the other work on the
machine slows both alike). The default rate is the highest whose
expected cost stays at or under 10% of the unchecked step at the study's shape. Writes reports/bench/check_cost.json.

`--dropout 0` sets every dropout module's p to 0: nothing in the forward is random, so the micro-batch's own losses stand
for the check's recompute of the whole micro-batch (chapter 08d_locality) and a check recomputes its single examples only.

    python tools/check_cost.py [--steps 6] [--out reports/bench/check_cost.json] [--dropout 0 --shapes 64:64 --out reports/bench/check_cost_nodropout.json]
"""
import argparse, json, platform, statistics, sys, time, warnings
from pathlib import Path
import torch

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=6); ap.add_argument("--out", default="reports/bench/check_cost.json")
    ap.add_argument("--shapes", default="64:64,512:128", help="B:micro-batch pairs")
    ap.add_argument("--dropout", type=float, default=None, help="every dropout module's p (default: the model's own, 0.1)")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    from dptie_nb.study.model import build_model
    from dptie_nb.private import make_private
    from dptie_nb.study.bench.bench_grid import per_example_loss, random_batch
    rows = []
    for tying in ("tied", "untied"):
        model = build_model("dptie-mini-reviews", tying=tying).train()
        for mod in model.modules():
            if a.dropout is not None and isinstance(mod, torch.nn.modules.dropout._DropoutNd): mod.p = a.dropout
        V = model.config.vocab_size
        for shape in a.shapes.split(","):
            B, mb = map(int, shape.split(":"))
            N = 16384
            data = [i for i in range(N)]
            g = torch.Generator().manual_seed(0)
            bank = random_batch(V, N, 64, g)
            def collate(ids):
                ix = torch.tensor(ids)
                return {k: (v[ix] if k != "label_token_ids" else v) for k, v in bank.items()}
            loss = lambda m, b: per_example_loss(m, b, "class")
            steps, checks = [], []
            for k in range(a.steps):
                opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.0)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    priv = make_private(model, opt, data, B, 1, 3.0, seed=k, loss_fn=loss, collate_fn=collate,
                                        micro_batch_size=mb, check_rate=1.0)
                inner, spent = priv.optimizer._check_locality, []
                def timed(losses, rc, first, inner=inner, spent=spent):
                    t = time.perf_counter(); inner(losses, rc, first); spent.append(time.perf_counter() - t)
                priv.optimizer._check_locality = timed
                priv.step()                                       # the first step: its first-micro-batch check, not timed
                spent.clear(); t = time.perf_counter(); priv.step(); total = time.perf_counter() - t
                priv.optimizer.detach()
                checks.append(sum(spent)); steps.append(total - sum(spent))
                print(f"{tying} B={B}: step {steps[-1]:.2f} s without its check, check {checks[-1]:.3f} s", flush=True)
            base, cost = statistics.median(steps), statistics.median(checks)
            share = statistics.median([c / s for c, s in zip(checks, steps)])
            rows.append(dict(tying=tying, B=B, micro_batch=mb, T=64, own_forward=priv.optimizer._own_forward(), step_s=base, check_s=cost, check_share=share,
                             highest_rate_at_10pct=min(1.0, 0.10 / max(share, 1e-9)), steps_s=steps, checks_s=checks))
    rec = dict(what=__doc__.splitlines()[0], model="dptie-mini-reviews", dropout="the model's own (0.1)" if a.dropout is None else a.dropout, steps=a.steps, threads=1,
               machine=dict(platform=platform.platform(), python=sys.version.split()[0], torch=torch.__version__), rows=rows,
               note="measured beside other work on a 2-core machine: ratios within one run, alternated, are what to quote")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text(json.dumps(rec, indent=1) + "\n")
    for r in rows:
        print(f"{r['tying']:7s} B={r['B']:4d} mb={r['micro_batch']:3d}: step {r['step_s']:.2f} s, check {r['check_s']:.3f} s "
              f"({100 * r['check_share']:.1f}% of the step); highest rate at <= 10%: {r['highest_rate_at_10pct']:.2f}")
    print(f"wrote {a.out}")

if __name__ == "__main__": main()
