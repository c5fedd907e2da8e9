"""cuPyNumeric's logistic regression on the peers, as tessera-bench logreg defines it
(bench/workloads.hpp): X = ts::random's values (seed 23), n x 32, y (seed 24), w0 = 0, and per
step w += (1 / n) * ((y - sigmoid(X @ w)) @ X). Checked as tessera-bench checks it: the next
gradient by the products against an elementwise product and an axis sum, and small problems
against the steps in NumPy on the host. 8 n (32 + 1) bytes per step at least (X and y read once).

    python3 bench/peers/logreg.py --system jax,cupy,torch,torch-compile --n 10000000 --iters 20 --json
"""

import sys

import common

FEATURES = 32
SEED_X, SEED_Y = 23, 24
RATE = 1.0
HOST_ELEMENTS = 1 << 22


def error_of(xp, X, y, w):
    return y - 1.0 / (1.0 + xp.exp(-(X @ w)))


def run(o, env):
    np = common.numpy()
    n, xp = o.n, env.xp
    X = env.uniform(SEED_X, (n, FEATURES))
    y = env.uniform(SEED_Y, (n,))
    rate = RATE / n

    def update(X, y, w):
        return w + rate * (error_of(xp, X, y, w) @ X)

    f = env.compile(update, donate=(2,))
    w = [env.zeros((FEATURES,))]

    def step():
        w[0] = f(X, y, w[0])

    ms, ms_min = common.measure(o, step, lambda: env.sync(*w))
    error = error_of(xp, X, y, w[0])
    by_product = env.host(error @ X)
    by_sum = env.host((X * error[:, None]).sum(0))
    worst = float((np.abs(by_product - by_sum) / np.maximum(1.0, np.abs(by_sum))).max())
    ok = worst <= 1e-9
    detail = f"error @ X against sum(X * error[:, None], 0): max rel. diff {worst:.1e}"
    weights = env.host(w[0])
    if ok and n * FEATURES <= HOST_ELEMENTS:
        Xh = common.uniform_host(SEED_X, (n, FEATURES))
        yh = common.uniform_host(SEED_Y, (n,))
        wh = np.zeros(FEATURES)
        for _ in range(o.warmup + o.iters):
            wh = wh + rate * ((yh - 1.0 / (1.0 + np.exp(-(Xh @ wh)))) @ Xh)
        diff = float((np.abs(weights - wh) / np.maximum(1.0, np.abs(wh))).max())
        ok = diff <= 1e-10
        detail += f"; w against NumPy's {o.warmup + o.iters} steps: max rel. diff {diff:.1e}"
    return common.record(o, env, ms, ms_min, 8.0 * n * (FEATURES + 1), ok, detail, float(weights.sum()))


if __name__ == "__main__":
    sys.exit(common.main(common.parse("logreg", 1 << 20, 20, grid=False, n_help="samples (of 32 features)"), run))
