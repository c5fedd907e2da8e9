"""apps/kmeans.py on the peers: Lloyd's k-means, distances by broadcasting a 3-D difference,
argmin along an axis, the centroids' sums as bincount (NumPy, CuPy), index_add (PyTorch) or
segment_sum (JAX)."""

import math

from xops import Phase

PROGRAM, TWIN = "tessera-kmeans", "kmeans.py"
CHECK_ARGS = "--n 240 --dims 2 --centers 10 --iters 8"
GPU_ARGS = "--n 2000000 --dims 8 --centers 16 --iters 10"
RTOL = 1e-7  # the distance sum and the centroids' sums reduce in the library's order (atomics on GPUs)
TORCH_COMPILE = "step"
MAIN = "iteration"


def add_args(p):
    p.add_argument("--n", type=int, default=100000)
    p.add_argument("--dims", type=int, default=2)
    p.add_argument("--centers", type=int, default=10)
    p.add_argument("--iters", type=int, default=50)


def setup(X, a):
    C = a.centers
    i, j = X.arange(a.n)[:, None], X.arange(a.dims)[None, :]
    return [5.0 * X.cos(2.0 * math.pi * (i % C) / C + j) + 0.5 * X.sin(1.7 * i + 0.3 * j)]


def phases(X, a):
    C = a.centers

    def init(c):
        data = c[0]
        return [X.copy(data[0 : 2 * C : 2, :]), X.zeros((a.n,), integer=True), X.zeros(()), X.zeros((C,))]

    def step(st, c):
        data, centroids = c[0], st[0]
        d2 = X.sum(X.square(data[:, None, :] - centroids[None, :, :]), 2)
        labels = X.argmin(d2, 1)
        distance_sum = X.sum(X.amin(d2, 1))
        counts = X.segment_sum(None, labels, C)
        sums = X.segment_sum(data, labels, C)
        return [sums / X.maximum(counts, 1.0)[:, None], labels, distance_sum, counts]

    # The points read once (distances, labels and sums in one pass).
    return [Phase("iteration", a.iters, init, step, min_bytes=8.0 * a.n * a.dims)]


def results(X, a, c, states):
    centroids, labels, distance_sum, counts = states["iteration"]
    counts = X.env.host(counts)
    return ([("distance_sum", X.item(distance_sum)), ("centroid_norm", X.item(X.norm(centroids))),
             ("label_sum", X.item_int(X.sum(labels)))] +
            [(f"count[{k}]", int(counts[k])) for k in range(a.centers)])
