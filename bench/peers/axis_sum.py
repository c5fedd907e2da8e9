"""sum(A, 1) on the peers, as tessera-bench axis_sum defines it (bench/array_workloads.cpp): A is
a rows x n matrix of ts::random's values (seed 11); each iteration makes a new vector of the row
sums. Checked on rows 0, rows/2 and rows-1 summed on the host; 8 (n + 1) bytes per row at least
(A read, the sums written). The checksum is the sum of the row sums.

    python3 bench/peers/axis_sum.py --system jax,cupy,torch,torch-compile --n 16384 --iters 20 --json
"""

import sys

import common

SEED = 11


def row_sums(xp, A):
    return xp.sum(A, 1)


def run(o, env):
    rows, cols = o.rows, o.n
    A = env.uniform(SEED, (rows, cols))
    f = env.compile(lambda A: row_sums(env.xp, A))
    out = [None]

    def step():
        out[0] = f(A)

    ms, ms_min = common.measure(o, step, lambda: env.sync(*out))
    s = out[0]
    bad, worst = None, 0.0
    for i in sorted({0, rows // 2, rows - 1}):
        want = float(common.uniform_block(SEED, cols, i, i + 1, 0, cols).sum())
        got = float(env.host(s[i : i + 1])[0])
        err = abs(got - want) / max(1.0, abs(want))
        worst = max(worst, err)
        if not err <= 1e-12 and bad is None:
            bad = f"row {i}: got {got!r}, NumPy says {want!r}"
    detail = bad or f"rows 0, rows/2 and rows-1 match sums on the host (max rel. error {worst:.1e})"
    return common.record(o, env, ms, ms_min, 8.0 * rows * (cols + 1), bad is None, detail, float(s.sum()))


if __name__ == "__main__":
    sys.exit(common.main(common.parse("axis_sum", 256, 20, grid=True), run))
