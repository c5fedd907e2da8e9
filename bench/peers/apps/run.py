#!/usr/bin/env python3
"""The applications of apps/ on the peers (issue 19): each app's NumPy twin (apps/NAME.py)
written once against xops.Ops and run by NumPy, CuPy, PyTorch eager, torch.compile and JAX (jit of
the step, the state donated, .at[].set() for the writes, x64), float64 everywhere.

    python3 bench/peers/apps/run.py cfd --system cupy,torch,jax,torch-compile --n 1025 --iters 20 --nit 50 --check --json
    python3 bench/peers/apps/run.py all --preset gpu --system cupy,torch,jax --check --json   # gpu_apps.sh's sizes
    python3 bench/peers/apps/run.py all --preset check --system numpy --check-same            # runs anywhere
    python3 bench/peers/apps/run.py all --list apps.txt --system torch --check --json          # lines 'app options...'
    python3 bench/peers/apps/run.py sparse_cg --system jax --jax-sparse bcoo --n 2048 --iters 100 --check

An app takes its twin's options (--n, --iters, --nit, --features, --intercept, --dims, --centers);
--preset check|gpu gives every app its CTest arguments (apps/CMakeLists.txt) or those of
.device/gpu_apps.sh. Each phase is timed as the C++ program times it: from the initial state
(built untimed), --iters steps with no synchronization inside, one synchronization at the end;
--warmup steps run first from a state that is then dropped (JAX and torch.compile compile there).
ms_per_iter is the phase the C++ program reports (multigrid: the PCG iteration, as gpu_apps.sh
reads it; sparse_cg: CG, whose C++ program prints no time); `phases` has them all.

Checks. --check runs the app once more at its CTest arguments on the same system and compares
every result line with what the twin prints for them (apps/check_app.py's rule: names in order,
integers exact, numbers to the app's relative tolerance, 1e-9 or 1e-7 where reductions inside the
loop reorder); --check-same compares the timed run's own results with the twin at the same
arguments (small sizes only: the twin is NumPy). Without either the record says "unvalidated".
A library that is missing gives a "skipped" line; an exception an "error" line; a failed check
CHECK FAILED on stderr; both make the exit status 1. PEERS_TWIN_CACHE=DIR keeps the twins' output.
"""

import argparse
import hashlib
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # xops, then bench/peers/common.py

import common  # noqa: E402
import xops  # noqa: E402

APPS = ("stencil27", "shallow_water", "cfd", "jacobi", "logreg", "linreg", "kmeans", "multigrid", "sparse_cg")
SYSTEMS = ("cupy", "torch", "jax", "torch-compile", "numpy")  # in this order for 'all'
# numpy-functional: NumPy with JAX's semantics (every write returns a new array, nothing is written
# in place), which tests the steps' functional path where JAX is not installed.
TEST_SYSTEMS = ("numpy-functional",)


def load(name):
    spec = importlib.util.spec_from_file_location(f"peer_app_{name}", os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_check_app():
    spec = importlib.util.spec_from_file_location("check_app", os.path.join(REPO, "apps", "check_app.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def app_args(mod, argv, o):
    p = argparse.ArgumentParser(prog=f"run.py {mod.__name__[9:]}", add_help=False, allow_abbrev=False)
    mod.add_args(p)
    a = p.parse_args(argv)
    if a.iters < 1:
        raise SystemExit("run.py: --iters must be at least 1")
    if hasattr(mod, "validate") and mod.validate(a):
        raise SystemExit(f"run.py: {mod.validate(a)}")
    a.argv = list(argv)
    a.jax_sparse = o.jax_sparse
    return a


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                allow_abbrev=False,
                                epilog="The app's own options follow (see its twin, apps/NAME.py).")
    p.add_argument("app", choices=APPS + ("all",))
    p.add_argument("--system", default="numpy", help="comma-separated subset of " + ", ".join(SYSTEMS) + " (or 'all')")
    p.add_argument("--preset", choices=("check", "gpu"), help="every app's CTest or gpu_apps.sh arguments")
    p.add_argument("--list", metavar="PATH", help="with all: the apps and their options, one 'app options...' a line "
                   "(gpu_apps.sh's spelling too: shallow-water, sparse-cg)")
    p.add_argument("--warmup", type=int, default=2,
                   help="steps before the timed runs, from the initial state (default 2: the state a step returns is traced too)")
    p.add_argument("--repeat", type=int, default=1, help="timed runs; ms_per_iter_min is the fastest")
    p.add_argument("--budget", type=float, default=0.0,
                   help="stop a timed phase after this many seconds (the iterations done are reported)")
    p.add_argument("--check", action="store_true", help="also run at the CTest arguments and compare with the twin")
    p.add_argument("--check-same", action="store_true", help="compare the timed run's results with the twin's")
    p.add_argument("--jax-sparse", choices=("bcoo", "bcsr"), default="bcsr", help="sparse_cg's JAX format")
    p.add_argument("--json", action="store_true")
    p.add_argument("--dry-run", action="store_true")
    o, rest = p.parse_known_args()
    o.systems = list(SYSTEMS) if o.system == "all" else o.system.split(",")
    for s in o.systems:
        if s not in SYSTEMS + TEST_SYSTEMS:
            p.error(f"unknown system {s!r}; choose from {', '.join(SYSTEMS)}")
    if o.warmup < 0 or o.repeat < 1:
        p.error("need --warmup >= 0 and --repeat >= 1")
    if (o.app == "all" or o.preset) and rest:
        p.error(f"--preset / all take no app options: {' '.join(rest)}")
    if o.list and (o.app != "all" or o.preset):
        p.error("--list goes with all and without --preset")
    if o.list:
        with open(o.list) as f:
            specs = [shlex.split(line) for line in f if line.strip() and not line.startswith("#")]
        specs = [(words[0].replace("-", "_"), words[1:]) for words in specs]
        for name, _ in specs:
            if name not in APPS:
                p.error(f"{o.list}: unknown app {name!r}")
    elif o.app == "all" and not o.preset:
        p.error("all needs --preset or --list")
    else:
        specs = [(name, None) for name in (APPS if o.app == "all" else (o.app,))]
    o.runs = []
    for name, argv in specs:
        mod = load(name)
        if argv is None:
            argv = shlex.split({"check": mod.CHECK_ARGS, "gpu": mod.GPU_ARGS}[o.preset]) if o.preset else rest
        o.runs.append((name, mod, app_args(mod, argv, o)))
    return o


# ---- the twins


TWINS = {}


def twin_output(mod, argv):
    """What apps/<twin> prints for argv (cached in the process and under $PEERS_TWIN_CACHE)."""
    command = [sys.executable, os.path.join(REPO, "apps", mod.TWIN)] + list(argv)
    key = hashlib.sha1(" ".join(command[1:]).encode()).hexdigest()[:16]
    if key in TWINS:
        return TWINS[key]
    cache = os.environ.get("PEERS_TWIN_CACHE")
    path = os.path.join(cache, f"{mod.TWIN}.{key}.txt") if cache else None
    if path and os.path.exists(path):
        with open(path) as f:
            TWINS[key] = f.read()
        return TWINS[key]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the twin {' '.join(command)} exited with {done.returncode}: {done.stderr.strip()[-300:]}")
    TWINS[key] = done.stdout
    if path:
        os.makedirs(cache, exist_ok=True)
        with open(path, "w") as f:
            f.write(done.stdout)
    return done.stdout


def as_lines(results):
    return "\n".join(f"{k} {v:d}" if isinstance(v, int) else f"{k} {v:.17g}" for k, v in results)


def compare(mod, a, results):
    """(ok, detail): the results against the twin's at a's arguments; against this script's NumPy
    system where the twin cannot run (ok None where neither can)."""
    check_app = load_check_app()
    where = f"at '{' '.join(a.argv)}'"
    try:
        want, whom = check_app.results(twin_output(mod, a.argv)), f"apps/{mod.TWIN}"
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        print(f"peers: {e}", file=sys.stderr, flush=True)
        try:
            reference, _ = run_app(mod, a, make_env("numpy"), 0, 1, 0.0)
        except ImportError as e2:
            return None, f"unvalidated {where}: the twin failed and the NumPy system cannot run ({e2})"
        want, whom = check_app.results(as_lines(reference)), "the NumPy system (the twin failed: see stderr)"
    got = check_app.results(as_lines(results))
    if [k for k, _ in got] != [k for k, _ in want]:
        return False, f"{where}: names differ: peer {[k for k, _ in got]}, twin {[k for k, _ in want]}"
    bad, worst = [], 0.0
    for (k, x), (_, y) in zip(got, want):
        rel = abs(float(x) - float(y)) / max(abs(float(x)), abs(float(y)), 1e-300)
        worst = max(worst, rel if rel == rel else float("inf"))
        if not check_app.agree(x, y, mod.RTOL):
            bad.append(f"{k}: peer {x}, twin {y} (relative {rel:.3g})")
    if bad:
        return False, f"{where}: " + "; ".join(bad)
    return True, f"{len(want)} results {where} match {whom} (rtol {mod.RTOL:g}, largest relative difference {worst:.2g})"


# ---- running an app


def run_app(mod, a, env, warmup, repeat, budget):
    """Every phase: warm-up, then `repeat` timed runs from the initial state. Returns the results
    and {phase: (ms per iteration of the first run, of the fastest, iterations done, min bytes)}."""
    X = xops.Ops(env, compile_parts=env.system == "torch-compile" and mod.TORCH_COMPILE == "parts")
    consts = mod.setup(X, a)
    states, timing = {}, {}
    for ph in mod.phases(X, a):
        if X.compile_parts:  # the app compiled its parts (X.part); the step itself stays Python
            step, begin = ph.step, ph.begin
        else:
            step = env.compile(ph.step, donate=(0,))
            begin = ph.begin and env.compile(ph.begin, donate=(0,))
        if warmup:
            st = ph.init(consts)
            if begin:
                st = begin(st, consts)
            for _ in range(min(warmup, ph.iters)):
                st = step(st, consts)
            env.sync(st)
            del st
        runs = []
        for _ in range(repeat):
            st = ph.init(consts)
            env.sync(st)
            t0 = time.perf_counter()
            if begin:
                st = begin(st, consts)
            done = 0
            while done < ph.iters:
                st = step(st, consts)
                done += 1
                if budget and time.perf_counter() - t0 > budget:
                    break
            env.sync(st)
            runs.append((time.perf_counter() - t0) * 1e3 / done)
        states[ph.name] = st
        timing[ph.name] = (runs[0], min(runs), done, ph.min_bytes)
    return mod.results(X, a, consts, states), timing


def reset_compilers(env):
    """Between the check's small sizes and the timed ones: torch.compile starts again with static
    shapes (it would otherwise mark the changed sizes dynamic)."""
    if env.system == "torch-compile":
        import torch

        torch._dynamo.reset()


def run_one(o, name, mod, a, env):
    ns = types.SimpleNamespace(workload=f"apps/{name}", n=a.n, rows=1, iters=a.iters, warmup=o.warmup)
    check, detail = None, "unvalidated: no --check"
    checks = []
    if o.check:
        small = app_args(mod, shlex.split(mod.CHECK_ARGS), o)
        got, _ = run_app(mod, small, env, 0, 1, 0.0)
        checks.append(compare(mod, small, got))
        reset_compilers(env)
    results, timing = run_app(mod, a, env, o.warmup, o.repeat, o.budget)
    if o.check_same:
        checks.append(compare(mod, a, results))
    if checks:
        detail = "; ".join(d for _, d in checks)
        oks = [ok for ok, _ in checks if ok is not None]
        check = all(oks) if oks else None
    ms, ms_min, done, min_bytes = timing[mod.MAIN]
    rec = common.record(ns, env, ms, ms_min, 0.0, True, detail, results[0][1])
    rec["gbps"] = round(min_bytes / (ms * 1e-3) / 1e9, 3) if min_bytes else None
    rec["min_bytes_per_iter"] = min_bytes
    rec["check"] = "unvalidated" if check is None else "ok" if check else "FAILED"
    compiled = {"jax": "jax.jit(step), state donated", "torch-compile": "torch.compile(step)"}.get(env.system)
    if env.system == "torch-compile" and mod.TORCH_COMPILE == "parts":
        compiled = "torch.compile of parts of the step"
    if name == "sparse_cg" and env.system == "jax":
        rec["backend"] = f"xla+{o.jax_sparse}"
    rec.update(program=mod.PROGRAM, args=" ".join(a.argv), phase=mod.MAIN, compiled=compiled,
               check_args=mod.CHECK_ARGS if o.check else None,
               phases={k: {"ms_per_iter": round(v[0], 6), "ms_per_iter_min": round(v[1], 6), "iters_done": v[2],
                           "min_bytes_per_iter": v[3]} for k, v in timing.items()},
               results=dict(results))
    if any(v[2] < a.iters for v in timing.values()):
        rec["partial"] = f"--budget {o.budget:g} s: fewer iterations than --iters (results not comparable)"
    return rec


def make_env(system):
    if system != "numpy-functional":
        return common.Env(system)
    env = common.Env("numpy")
    env.system, env.functional, env.backend = system, True, "numpy"
    return env


def emit(o, rec):
    if o.json:
        print(json.dumps(rec), flush=True)
    elif "skipped" in rec or "dry_run" in rec:
        what = "skipped: " + rec["skipped"] if "skipped" in rec else "would run: " + rec["dry_run"]
        print(f"{rec['workload']:<19} {rec['system']:<14} {what}", flush=True)
    elif rec["check"] == "error":
        print(f"{rec['workload']:<19} {rec['system']:<14} ERROR: {rec['error']}", flush=True)
    else:
        phases = ", ".join(f"{k} {v['ms_per_iter']:.4f}" for k, v in rec["phases"].items())
        print(f"{rec['workload']:<19} {rec['system']:<14} {rec['backend']:<12} {rec['args']:<40} "
              f"{rec['ms_per_iter']:10.4f} ms/iter ({phases}) check {rec['check']}\n  check: {rec['check_detail']}\n"
              f"  results: {' '.join(f'{k}={v:.10g}' for k, v in rec['results'].items())}", flush=True)


def main():
    o = parse()
    common.prepare_environment(o.systems)
    status, envs = 0, {}
    for system in o.systems:
        for name, mod, a in o.runs:
            base = {"workload": f"apps/{name}", "program": mod.PROGRAM, "system": system, "ranks": 1, "n": a.n,
                    "args": " ".join(a.argv)}
            try:
                if system not in envs:
                    envs[system] = make_env(system)
                env = envs[system]
            except common.Skip as e:
                envs[system] = e
                emit(o, dict(base, check="skipped", skipped=str(e)))
                continue
            if isinstance(env, common.Skip):
                emit(o, dict(base, check="skipped", skipped=str(env)))
                continue
            if o.dry_run:
                emit(o, dict(base, check="skipped", dry_run=f"{env.backend} {env.version}, {a.iters} iterations"))
                continue
            try:
                rec = run_one(o, name, mod, a, env)
            except common.Skip as e:
                rec = dict(base, check="skipped", skipped=str(e))
            except ImportError as e:  # a library the app needs beyond the system's (scipy, cupyx)
                rec = dict(base, check="skipped", skipped=f"{e}")
            except Exception as e:  # noqa: BLE001: one system's failure must not stop the others
                traceback.print_exc()
                rec = dict(base, check="error", error=f"{type(e).__name__}: {str(e)[:500]}")
                status = 1
            emit(o, rec)
            if rec["check"] == "FAILED":
                print(f"peers: apps/{name} {system}: CHECK FAILED: {rec['check_detail']}", file=sys.stderr, flush=True)
                status = 1
            env.release()
    return status


if __name__ == "__main__":
    sys.exit(main())
