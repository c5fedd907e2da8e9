"""cuPyNumeric's stencil_27.py on the peers, as tessera-bench stencil27 defines it
(bench/array_workloads.cpp): an (n+2)^3 grid of ts::random's values (seed 15); each iteration
grid[1:-1, 1:-1, 1:-1] = 0.037 * (the sum of the 27 shifted views), evaluated before it is
written (NumPy's semantics; JAX returns the new grid and donates the old one), the boundary
fixed. Checked at points (p, p, p), p = 1, the middle and n, recomputed with NumPy on the cube
that reaches them; 16 bytes per interior point at least. The checksum is the sum of the grid.

    python3 bench/peers/stencil27.py --system jax,cupy,torch,torch-compile --n 512 --iters 20 --json
"""

import itertools
import sys

import common

SEED = 15
BYTES_PER_POINT = 16
SHIFT = (slice(0, -2), slice(1, -1), slice(2, None))


def average(g):
    # As tessera-bench sums them: along the last axis, then the rows of a plane, then the planes.
    planes = []
    for a in SHIFT:
        rows = [g[a, b, SHIFT[0]] + g[a, b, SHIFT[1]] + g[a, b, SHIFT[2]] for b in SHIFT]
        planes.append(rows[0] + rows[1] + rows[2])
    return 0.037 * (planes[0] + planes[1] + planes[2])


def step_in_place(g):
    g[1:-1, 1:-1, 1:-1] = average(g)


def step_functional(g):
    return g.at[1:-1, 1:-1, 1:-1].set(average(g))


def host_point(m, p, steps):
    """Grid point (p, p, p) after `steps` steps, from the cube of radius `steps` around it clipped
    to the grid: a cube point off the grid's boundary loses its value one step per cell from the
    cube's faces, which never reaches p. The 27 views are summed in another order than average()."""
    np = common.numpy()
    lo, hi = max(0, p - steps), min(m - 1, p + steps)
    i = np.arange(lo, hi + 1, dtype=np.uint64)
    index = (i[:, None, None] * np.uint64(m) + i[None, :, None]) * np.uint64(m) + i[None, None, :]
    u = common.uniform_of(np, SEED, index)
    w = hi - lo + 1
    for _ in range(steps):
        total = np.zeros((w - 2,) * 3)
        for a, b, c in itertools.product(range(3), repeat=3):
            total += u[a : w - 2 + a, b : w - 2 + b, c : w - 2 + c]
        u[1:-1, 1:-1, 1:-1] = 0.037 * total
    return float(u[p - lo, p - lo, p - lo])


def run(o, env):
    n = o.n
    m = n + 2
    state = [env.uniform(SEED, (m, m, m))]
    if env.functional:
        f = env.compile(step_functional, donate=(0,))

        def step():
            state[0] = f(state[0])
    else:
        f = env.compile(step_in_place)

        def step():
            f(state[0])

    ms, ms_min = common.measure(o, step, lambda: env.sync(*state))
    g = state[0]
    steps = o.warmup + o.iters
    bad, validated = None, 3 * 27 * min(m, 2 * steps + 1) ** 3 * steps <= 1e10  # host additions
    for p in sorted({1, m // 2, n}) if validated else ():
        want = host_point(m, p, steps)
        got = float(env.host(g[p : p + 1, p : p + 1, p : p + 1])[0, 0, 0])
        if not abs(got - want) <= 1e-11 * max(1.0, abs(want)) and bad is None:
            bad = f"point ({p}, {p}, {p}): got {got!r}, NumPy says {want!r}"
    detail = ((bad or f"points (p, p, p) for p = 1, the middle and n match NumPy after {steps} steps")
              if validated else "not validated: too many steps for the host recomputation")
    rec = common.record(o, env, ms, ms_min, BYTES_PER_POINT * n ** 3, bad is None, detail, float(g.sum()))
    if not validated:
        rec["check"] = "unvalidated"
    return rec


if __name__ == "__main__":
    sys.exit(common.main(common.parse("stencil27", 64, 20, grid=False, n_help="interior points per side"), run))
