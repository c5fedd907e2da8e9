"""cuNumeric stencil.py on the peers, as tessera-bench stencil defines it (bench/workloads.hpp):
a rows x cols grid of ts::random's values (seed 5); each iteration
grid[1:-1, 1:-1] = 0.2 * (center + north + east + west + south), evaluated before it is written
(NumPy's semantics; JAX returns the new grid and donates the old one). Checked on patches
recomputed with NumPy; 16 bytes per interior point at least.

    python3 bench/peers/stencil.py --system jax-sharded --n 16384 --rows 32768 --iters 50 --json
"""

import sys

import common

SEED = 5
BYTES_PER_POINT = 16


def average(g):
    return 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[1:-1, 2:] + g[1:-1, :-2] + g[2:, 1:-1])


def step_in_place(g):
    g[1:-1, 1:-1] = average(g)


def step_functional(g):
    return g.at[1:-1, 1:-1].set(average(g))


def check(rows, cols, steps, ranks, fetch):
    """tessera-bench's patch check (bench/workloads.cpp): recompute `steps` steps on patches
    around sample points and compare every point that nothing outside its patch can reach."""
    np = common.numpy()
    w = 3
    h = steps + w + 1
    rs, cs = common.samples(rows, ranks), common.samples(cols, ranks)
    cost = len(rs) * len(cs) * min(2 * h + 1, rows) * min(2 * h + 1, cols) * steps
    if cost > 4e9:
        return True, "not validated: too many steps for the host recomputation", False
    compared = 0
    for ci in rs:
        for cj in cs:
            r0, r1, c0, c1 = max(0, ci - h), min(rows, ci + h + 1), max(0, cj - h), min(cols, cj + h + 1)
            u = common.uniform_block(SEED, cols, r0, r1, c0, c1)
            for _ in range(steps):  # written apart from average() so that each checks the other
                new = u.copy()
                for i in range(1, u.shape[0] - 1):
                    new[i, 1:-1] = 0.2 * (u[i, 1:-1] + u[i - 1, 1:-1] + u[i, 2:] + u[i, :-2] + u[i + 1, 1:-1])
                u = new
            got = fetch(r0, r1, c0, c1)
            ii = np.arange(r0, r1)[:, None]
            jj = np.arange(c0, c1)[None, :]
            exact = (((r0 == 0) | (ii - r0 > steps)) & ((r1 == rows) | (r1 - 1 - ii > steps)) &
                     ((c0 == 0) | (jj - c0 > steps)) & ((c1 == cols) | (c1 - 1 - jj > steps)))
            err = np.abs(got - u) > 1e-12 * np.maximum(1.0, np.abs(u))
            bad = np.argwhere(exact & err)
            if len(bad):
                i, j = bad[0]
                return False, (f"point ({r0 + i}, {c0 + j}) is {got[i, j]!r}, NumPy says {u[i, j]!r}"), True
            compared += int(exact.sum())
    return True, f"{compared} points in {len(rs) * len(cs)} patches match a NumPy recomputation of {steps} steps", True


def run(o, env):
    rows, cols = o.rows, o.n
    state = [env.uniform(SEED, (rows, cols))]
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
    ok, detail, validated = check(rows, cols, o.warmup + o.iters, env.ranks,
                                  lambda r0, r1, c0, c1: env.host(g[r0:r1, c0:c1]))
    rec = common.record(o, env, ms, ms_min, BYTES_PER_POINT * (rows - 2) * (cols - 2), ok, detail, float(g.sum()))
    if ok and not validated:
        rec["check"] = "unvalidated"
    return rec


if __name__ == "__main__":
    sys.exit(common.main(common.parse("stencil", 256, 20, grid=True), run))
