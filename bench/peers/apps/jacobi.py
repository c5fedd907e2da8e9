"""apps/jacobi.py on the peers: cuPyNumeric's dense Jacobi, x = (b - R @ x) / d, on a diagonally
dominant system from index formulas."""

from xops import Phase

PROGRAM, TWIN = "tessera-jacobi", "jacobi.py"
CHECK_ARGS = "--n 50 --iters 40"
GPU_ARGS = "--n 16384 --iters 200"
RTOL = 1e-7  # R @ x sums each row in the library's order every iteration
TORCH_COMPILE = "step"
MAIN = "iteration"


def add_args(p):
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--iters", type=int, default=100)


def setup(X, a):
    n = a.n
    i, j = X.arange(n)[:, None], X.arange(n)[None, :]
    A = 0.5 * (1.0 + X.sin(0.7 * i + 1.3 * j + 0.01 * i * j)) + n * X.eye(n)
    b = 0.5 * (1.0 + X.cos(0.9 * X.arange(n)))
    d = X.diag(A)
    return [A - X.diag(d), b, d]  # R, b, d (A itself is not needed after this)


def phases(X, a):
    def init(c):
        return [X.zeros((a.n,))]

    def step(st, c):
        R, b, d = c
        return [(b - R @ st[0]) / d]

    # R read once per iteration (8 B per element); the vectors are negligible.
    return [Phase("iteration", a.iters, init, step, min_bytes=8.0 * a.n * a.n)]


def results(X, a, c, states):
    x = states["iteration"][0]
    return [("x_sum", X.item(X.sum(x))), ("x_norm", X.item(X.norm(x))), ("x_first", X.item(x[0])),
            ("x_last", X.item(x[-1]))]
