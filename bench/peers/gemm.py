"""A square GEMM on the peers, as tessera-bench gemm defines it (bench/workloads.hpp): C = A @ B
for n x n matrices of ts::random's values (seeds 21, 22), float64 (cuBLAS's DGEMM under CuPy,
PyTorch and JAX). Checked at sampled entries against plain Python; 2 n^3 flops per iteration.

    python3 bench/peers/gemm.py --system jax,cupy,torch --n 8192 --iters 20 --json
"""

import sys

import common

SEED_A, SEED_B = 21, 22


def product(A, B):
    return A @ B


def run(o, env):
    np = common.numpy()
    n = o.n
    A = env.uniform(SEED_A, (n, n))
    B = env.uniform(SEED_B, (n, n))
    f = env.compile(product)
    C = [None]

    def step():
        C[0] = f(A, B)

    ms, ms_min = common.measure(o, step, lambda: env.sync(*C))
    at = common.sample_indices(n, env.ranks, 2)
    tolerance = 2.0 * (n + 2) * np.finfo(np.float64).eps  # all terms positive: n eps of the sum
    worst, bad = 0.0, None
    got = env.host(C[0])
    b_cols = {j: common.uniform_block(SEED_B, n, 0, n, j, j + 1)[:, 0] for j in at}
    for i in at:
        a_row = common.uniform_block(SEED_A, n, i, i + 1, 0, n)[0]
        for j in at:
            want = float(a_row @ b_cols[j])
            err = abs(got[i, j] - want) / want
            worst = max(worst, err)
            if not err <= tolerance and bad is None:
                bad = f"C[{i}, {j}] {got[i, j]!r}, host {want!r}"
    detail = bad or f"{len(at) ** 2} entries of C match the host (max rel. error {worst:.1e})"
    return common.record(o, env, ms, ms_min, 24.0 * n * n, bad is None, detail, float(got.sum()),
                         flops=2.0 * n ** 3)


if __name__ == "__main__":
    sys.exit(common.main(common.parse("gemm", 256, 20, grid=False, n_help="the matrices' order"), run))
