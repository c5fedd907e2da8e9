"""apps/linreg.py on the peers: cuPyNumeric's linear regression, gradient descent on the squared
error with X @ w and error @ X."""

from xops import Phase

PROGRAM, TWIN = "tessera-linreg", "linreg.py"
CHECK_ARGS = "--n 300 --features 7 --iters 25"
GPU_ARGS = "--n 4000000 --features 32 --iters 100"
RTOL = 1e-7  # X @ w and error @ X sum in the library's order every iteration
TORCH_COMPILE = "step"
MAIN = "iteration"


def add_args(p):
    p.add_argument("--n", type=int, default=10000)
    p.add_argument("--features", type=int, default=32)
    p.add_argument("--iters", type=int, default=1000)
    p.add_argument("--intercept", action="store_true")


def setup(X, a):
    i, j = X.arange(a.n)[:, None], X.arange(a.features)[None, :]
    F = 2.0 * X.sin(0.5 + 0.37 * i + 1.31 * j)
    y = X.asfloat((X.arange(a.n, integer=True) * 53) % 11) / 11.0
    if a.intercept:
        F = X.hstack((X.ones((a.n, 1)), F))
    return [F, y]


def phases(X, a):
    columns = a.features + (1 if a.intercept else 0)

    def init(c):
        return [X.zeros((columns,))]

    def step(st, c):
        F, y = c
        w = st[0]
        error = F @ w - y
        return [X.iadd(w, 1e-5 * (-(1.0 / a.n) * (error @ F)))]

    # The features read once (one pass can form both products row by row) and y.
    return [Phase("iteration", a.iters, init, step, min_bytes=8.0 * a.n * (columns + 1))]


def results(X, a, c, states):
    F, y = c
    w = states["iteration"][0]
    return [("w_norm", X.item(X.norm(w))), ("w_sum", X.item(X.sum(w))), ("w_first", X.item(w[0])),
            ("error", X.item(X.sum(X.square(F @ w - y))))]
