"""cuPyNumeric's dense Jacobi on the peers, as tessera-bench jacobi defines it (bench/workloads.hpp):
A = ts::random's values (seed 19) + n I, b (seed 20), x0 = 0, R = A - diag(diag(A)), and per
iteration x = (b - R @ x) / d. Checked as tessera-bench checks it: one more iteration at sampled
rows against plain Python. 8 n (n + 4) bytes per iteration at least (R read once).

    python3 bench/peers/jacobi.py --system jax,cupy,torch,torch-compile --n 32768 --iters 20 --json
"""

import sys

import common

SEED_A, SEED_B = 19, 20


def iterate(R, b, d, x):
    return (b - R @ x) / d


def run(o, env):
    np = common.numpy()
    n = o.n
    xp = env.xp
    A = env.uniform(SEED_A, (n, n))
    b = env.uniform(SEED_B, (n,))
    d = xp.diagonal(A) + n  # the diagonal of A + n I (a new array: diagonal() is a view)
    if env.functional:
        R = A.at[xp.arange(n), xp.arange(n)].set(0.0)
    elif env.system.startswith("torch"):
        R = A.fill_diagonal_(0.0)  # R = A - diag(d) in place: A's memory, not twice it
    else:
        R = A
        xp.fill_diagonal(R, 0.0)
    del A
    x = [env.zeros((n,))]
    f = env.compile(iterate, donate=(3,))

    def step():
        x[0] = f(R, b, d, x[0])

    ms, ms_min = common.measure(o, step, lambda: env.sync(*x))
    last = env.host(x[0])
    nxt = env.host(iterate(R, b, d, env.copy(x[0])))
    worst, bad = 0.0, None
    tolerance = 2.0 * (n + 2) * np.finfo(np.float64).eps
    for i in common.sample_indices(n, env.ranks, 12):
        a_row = common.uniform_block(SEED_A, n, i, i + 1, 0, n)[0]
        a_ii = a_row[i] + n
        a_row[i] = 0.0
        want = (common.uniform_int(SEED_B, i) - float(a_row @ last)) / a_ii
        err = abs(nxt[i] - want) / ((1.0 + float(np.abs(a_row * last).sum())) / a_ii)
        worst = max(worst, err)
        if not err <= tolerance and bad is None:
            bad = f"row {i}: x {nxt[i]!r}, host {want!r}"
    detail = bad or f"the last iteration at sampled rows matches the host (max error {worst:.1e} of the row's terms)"
    return common.record(o, env, ms, ms_min, 8.0 * n * (n + 4), bad is None, detail, float(last.sum()))


if __name__ == "__main__":
    sys.exit(common.main(common.parse("jacobi", 256, 20, grid=False, n_help="the matrix's order"), run))
