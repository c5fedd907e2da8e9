"""A - mean(A, 0) on the peers, as tessera-bench center defines it (bench/array_workloads.cpp): A
is a rows x n matrix of ts::random's values (seed 12); each iteration makes a new matrix, every
column centered by its mean (a broadcast over the rows). Checked at rows 0 and rows-1 of columns
0, n/2 and n-1, their means computed on the host; 16 bytes per element at least (A read, the
result written). The checksum is the sum of the result: zero up to rounding, in every system.

    python3 bench/peers/center.py --system jax,cupy,torch,torch-compile --n 16384 --iters 20 --json
"""

import sys

import common

SEED = 12


def centered(xp, A):
    return A - xp.mean(A, 0)[None, :]


def run(o, env):
    rows, cols = o.rows, o.n
    A = env.uniform(SEED, (rows, cols))
    f = env.compile(lambda A: centered(env.xp, A))
    out = [None]

    def step():
        out[0] = f(A)

    ms, ms_min = common.measure(o, step, lambda: env.sync(*out))
    B = out[0]
    bad, worst = None, 0.0
    for j in sorted({0, cols // 2, cols - 1}):
        column = common.uniform_block(SEED, cols, 0, rows, j, j + 1)[:, 0]
        mean = float(column.sum()) / rows
        for i in sorted({0, rows - 1}):
            want = float(column[i]) - mean
            got = float(env.host(B[i : i + 1, j : j + 1])[0, 0])
            err = abs(got - want) / max(1.0, abs(want))
            worst = max(worst, err)
            if not err <= 1e-12 and bad is None:
                bad = f"({i}, {j}): got {got!r}, NumPy says {want!r}"
    detail = bad or f"rows 0 and rows-1 of columns 0, n/2, n-1 match the host (max rel. error {worst:.1e})"
    return common.record(o, env, ms, ms_min, 16.0 * rows * cols, bad is None, detail, float(B.sum()))


if __name__ == "__main__":
    sys.exit(common.main(common.parse("center", 256, 20, grid=True), run))
