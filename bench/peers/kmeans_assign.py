"""k-means' assignment step on the peers, as tessera-bench kmeans_assign defines it
(bench/array_workloads.cpp): n points P (n x 8, seed 13) and 16 centroids C (16 x 8, seed 14) of
ts::random's values; each iteration finds every point's nearest centroid by broadcasting,
argmin(sum(square(P[:, None, :] - C[None, :, :]), 2), 1) (the first of equal distances, as
NumPy). Checked on 64 points against plain Python; 8 * 8 + 8 bytes per point at least (P read,
the index written). The checksum is the sum of the indices.

    python3 bench/peers/kmeans_assign.py --system jax,cupy,torch,torch-compile --n 4194304 --iters 20 --json
"""

import sys

import common

DIMS, CENTROIDS = 8, 16
SEED_P, SEED_C = 13, 14


def nearest(xp, P, C):
    return xp.argmin(xp.sum(xp.square(P[:, None, :] - C[None, :, :]), 2), 1)


def nearest_python(i):
    """Point i's nearest centroid in plain Python, apart from nearest() so that each checks the other."""
    best, best_d = 0, 0.0
    for j in range(CENTROIDS):
        d = 0.0
        for m in range(DIMS):
            e = common.uniform_int(SEED_P, i * DIMS + m) - common.uniform_int(SEED_C, j * DIMS + m)
            d += e * e
        if j == 0 or d < best_d:
            best, best_d = j, d
    return best


def run(o, env):
    n = o.n
    P = env.uniform(SEED_P, (n, DIMS))
    C = env.uniform(SEED_C, (CENTROIDS, DIMS))
    f = env.compile(lambda P, C: nearest(env.xp, P, C))
    out = [None]

    def step():
        out[0] = f(P, C)

    ms, ms_min = common.measure(o, step, lambda: env.sync(*out))
    got = env.host(out[0])
    bad = None
    for k in range(64):
        i = n * k // 64
        want = nearest_python(i)
        if int(got[i]) != want and bad is None:
            bad = f"point {i}: got {int(got[i])}, Python says {want}"
    detail = bad or "64 points' nearest centroids match plain Python"
    checksum = float(got.sum())
    return common.record(o, env, ms, ms_min, n * (8.0 * DIMS + 8.0), bad is None, detail, checksum)


if __name__ == "__main__":
    sys.exit(common.main(common.parse("kmeans_assign", 1 << 20, 20, grid=False, n_help="points"), run))
