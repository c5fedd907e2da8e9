"""apps/stencil27.py on the peers: cuPyNumeric's 27-point stencil on an (n+2)^3 grid with
-273.15 / 273.15 faces; each iteration grid[1:-1, 1:-1, 1:-1] = 0.037 * (the 27 shifted views,
summed along the last axis, then the rows, then the planes)."""

from xops import Phase

PROGRAM, TWIN = "tessera-stencil27", "stencil27.py"
CHECK_ARGS = "--n 13 --iters 10"  # apps/CMakeLists.txt
GPU_ARGS = "--n 254 --iters 50"  # .device/gpu_apps.sh
RTOL = 1e-9  # elementwise; only the printed sums and norm reduce (in another order on a GPU)
TORCH_COMPILE = "step"
MAIN = "iteration"

ALL = slice(None)
S = (slice(0, -2), slice(1, -1), slice(2, None))
IN = S[1]


def add_args(p):
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--iters", type=int, default=100)


def setup(X, a):
    return []


def phases(X, a):
    n = a.n
    m = n + 2

    def init(c):
        grid = X.zeros((m, m, m))
        for index, value in (((ALL, ALL, 0), -273.15), ((ALL, 0, ALL), -273.15), ((0, ALL, ALL), -273.15),
                             ((ALL, ALL, -1), 273.15), ((ALL, -1, ALL), 273.15), ((-1, ALL, ALL), 273.15)):
            grid = X.put(grid, index, value)
        return [grid]

    def step(st, c):
        g = st[0]
        rows = [[g[S[x], S[y], S[0]] + g[S[x], S[y], S[1]] + g[S[x], S[y], S[2]] for y in range(3)] for x in range(3)]
        planes = [rows[x][0] + rows[x][1] + rows[x][2] for x in range(3)]
        return [X.put(g, (IN, IN, IN), 0.037 * (planes[0] + planes[1] + planes[2]))]

    # 16 B per interior point: the grid read once, the interior written once.
    return [Phase("iteration", a.iters, init, step, min_bytes=16.0 * n ** 3)]


def results(X, a, c, states):
    n = a.n
    grid = states["iteration"][0]
    k = n // 2 + 1
    return [("energy", X.item(X.sum(grid[IN, IN, IN])) / n ** 2), ("sum", X.item(X.sum(grid))),
            ("norm", X.item(X.norm(grid))), ("middle", X.item(grid[k, k, k]))]

