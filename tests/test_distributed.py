"""Data-parallel DP training on two CPU processes (gloo).

1. With the noise off, two ranks give the update of one process on the same examples (float64, relative error
   <= 1e-8): `DPOptimizer` + `GhostClipper` on a tiny tied GPT-2, and the trainer's `_one_step` (DP tied and untied,
   and non-private), whose logged row covers both ranks' examples.
2. With the noise on, the update of an empty batch is pure noise with standard deviation σC/(qN): added once, not
   once per rank (√2 times larger with independent draws, 2 times with identically seeded ones).
3. `dptie train` under the real `torchrun` launcher on two processes writes one metrics.json whose ε is the
   accountant's for the global sample rate (on the session's tiny model, `tiny_model` in conftest.py).

Tests 1 and 2 share one `torch.multiprocessing.spawn` of two ranks (file:// rendezvous); test 3 starts torchrun.
"""
import json, math, os, sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

W = 2
C = 2.8              # clipping norm: some examples of the toy batch are clipped, some are not (norms 2.1 to 3.5)
SIGMA, C_NOISE, E_NOISE = 1.5, 0.8, 4.0

def _lm(vocab):
    from transformers import GPT2Config
    return GPT2Config(n_layer=2, n_embd=16, n_head=2, vocab_size=vocab, n_positions=64, resid_pdrop=0, embd_pdrop=0,
                      attn_pdrop=0, bos_token_id=0, eos_token_id=0)

def _gpt2():
    from transformers import GPT2LMHeadModel
    torch.manual_seed(0)
    return GPT2LMHeadModel(_lm(97)).double().train()

def _seq_loss(m, x):
    lg = m(input_ids=x).logits[:, :-1]
    return F.cross_entropy(lg.transpose(1, 2), x[:, 1:], reduction="none").mean(1)

IDS = torch.randint(0, 97, (12, 10), generator=torch.Generator().manual_seed(1))
ORDER = np.random.default_rng(0).permutation(12)

def _toy():
    from dptie_nb.study.data import EncodedTask, TASKS
    rng = np.random.default_rng(0)
    return EncodedTask(TASKS["sst2"], [list(rng.integers(0, 90, rng.integers(3, 12))) for _ in range(10)],
                       rng.integers(0, 2, 10), torch.tensor([3, 4]))
TOY_IDX = np.random.default_rng(1).permutation(10)

def _delta(m, before): return {k: (before[k] - v).detach() for k, v in m.state_dict().items()}

def dp_update(idx, micro):
    "One σ=0 SGD(lr=1) DPOptimizer step of the tiny tied GPT-2 on examples `idx`: per-parameter deltas, norms, examples"
    from dptie_nb.dpoptim import DPOptimizer
    m = _gpt2()
    before = {k: v.clone() for k, v in m.state_dict().items()}
    opt = DPOptimizer(torch.optim.SGD(m.parameters(), lr=1.), m, 0., C, expected_batch_size=10.)
    norms = [opt.backward(_seq_loss(m, IDS[idx[s:s + micro]]), recompute=lambda pos, part=idx[s:s + micro]: _seq_loss(m, IDS[part[pos]]))
             for s in range(0, len(idx), micro)]
    opt.step(); opt.detach()
    return dict(delta=_delta(m, before), norms=torch.cat(norms), examples=opt.last_batch_examples, distributed=opt.distributed)

def trainer_step(tying, private):
    "One trainer step (`_one_step`) of a tiny classifier on the toy task: deltas and the logged row"
    from dptie_nb.study.model import build_model
    from dptie_nb.study.config import RunConfig
    from dptie_nb.study.engine import fixed_plan, make_engine
    from dptie_nb.study.train import _one_step
    m = build_model(_lm(50257), tying, seed=0).train().double()
    before = {k: v.clone() for k, v in m.state_dict().items()}
    opt = torch.optim.SGD(m.parameters(), lr=1.0)
    cfg = RunConfig(epsilon=3 if private else None, max_grad_norm=8.0, micro_batch_size=2)  # the toy's norms are 7 to 9
    # the toy's 10 examples sampled at q = 1 (a seeded draw, the same on every rank): every draw is TOY_IDX's examples
    engine = make_engine(cfg.engine, m, opt, fixed_plan(len(TOY_IDX), 0.0) if private else None, cfg.max_grad_norm)
    idx = engine.sampler.batch(0) if private else TOY_IDX
    assert sorted(idx) == sorted(TOY_IDX)
    row = _one_step(m, engine, cfg, _toy(), idx)
    return dict(delta=_delta(m, before), row=row)

def noise_update():
    "An empty batch on a 100k-entry weight, σ>0, every rank's generator seeded alike: the update and the generators"
    from dptie_nb.dpoptim import DPOptimizer
    torch.manual_seed(0)
    lin = nn.Linear(500, 200, bias=False)
    gen = torch.Generator().manual_seed(0)
    opt = DPOptimizer(torch.optim.SGD(lin.parameters(), lr=1.), lin, SIGMA, C_NOISE, expected_batch_size=E_NOISE, generator=gen)
    built = gen.get_state().clone()           # the noise key is drawn when the optimizer is built, on every rank alike
    w0 = lin.weight.detach().clone(); opt.step(); opt.detach()
    return dict(z=(w0 - lin.weight.detach()).flatten().double(), noise_std=opt.noise_std,
                gen_untouched=torch.equal(gen.get_state(), built))

def library_loop(secure=False, share=True, own_seed=False):
    "make_private on every rank, chapter 09_distributed's loop: draw the global batch, backpropagate this rank's share, step"
    import warnings
    from dptie_nb.private import make_private
    from dptie_nb.distributed import shard, world
    rank, ws = world()
    m = _gpt2()
    kw = dict(secure=True) if secure else dict(seed=rank if own_seed else 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the seeded runs' research-only warning
        priv = make_private(m, torch.optim.SGD(m.parameters(), lr=0.1), IDS, batch_size=6, epochs=2, target_epsilon=3.0,
                            max_grad_norm=C, **kw)
    batches, err = [], None
    try:
        for idx in priv.batches():
            batches.append(idx.tolist())
            mine = shard(idx, rank, ws) if share else idx
            if len(mine): priv.optimizer.backward(_seq_loss(m, IDS[mine]), recompute=lambda pos, mine=mine: _seq_loss(m, IDS[mine[pos]]))
            priv.optimizer.step()
    except RuntimeError as e: err = str(e)
    finally: priv.optimizer.detach()
    return dict(batches=batches, err=err, steps=priv.ledger.steps, planned=priv.steps)

def _worker(rank, d):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{d}/rendezvous", rank=rank, world_size=W)
    try:
        from dptie_nb.distributed import shard
        out = dict(dp=dp_update(shard(ORDER, rank, W), micro=2), noise=noise_update(),
                   steps={f"{t}-{'dp' if p else 'nonpriv'}": trainer_step(t, p) for t, p in (("tied", 1), ("untied", 1), ("tied", 0))},
                   lib={k: library_loop(**kw) for k, kw in dict(secure=dict(secure=True), seeded=dict(),
                                                                 own_seed=dict(own_seed=True), no_shard=dict(share=False)).items()})
    finally: dist.destroy_process_group()
    torch.save(out, f"{d}/rank{rank}.pt")

@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    d = tmp_path_factory.mktemp("ranks")
    mp.spawn(_worker, args=(str(d),), nprocs=W, join=True)
    return [torch.load(d/f"rank{r}.pt", weights_only=False) for r in range(W)]

REL = 1e-9  # relative tolerance for a float computed in another process

def _near(a, b, rel=REL): return math.isclose(a, b, rel_tol=rel, abs_tol=0.0)

def _same_row(a, b):
    "Two logged rows agree: the same keys, integers and strings equal, floats up to REL"
    if isinstance(b, dict):
        assert a.keys() == b.keys()
        for k in b: _same_row(a[k], b[k])
    elif isinstance(b, float): assert _near(a, b), (a, b)
    else: assert a == b, (a, b)

def _close(got:dict, want:dict, rtol=1e-8):
    assert got.keys() == want.keys()
    for k in want:
        scale = want[k].abs().max()
        err = (got[k] - want[k]).abs().max()
        assert err <= rtol * scale + 1e-300, f"{k}: max error {err:.3g} against max |update| {scale:.3g}"

def test_dp_update_matches_one_process(two_ranks):
    ref = dp_update(ORDER, micro=4)
    assert not ref["distributed"] and all(r["dp"]["distributed"] for r in two_ranks)
    assert 0 < int((ref["norms"] > C).sum()) < len(ORDER), "the check wants both clipped and unclipped examples"
    for r in two_ranks:
        _close(r["dp"]["delta"], ref["delta"])
        assert r["dp"]["examples"] == len(ORDER)  # the realised batch counts both ranks' examples
    torch.testing.assert_close(torch.sort(torch.cat([r["dp"]["norms"] for r in two_ranks])).values, torch.sort(ref["norms"]).values,
                               rtol=1e-10, atol=0)

def test_trainer_step_matches_one_process(two_ranks):
    for key, r0 in two_ranks[0]["steps"].items():
        tying, kind = key.split("-")
        ref = trainer_step(tying, kind == "dp")
        for r in two_ranks: _close(r["steps"][key]["delta"], ref["delta"])
        row, want = r0["row"], ref["row"]
        assert row["batch_size"] == want["batch_size"] == len(TOY_IDX)
        assert math.isclose(row["loss"], want["loss"], rel_tol=1e-10), key
        if kind == "dp":
            assert _near(row["clip_frac"], want["clip_frac"]) and 0 < want["clip_frac"] < 1
            for q in want["norm_q"]: assert math.isclose(row["norm_q"][q], want["norm_q"][q], rel_tol=1e-10)
            for k in want["norm2_parts"]: assert math.isclose(row["norm2_parts"][k], want["norm2_parts"][k], rel_tol=1e-9, abs_tol=1e-15)
        _same_row(two_ranks[1]["steps"][key]["row"], row)  # every rank logs the same row

def test_noise_added_once(two_ranks):
    # An empty batch's update is z = N(0, σ²C²)/(qN) per entry if the noise is added once. The sample standard
    # deviation s of n = 100,000 i.i.d. normal entries has relative standard error 1/sqrt(2n) = 0.22%
    # (chi-square with n-1 degrees of freedom, normal approximation), so |s/target - 1| < 5/sqrt(2n) = 1.1% fails
    # by chance with probability about 6e-7; the mean is within 5 standard errors (target/sqrt(n)) of 0.
    # Noise added on both ranks would give s/target = sqrt(2) (independent) or 2 (identically seeded, as here).
    r0, r1 = (r["noise"] for r in two_ranks)
    z, target = r0["z"], SIGMA * C_NOISE / E_NOISE
    n = z.numel()
    assert n >= 100_000 and math.isclose(r0["noise_std"], target)
    ratio = float(z.std()) / target
    assert abs(ratio - 1) < 5 / math.sqrt(2 * n), f"noise std is {ratio:.4f} x σC/(qN)"
    assert abs(float(z.mean())) < 5 * target / math.sqrt(n)
    assert ratio < 1.1 < math.sqrt(W)
    assert torch.equal(r0["z"], r1["z"])      # every rank applied the same update
    assert r0["gen_untouched"] and r1["gen_untouched"]  # a step draws nothing from the generator (keyed streams); once: the std

def test_make_private_on_two_ranks(two_ranks):
    "The library path under two processes: one global batch per step (rank 0's secure draw), shares checked at every step"
    for key in ("secure", "seeded"):
        r0, r1 = (r["lib"][key] for r in two_ranks)
        assert r0["err"] is None and r1["err"] is None, (key, r0["err"], r1["err"])
        assert r0["batches"] == r1["batches"] and len(r0["batches"]) == r0["planned"] == r0["steps"] > 0, key
    for key, msg in (("own_seed", "drew different Poisson batches"), ("no_shard", "each example of the batch once, on one rank")):
        for r in two_ranks:
            assert r["lib"][key]["err"] and msg in r["lib"][key]["err"], (key, r["lib"][key]["err"])
            assert r["lib"][key]["steps"] == 0, key  # refused before anything was released or counted

@pytest.mark.skipif(not os.environ.get("DPTIE_ASSETS"), reason="needs DPTIE_ASSETS")
def test_torchrun_end_to_end(tmp_path, tiny_model):
    from dptie_nb.accountant import epsilon, noise_multiplier, paper_delta
    from dptie_nb.sampling import PoissonSampler
    from dptie_nb.distributed import torchrun_cmd
    from dptie_nb.study.launch import launch_train
    from dptie_nb.study.config import RunConfig
    assert Path(torchrun_cmd(W)[0]).name == "torchrun"  # the real launcher
    cfg = RunConfig(task="sst2", epsilon=3.0, train_cap=48, dev_cap=16, max_len=32, batch_size=16, epochs=1, lr=1e-3,
                    num_threads=1, seed=3, world_size=W, model=str(tiny_model))  # what is checked is the accounting, not the model
    out = tmp_path/"run"
    m = launch_train(asdict(cfg), out, timeout=900, env={"OMP_NUM_THREADS": "1"})
    assert sorted(p.name for p in out.iterdir()) == ["metrics.json"]  # one file, from rank 0
    assert m["status"] == "ok" and m["config"]["world_size"] == W, m.get("error")
    pv, n, q = m["privacy"], 48, 16 / 48
    steps, delta = 3, paper_delta(48)
    assert pv["steps"] == steps and pv["expected_batch_size"] == 16.0
    assert _near(pv["sample_rate"], q) and _near(pv["delta"], delta)
    # floats computed in another process (other thread counts) may differ in the last bits: compare with a tolerance,
    # and in the direction that matters, the reported ε is never below this process's recomputation by more than it
    sigma = noise_multiplier(target_epsilon=3.0, sample_rate=q, steps=steps, delta=delta, method="prv")
    assert _near(pv["noise_multiplier"], sigma)
    for method in ("rdp", "prv"):
        want = epsilon(pv["noise_multiplier"], q, steps, delta, method)
        assert pv[f"epsilon_{method}"] >= want * (1 - REL), (method, pv[f"epsilon_{method}"], want)
        assert _near(pv[f"epsilon_{method}"], want), (method, pv[f"epsilon_{method}"], want)
    assert pv["epsilon_prv"] <= 3.0 * (1 + REL)
    # each logged row is the whole global Poisson batch, not one rank's share
    ps = PoissonSampler(n, q, 3)   # one sampler, drawn in order as the run drew it
    assert [h["batch_size"] for h in m["history"]] == [len(ps.batch(s)) for s in range(steps)]
    assert all(h["loss"] is not None for h in m["history"] if h["batch_size"])

@pytest.mark.skipif(not os.environ.get("DPTIE_ASSETS"), reason="needs DPTIE_ASSETS")
def test_torchrun_secure(tmp_path, tiny_model):
    "A secure run on two processes: rank 0 draws each Poisson batch from the OS and shares it; a release, no diagnostics."
    from dptie_nb.study.launch import launch_train
    from dptie_nb.study.config import RunConfig
    cfg = RunConfig(task="sst2", epsilon=3.0, train_cap=48, dev_cap=16, max_len=32, batch_size=16, epochs=1, lr=1e-3,
                    num_threads=1, seed=3, world_size=W, secure_noise=True, checkpoint_every=1, model=str(tiny_model))
    out = tmp_path/"run"
    m = launch_train(asdict(cfg), out, timeout=900, env={"OMP_NUM_THREADS": "1"})
    assert m["status"] == "ok", m.get("error")
    assert sorted(p.name for p in out.iterdir()) == ["metrics.json"]  # checkpoint and released.json gone
    pv = m["privacy"]
    assert (pv["noise"], pv["sampling"], pv["diagnostics"], pv["steps"], pv["lost_steps"]) == ("secure", "secure", "off", 3, 0)
    assert pv["first_step_verified"] == {"checked": True, "rtol": 1e-4}  # no size or step of a private batch
    assert {k for h in m["history"] for k in h} == {"step", "epoch", "eps_rdp", "eps_prv"}
