"""apps/multigrid.py on the peers: geometric multigrid V-cycles for 2-D Poisson (weighted-Jacobi
smoothing on interior slices, full-weighting restriction and bilinear prolongation through step-2
slices), --iters V-cycles as the solver, then --iters iterations of CG preconditioned by one
V-cycle. The level buffers u, f, r are kept as in the twin (each step writes them, JAX returns
them)."""

from xops import Phase

PROGRAM, TWIN = "tessera-multigrid", "multigrid.py"
CHECK_ARGS = "--n 33 --iters 3"
GPU_ARGS = "--n 2049 --iters 5"
RTOL = 1e-7  # the PCG's inner products reduce in the library's order
TORCH_COMPILE = "parts"  # the V-cycle (one graph, shared by both phases) and PCG's two vector updates
MAIN = "pcg"  # tessera-multigrid prints both; .device/gpu_apps.sh reads the PCG iteration's time

ALL, IN, LO, HI = slice(None), slice(1, -1), slice(0, -2), slice(2, None)
EVEN, ODD = slice(0, None, 2), slice(1, None, 2)


def add_args(p):
    p.add_argument("--n", type=int, default=257)
    p.add_argument("--iters", type=int, default=10)


def validate(a):
    if not (a.n >= 3 and (a.n - 1) & (a.n - 2) == 0):
        return f"multigrid: --n must be 2^k + 1 (as tessera-multigrid), got {a.n}"
    return None


def sizes(n):
    out, m = [], n
    while m >= 3:
        out.append(m)
        if m == 3:
            break
        m = (m - 1) // 2 + 1
    return out


def laplacian(u, h):
    return (4.0 * u[IN, IN] - u[LO, IN] - u[HI, IN] - u[IN, LO] - u[IN, HI]) / (h * h)


def smooth(X, u, f, h, sweeps):
    for _ in range(sweeps):
        u = X.put(u, (IN, IN), 0.2 * u[IN, IN] + 0.8 * 0.25 * (u[LO, IN] + u[HI, IN] + u[IN, LO] + u[IN, HI] + h * h * f[IN, IN]))
    return u


def restrict_residual(X, r, coarse):
    c, m, p = slice(2, -2, 2), slice(1, -3, 2), slice(3, -1, 2)
    return X.put(coarse, (IN, IN), (4.0 * r[c, c] + 2.0 * (r[m, c] + r[p, c] + r[c, m] + r[c, p]) +
                                    (r[m, m] + r[m, p] + r[p, m] + r[p, p])) / 16.0)


def prolong_add(X, e, u):
    u = X.put(u, (EVEN, EVEN), u[EVEN, EVEN] + e)
    u = X.put(u, (ODD, EVEN), u[ODD, EVEN] + 0.5 * (e[:-1, :] + e[1:, :]))
    u = X.put(u, (EVEN, ODD), u[EVEN, ODD] + 0.5 * (e[:, :-1] + e[:, 1:]))
    return X.put(u, (ODD, ODD), u[ODD, ODD] + 0.25 * (e[:-1, :-1] + e[:-1, 1:] + e[1:, :-1] + e[1:, 1:]))


def vcycle(X, ms, levels, l=0):
    """levels[k] = [u, f, r] of level k; returns them updated (the twin's vcycle(levels, l))."""
    u, f, r = levels[l]
    h = 1.0 / (ms[l] - 1)
    if ms[l] == 3:
        return levels[:l] + [[X.put(u, (1, 1), f[1, 1] * (h * h / 4.0)), f, r]] + levels[l + 1 :]
    u = smooth(X, u, f, h, 2)
    r = X.put(r, (IN, IN), f[IN, IN] - laplacian(u, h))
    cu, cf, cr = levels[l + 1]
    levels = levels[:l] + [[u, f, r], [X.put(cu, (ALL, ALL), 0.0), restrict_residual(X, r, cf), cr]] + levels[l + 2 :]
    levels = vcycle(X, ms, levels, l + 1)
    u = smooth(X, prolong_add(X, levels[l + 1][0], u), f, h, 2)
    return levels[:l] + [[u, f, r]] + levels[l + 1 :]


def setup(X, a):
    x = X.linspace(0.0, 1.0, a.n)
    return [1.0 + X.sin(3.0 * x[:, None] + 2.0 * x[None, :])]


def phases(X, a):
    n, ms = a.n, sizes(a.n)
    h = 1.0 / (n - 1)
    cycle = X.part(lambda levels: vcycle(X, ms, levels))

    def levels():
        return [[X.zeros((m, m)) for _ in range(3)] for m in ms]

    def precondition(levels, r):
        """z = one V-cycle from z = 0 on the right-hand side r."""
        u, f, res = levels[0]
        levels = cycle([[X.put(u, (ALL, ALL), 0.0), X.put(f, (ALL, ALL), r), res]] + levels[1:])
        return levels, X.snapshot(levels[0][0])

    def solver_init(c):
        lv = levels()
        lv[0][1] = X.copy(c[0])  # top["f"][:] = f
        return [lv]

    def solver_step(st, c):
        return [cycle(st[0])]

    def pcg_init(c):
        r = X.copy(c[0])
        for index in ((0, ALL), (-1, ALL), (ALL, 0), (ALL, -1)):
            r = X.put(r, index, 0.0)
        return [levels(), X.zeros((n, n)), r, X.zeros((n, n)), X.zeros((n, n)), X.zeros(())]  # levels, u, r, p, q, rz

    def pcg_begin(st, c):  # timed, as in tessera-multigrid: z, p and rz from the first V-cycle
        lv, u, r, p, q, _ = st
        lv, z = precondition(lv, r)
        return [lv, u, r, X.snapshot(z), q, X.vdot(r, z)]

    def pcg_update(u, r, p, q, rz):
        q = X.put(q, (IN, IN), laplacian(p, h))
        alpha = rz / X.vdot(p, q)
        return X.iadd(u, alpha * p), X.isub(r, alpha * q), q

    def pcg_direction(r, z, p, rz):
        rz_next = X.vdot(r, z)
        return z + (rz_next / rz) * p, rz_next

    update_, direction_ = X.part(pcg_update), X.part(pcg_direction)

    def pcg_step(st, c):
        lv, u, r, p, q, rz = st
        u, r, q = update_(u, r, p, q, rz)
        lv, z = precondition(lv, r)
        p, rz = direction_(r, z, p, rz)
        return [lv, u, r, p, q, rz]

    return [Phase("vcycle", a.iters, solver_init, solver_step),
            Phase("pcg", a.iters, pcg_init, pcg_step, begin=pcg_begin)]


def relative_residual(X, u, f, h):
    Au = X.put(X.zeros(tuple(u.shape)), (IN, IN), laplacian(u, h))
    return X.item(X.norm(f[IN, IN] - Au[IN, IN])) / X.item(X.norm(f[IN, IN]))


def results(X, a, c, states):
    f, h = c[0], 1.0 / (a.n - 1)
    top = states["vcycle"][0][0][0]
    u = states["pcg"][1]
    mg_residual = relative_residual(X, top, f, h)
    return [("mg_residual", mg_residual), ("mg_rate", mg_residual ** (1.0 / a.iters)), ("mg_norm", X.item(X.norm(top))),
            ("pcg_residual", relative_residual(X, u, f, h)), ("pcg_norm", X.item(X.norm(u)))]
