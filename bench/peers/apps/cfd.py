"""apps/cfd.py on the peers: the lid-driven cavity of "12 steps to Navier-Stokes" (step 11): each
step the source term b, --nit Jacobi sweeps of the pressure Poisson equation with its boundary
conditions, then u and v and theirs."""

from xops import Phase

PROGRAM, TWIN = "tessera-cfd", "cfd.py"
CHECK_ARGS = "--n 21 --iters 20 --nit 20"
GPU_ARGS = "--n 1025 --iters 20 --nit 50"
RTOL = 1e-9  # elementwise; only the printed norms reduce
TORCH_COMPILE = "parts"  # the source term, one pressure sweep and the velocity update (not nit sweeps unrolled)
MAIN = "iteration"

ALL, IN, LO, HI = slice(None), slice(1, -1), slice(0, -2), slice(2, None)
RHO, NU = 1.0, 0.1


def add_args(p):
    p.add_argument("--n", type=int, default=41)
    p.add_argument("--iters", type=int, default=500)
    p.add_argument("--nit", type=int, default=50)


def phases(X, a):
    n, nit = a.n, a.nit
    dx = dy = 2.0 / (n - 1)
    rho, nu = RHO, NU
    dt = min(0.001, 0.1 * dx * dx / nu)

    def source(u, v, b):
        du_dx = (u[IN, HI] - u[IN, LO]) / (2 * dx)
        du_dy = (u[HI, IN] - u[LO, IN]) / (2 * dy)
        dv_dx = (v[IN, HI] - v[IN, LO]) / (2 * dx)
        dv_dy = (v[HI, IN] - v[LO, IN]) / (2 * dy)
        return X.put(b, (IN, IN), rho * (1 / dt * (du_dx + dv_dy) - X.square(du_dx) - 2 * (du_dy * dv_dx) - X.square(dv_dy)))

    def sweep(p, b):
        p = X.put(p, (IN, IN), ((p[IN, HI] + p[IN, LO]) * (dy * dy) + (p[HI, IN] + p[LO, IN]) * (dx * dx)) / (
            2 * (dx * dx + dy * dy)) - dx * dx * dy * dy / (2 * (dx * dx + dy * dy)) * b[IN, IN])
        p = X.put(p, (ALL, -1), p[:, -2])
        p = X.put(p, (0, ALL), p[1, :])
        p = X.put(p, (ALL, 0), p[:, 1])
        return X.put(p, (-1, ALL), 0.0)

    def velocity(u, v, p):
        un, vn = X.snapshot(u), X.snapshot(v)
        uc, vc = un[IN, IN], vn[IN, IN]
        u = X.put(u, (IN, IN), uc - uc * dt / dx * (uc - un[IN, LO]) - vc * dt / dy * (uc - un[LO, IN])
                  - dt / (2 * rho * dx) * (p[IN, HI] - p[IN, LO])
                  + nu * (dt / (dx * dx) * (un[IN, HI] - 2 * uc + un[IN, LO])
                          + dt / (dy * dy) * (un[HI, IN] - 2 * uc + un[LO, IN])))
        v = X.put(v, (IN, IN), vc - uc * dt / dx * (vc - vn[IN, LO]) - vc * dt / dy * (vc - vn[LO, IN])
                  - dt / (2 * rho * dy) * (p[HI, IN] - p[LO, IN])
                  + nu * (dt / (dx * dx) * (vn[IN, HI] - 2 * vc + vn[IN, LO])
                          + dt / (dy * dy) * (vn[HI, IN] - 2 * vc + vn[LO, IN])))
        for index, value in (((0, ALL), 0.0), ((ALL, 0), 0.0), ((ALL, -1), 0.0), ((-1, ALL), 1.0)):
            u = X.put(u, index, value)
        for index in ((0, ALL), (-1, ALL), (ALL, 0), (ALL, -1)):
            v = X.put(v, index, 0.0)
        return u, v

    source_, sweep_, velocity_ = X.part(source), X.part(sweep), X.part(velocity)

    def init(c):
        return [X.zeros((n, n)) for _ in range(4)]

    def step(st, c):
        u, v, p, b = st
        b = source_(u, v, b)
        p = X.fori(nit, lambda p: sweep_(p, b), p)
        u, v = velocity_(u, v, p)
        return [u, v, p, b]

    # Per point: each sweep reads p and b and writes p (24 B); u and v read and written once (32 B).
    return [Phase("iteration", a.iters, init, step, min_bytes=(24.0 * nit + 32.0) * n * n)]


def setup(X, a):
    return []


def results(X, a, c, states):
    u, v, p, _ = states["iteration"]
    m = a.n // 2
    return [("u_norm", X.item(X.norm(u))), ("v_norm", X.item(X.norm(v))), ("p_norm", X.item(X.norm(p))),
            ("u_mid", X.item(u[m, m])), ("v_mid", X.item(v[m, m])), ("p_mid", X.item(p[m, m]))]
