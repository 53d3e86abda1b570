#!/usr/bin/env python3
"""The study on one GPU (issue 22 item 8): every run of a preset (default `gpu`), several processes at once, in a wall
budget, on a machine with no internet and no package index.

Two phases, one script:
- `--pack STAGE` (here, with the project's environment): copies what the runs read into STAGE, a folder to carry:
  the GLUE tasks and the GPT-2 tokenizer from DPTIE_ASSETS (about 14 MiB), and the wheels of the pure-Python packages
  the training path imports that the GPU image lacks (opacus, fastcore). The model, dptie-mini-reviews, is committed
  under reports/models/ and travels with the tree.
- `--stage STAGE` (there, from the repository root): installs those wheels into a private folder, runs each missing
  run of the preset with `dptie train` (`dptie_nb.launch.main`) into OUT/runs/<run-id>/, `--jobs` at a time, starts no
  run after `--seconds`, and writes OUT/gpu.json (what ran, each run's status and time, the machine) after every run,
  so a timeout still returns it; the runs' folders come back as one OUT/gpu-runs.tar.gz.

A dry run on the CPU (`--device cpu --dry-run`) runs two of the preset's runs at tiny sizes; that is how this script
is tested where no GPU is lent. Commit what a GPU run measured under reports/gpu/ (README there)."""
import argparse, json, os, platform, shutil, subprocess, sys, tarfile, time
from dataclasses import asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
T0 = time.time()

def say(*x): print(f"[{time.time() - T0:7.1f}s]", *x, flush=True)

def pack(stage:Path):
    "Copy the assets the runs read and the wheels the GPU image lacks into `stage`"
    assets = Path(os.environ.get("DPTIE_ASSETS", ROOT.parent/"shared"/"assets")).resolve()
    if not (assets/"glue").is_dir(): sys.exit(f"no GLUE under {assets}: set DPTIE_ASSETS to the assets folder")
    (stage/"assets").mkdir(parents=True, exist_ok=True)
    for sub in ("glue/SST-2", "glue/QNLI", "glue/QQP", "tokenizers/gpt2", "configs"):
        shutil.copytree(assets/sub, stage/"assets"/sub, dirs_exist_ok=True)
    wheels = stage/"wheels"; wheels.mkdir(exist_ok=True)
    from importlib import metadata
    pins = [f"{p}=={metadata.version(p)}" for p in ("opacus", "fastcore")]
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", str(wheels), *pins], check=True)
    size = sum(f.stat().st_size for f in stage.rglob("*") if f.is_file())
    say(f"staged {size / 2**20:.1f} MiB in {stage}: assets {sorted(p.name for p in (stage/'assets').iterdir())}, wheels {sorted(p.name for p in wheels.iterdir())}")

def _machine() -> dict:
    try: smi = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired): smi = None
    return dict(python=platform.python_version(), gpu=smi, cpus=os.cpu_count())

def _tiny(cfg):
    "A run at dry-run size: on the CPU, 64 training sentences, a few steps"
    return replace(cfg, device="cpu", train_cap=256, holdout=min(cfg.holdout, 32), dev_cap=32, batch_size=32, micro_batch_size=32,
                   epochs=0.25, eval_every=1, checkpoint_every=0, max_len=32)

def run(a):
    stage, out = Path(a.stage).resolve(), Path(a.out).resolve()
    site = Path(a.work)/"site"
    if (stage/"wheels").is_dir() and any((stage/"wheels").iterdir()):
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile", "--target", str(site),
                        *map(str, sorted((stage/"wheels").glob("*.whl")))], check=True)
    env = dict(os.environ, DPTIE_ASSETS=str(stage/"assets"), PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), str(site), os.environ.get("PYTHONPATH")])))
    sys.path[:0] = [str(ROOT), str(site)]; os.environ["DPTIE_ASSETS"] = env["DPTIE_ASSETS"]
    from dptie_nb.sweep import expand
    from dptie_nb.launch import train_args
    cfgs = expand(a.preset)
    if a.device != "cuda" or a.dry_run: cfgs = [_tiny(c) for c in cfgs][:a.dry_run or len(cfgs)]
    runs = out/"runs"; runs.mkdir(parents=True, exist_ok=True)
    todo = [c for c in cfgs if not (runs/c.run_id()/"metrics.json").exists()]
    rec = dict(preset=a.preset, args=vars(a), machine=_machine(), planned=len(cfgs), runs={})
    def save(): (out/"gpu.json").write_text(json.dumps(dict(rec, wall_s=time.time() - T0), indent=1))
    save(); say(f"{a.preset}: {len(cfgs)} runs, {len(todo)} to run, {a.jobs} at a time, none started after {a.seconds:.0f} s")
    live = {}
    while todo or live:
        while todo and len(live) < a.jobs and time.time() - T0 < a.seconds:
            c = todo.pop(0); d = runs/c.run_id()
            argv = [sys.executable, "-c", "import sys; from dptie_nb.launch import main; sys.exit(main())", *train_args(asdict(c)), "--out", str(d)]
            d.mkdir(parents=True, exist_ok=True)
            live[c.run_id()] = (subprocess.Popen(argv, env=env, cwd=ROOT, stdout=open(d/"log.txt", "w"), stderr=subprocess.STDOUT), time.time())
        for k, (p, t) in list(live.items()):
            if p.poll() is None: continue
            m = runs/k/"metrics.json"
            acc = json.loads(m.read_text()).get("final", {}).get("dev_acc") if m.exists() else None
            rec["runs"][k] = dict(rc=p.returncode, seconds=round(time.time() - t, 1), dev_acc=acc)
            say(f"{k}: rc {p.returncode}, {time.time() - t:.0f} s, dev_acc {acc}"); del live[k]; save()
        if time.time() - T0 >= a.seconds and todo: rec["not_started"] = [c.run_id() for c in todo]; todo = []
        time.sleep(1)
    save()
    with tarfile.open(out/"gpu-runs.tar.gz", "w:gz") as t: t.add(runs, arcname="runs")
    shutil.rmtree(runs)
    say(f"done: {len(rec['runs'])} runs, {len(rec.get('not_started', []))} not started; {out/'gpu-runs.tar.gz'} {(out/'gpu-runs.tar.gz').stat().st_size / 2**20:.1f} MiB")

if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pack", metavar="STAGE", help="stage the inputs into STAGE (run here) and stop")
    p.add_argument("--stage", help="the staged inputs (on the GPU machine)")
    p.add_argument("--preset", default="gpu")
    p.add_argument("--out", default=os.environ.get("OUT", "scratch/gpu-out"))
    p.add_argument("--work", default="/tmp/dptie-gpu")
    p.add_argument("--jobs", type=int, default=6, help="runs at a time")
    p.add_argument("--seconds", type=float, default=420, help="start no run after this many seconds")
    p.add_argument("--device", default="cuda")
    p.add_argument("--dry-run", type=int, default=0, metavar="K", help="run only the first K runs, at tiny sizes on the CPU")
    a = p.parse_args()
    if a.pack: pack(Path(a.pack))
    elif a.stage: run(a)
    else: p.error("give --pack STAGE (here) or --stage STAGE (on the GPU machine)")
