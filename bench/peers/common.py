"""What the peers share: the command line, the array libraries, ts::random's inputs, the timed
loop, the NumPy references and the JSON lines (the keys of tessera-bench's).

A system whose library is missing is reported as one JSON line with "check": "skipped"; a
wrong result prints CHECK FAILED on stderr and makes the script exit with status 1.
"""

import argparse
import json
import math
import os
import sys
import time

SYSTEMS = ("jax", "jax-sharded", "cupy", "torch", "torch-compile", "numpy")
GPU_SYSTEMS = ("cupy", "torch", "torch-compile")

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


class Skip(Exception):
    """The system cannot run here (library or device missing)."""


# ---- ts::random: element i of an array made with seed s is uniform(s, i) (src/program/element_ops.hpp)


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def uniform_int(seed, i):
    """ts::random's value at flat index i, in plain Python."""
    h = _mix(_mix((seed + GOLDEN) & MASK) ^ ((i * GOLDEN + 1) & MASK))
    return (h >> 11) * (1.0 / 9007199254740992.0)


def uniform_of(xp, seed, index):
    """ts::random's values at the uint64 flat indices `index`, computed with xp (numpy, cupy or
    jax.numpy with x64 enabled: all wrap uint64 arithmetic and shift logically). The constants
    are NumPy uint64 scalars, which every one of them combines with uint64 arrays as uint64."""
    u = numpy().uint64
    z = (index * u(GOLDEN) + u(1)) ^ u(_mix((seed + GOLDEN) & MASK))  # arrays on the left
    z = (z ^ (z >> u(30))) * u(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> u(27))) * u(0x94D049BB133111EB)
    z = z ^ (z >> u(31))
    return (z >> u(11)).astype(xp.float64) * (1.0 / 9007199254740992.0)


def flat_index(xp, shape):
    """Row-major flat indices of an array of `shape` (any rank) as uint64, built from one range per
    dimension, which a sharded JAX computation partitions by rows without reshaping."""
    u = numpy().uint64
    index = xp.arange(shape[0], dtype=xp.uint64)
    for extent in shape[1:]:
        index = index[..., None] * u(extent) + xp.arange(extent, dtype=xp.uint64)
    return index


def uniform_host(seed, shape, chunk=1 << 24):
    """The whole array on the host with NumPy, in chunks (bounded temporaries)."""
    np = numpy()
    count = math.prod(shape)
    out = np.empty(count, dtype=np.float64)
    for start in range(0, count, chunk):
        stop = min(count, start + chunk)
        out[start:stop] = uniform_of(np, seed, np.arange(start, stop, dtype=np.uint64))
    return out.reshape(shape)


def uniform_block(seed, cols, r0, r1, c0, c1):
    """Rows [r0, r1) and columns [c0, c1) of a 2-D array with `cols` columns, on the host."""
    np = numpy()
    rows = np.arange(r0, r1, dtype=np.uint64)[:, None]
    index = rows * np.uint64(cols) + np.arange(c0, c1, dtype=np.uint64)[None, :]
    return uniform_of(np, seed, index)


def samples(extent, ranks):
    """Where the checks look along one dimension: next to both edges, the middle, and where the
    tiles of `ranks` devices meet (as bench/workloads.cpp)."""
    v = {1, extent // 2, extent - 2} | {k * extent // ranks for k in range(1, ranks)}
    return sorted({min(max(x, 0), extent - 1) for x in v})


def sample_indices(extent, ranks, between):
    """Where the products' checks look (as bench/product_workloads.cpp): both ends, both sides of
    where the tiles of `ranks` devices meet, and `between` evenly spaced indices."""
    edges = {k * extent // ranks for k in range(1, ranks)}
    v = {0, extent - 1} | edges | {e - 1 for e in edges}
    v |= {k * extent // (between + 1) for k in range(1, between + 1)}
    return sorted(min(max(i, 0), extent - 1) for i in v)


def numpy():
    try:
        import numpy as np
    except ImportError as e:
        raise Skip(f"numpy is needed for inputs and checks: {e}")
    return np


# ---- Array libraries


class Env:
    """One system: its array module and how to create, move, time and read back arrays.

    functional: arrays are immutable (JAX); steps return new arrays and donate the old ones.
    """

    def __init__(self, system):
        self.system = system
        self.ranks = 1
        self.functional = False
        self.version = ""
        loader = {"jax": self._jax, "jax-sharded": self._jax, "cupy": self._cupy, "torch": self._torch,
                  "torch-compile": self._torch, "numpy": self._numpy}[system]
        try:
            loader()
        except ImportError as e:
            raise Skip(f"{e}")

    def _numpy(self):
        self.xp = numpy()
        self.backend = "numpy"
        self.version = self.xp.__version__
        self.sync = lambda *arrays: None
        self.uniform = lambda seed, shape: uniform_host(seed, shape)
        self.zeros = lambda shape: self.xp.zeros(shape)
        self.host = lambda a: self.xp.array(a, copy=True)
        self.copy = lambda a: a.copy()
        self.compile = lambda fn, donate=(): fn

    def _cupy(self):
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() < 1:
            raise Skip("cupy: no GPU")
        self.xp = cp
        self.backend = "cupy"
        self.version = cp.__version__
        self.sync = lambda *arrays: cp.cuda.Device().synchronize()
        self.uniform = lambda seed, shape: uniform_of(cp, seed, flat_index(cp, shape))
        self.zeros = lambda shape: cp.zeros(shape, dtype=cp.float64)
        self.host = lambda a: cp.asnumpy(a)
        self.copy = lambda a: a.copy()
        self.compile = lambda fn, donate=(): fn

    def _torch(self):
        import torch

        if not torch.cuda.is_available():
            raise Skip("torch: no GPU")
        np = numpy()
        device = torch.device("cuda")
        self.xp = torch
        self.backend = "inductor" if self.system == "torch-compile" else "torch-eager"
        self.version = torch.__version__
        self.sync = lambda *arrays: torch.cuda.synchronize()

        def uniform(seed, shape, chunk=1 << 24):
            out = torch.empty(math.prod(shape), dtype=torch.float64, device=device)
            for start in range(0, out.numel(), chunk):
                stop = min(out.numel(), start + chunk)
                part = uniform_of(np, seed, np.arange(start, stop, dtype=np.uint64))
                out[start:stop] = torch.from_numpy(part).to(device)
            return out.reshape(shape)

        self.uniform = uniform
        self.zeros = lambda shape: torch.zeros(shape, dtype=torch.float64, device=device)
        self.host = lambda a: a.detach().cpu().numpy()
        self.copy = lambda a: a.clone()
        if self.system == "torch-compile":
            self.compile = lambda fn, donate=(): torch.compile(fn)
        else:
            self.compile = lambda fn, donate=(): fn

    def _jax(self):
        import jax

        jax.config.update("jax_enable_x64", True)  # float64, as every other system
        import jax.numpy as jnp
        from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding

        np = numpy()
        devices = jax.devices()
        if devices[0].platform == "cpu":  # a JAX without its CUDA plugin would measure the host
            raise Skip("jax: no GPU backend (jax.devices() are CPUs)")
        self.xp = jnp
        self.functional = True
        self.backend = "xla"
        self.version = jax.__version__
        if self.system == "jax-sharded":
            mesh = Mesh(np.array(devices), ("x",))
            self.ranks = len(devices)
            # Rows (the first dimension) over all devices, as tessera's grids are split by rows.
            self.sharding = lambda ndim: NamedSharding(mesh, PartitionSpec("x", *([None] * (ndim - 1))))
        else:
            self.sharding = lambda ndim: SingleDeviceSharding(devices[0])
        self.sync = lambda *arrays: jax.block_until_ready(arrays)

        def uniform(seed, shape):
            make = lambda: uniform_of(jnp, seed, flat_index(jnp, shape))
            return jax.jit(make, out_shardings=self.sharding(len(shape)))()

        self.uniform = uniform
        self.zeros = lambda shape: jax.jit(lambda: jnp.zeros(shape, jnp.float64),
                                           out_shardings=self.sharding(len(shape)))()
        self.host = lambda a: np.asarray(a)
        self.copy = lambda a: a + 0.0  # a new buffer with a's sharding (arrays to donate must differ)
        self.compile = lambda fn, donate=(): jax.jit(fn, donate_argnums=donate)

    def release(self):
        """Gives cached device memory back (several systems may run in one process)."""
        if self.system == "cupy":
            import cupy as cp

            cp.get_default_memory_pool().free_all_blocks()
        elif self.system.startswith("torch"):
            import torch

            torch.cuda.empty_cache()


def prepare_environment(systems):
    """Before any library is imported: JAX must not take most of the GPU when CuPy or PyTorch
    share the process with it."""
    if any(s.startswith("jax") for s in systems) and any(s in GPU_SYSTEMS for s in systems):
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"


# ---- Command line, timing, output


def parse(workload, default_n, default_iters, grid, n_help=None):
    p = argparse.ArgumentParser(description=f"{workload} on the peers (docs/BENCHMARKS.md)")
    p.add_argument("--system", default="numpy",
                   help="comma-separated subset of " + ", ".join(SYSTEMS) + " (or 'all')")
    p.add_argument("--n", type=int, default=default_n,
                   help=n_help or ("options" if not grid else "columns of the grid (and rows unless --rows)"))
    if grid:
        p.add_argument("--rows", type=int, default=0, help="rows of the grid (weak scaling: devices x n)")
    p.add_argument("--iters", type=int, default=default_iters)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--json", action="store_true", help="one JSON line per measurement")
    p.add_argument("--dry-run", action="store_true", help="say what would run and which libraries load; run nothing")
    o = p.parse_args()
    o.workload = workload
    if not grid:
        o.rows = 1
    elif o.rows == 0:
        o.rows = o.n
    o.systems = list(SYSTEMS) if o.system == "all" else o.system.split(",")
    for s in o.systems:
        if s not in SYSTEMS:
            p.error(f"unknown system {s!r}; choose from {', '.join(SYSTEMS)}")
    if o.iters < 1 or o.warmup < 0 or o.n < (3 if grid else 4) or (grid and o.rows < 3):
        p.error("need --iters >= 1, --warmup >= 0 and at least 4 options or a 3 x 3 grid")
    return o


def measure(o, step, sync):
    """o.warmup calls of step(), then o.iters calls in up to 5 rounds, each ended by sync():
    (ms per iteration over the whole loop, ms per iteration of the fastest round)."""
    for _ in range(o.warmup):
        step()
    sync()
    rounds = min(o.iters, 5)
    best = float("inf")
    done = 0
    start = time.perf_counter()
    for k in range(rounds):
        count = o.iters * (k + 1) // rounds - done
        t0 = time.perf_counter()
        for _ in range(count):
            step()
        sync()
        best = min(best, (time.perf_counter() - t0) * 1e3 / count)
        done += count
        if time.perf_counter() - start > 2.0:
            print(f"[peers] {o.workload} {o.current}: {done}/{o.iters} iterations, "
                  f"{time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    return (time.perf_counter() - start) * 1e3 / o.iters, best


def record(o, env, ms, ms_min, min_bytes, check, detail, checksum, flops=None):
    return {"workload": o.workload, "system": env.system, "ranks": env.ranks, "n": o.n, "rows": o.rows,
            "iters": o.iters, "warmup": o.warmup, "ms_per_iter": round(ms, 6), "ms_per_iter_min": round(ms_min, 6),
            "gbps": round(min_bytes / (ms * 1e-3) / 1e9, 3),
            "tflops": round(flops / (ms * 1e-3) / 1e12, 3) if flops else None,
            "kernels_per_iter": None, "bytes_per_iter": None,
            "min_bytes_per_iter": min_bytes, "halo_bytes_per_iter": None, "allocs_per_iter": None,
            "backend": env.backend, "version": env.version, "checksum": checksum,
            "check": "ok" if check else "FAILED", "check_detail": detail}


def emit(o, rec):
    if o.json:
        print(json.dumps(rec), flush=True)
    elif "skipped" in rec:
        print(f"{rec['workload']:<13} {rec['system']:<15} skipped: {rec['skipped']}", flush=True)
    elif "dry_run" in rec:
        print(f"{rec['workload']:<13} {rec['system']:<15} would run: {rec['dry_run']}", flush=True)
    else:
        print(f"{rec['workload']:<13} {rec['system']:<15} {rec['backend']:<11} ranks {rec['ranks']:<2} "
              f"n {rec['n']:<9} rows {rec['rows']:<6} {rec['ms_per_iter']:10.4f} ms/iter "
              f"(min {rec['ms_per_iter_min']:.4f}) {rec['gbps']:9.2f} GB/s check {rec['check']}\n"
              f"  check: {rec['check_detail']}", flush=True)


def main(o, run):
    """Runs `run(o, env)` for every system asked for; returns the exit status."""
    prepare_environment(o.systems)
    status = 0
    for system in o.systems:
        o.current = system
        base = {"workload": o.workload, "system": system, "n": o.n, "rows": o.rows}
        try:
            env = Env(system)
        except Skip as e:
            visible = os.environ.get("CUDA_VISIBLE_DEVICES")
            ranks = 1 if system != "jax-sharded" else len(visible.split(",")) if visible else None
            emit(o, dict(base, ranks=ranks, check="skipped", skipped=str(e)))
            continue
        if o.dry_run:
            emit(o, dict(base, ranks=env.ranks, check="skipped",
                         dry_run=f"{env.backend} {env.version}, {o.iters} iterations after {o.warmup} warmup"))
            continue
        try:
            rec = run(o, env)
        except Skip as e:
            emit(o, dict(base, ranks=env.ranks, check="skipped", skipped=str(e)))
            continue
        emit(o, rec)
        if rec["check"] == "FAILED":
            print(f"peers: {o.workload} {system}: CHECK FAILED: {rec['check_detail']}", file=sys.stderr, flush=True)
            status = 1
        env.release()
    return status
