"""apps/shallow_water.py on the peers: TorchSWE-style central-upwind fluxes with minmod
reconstruction, reflective walls, SSP-RK2 with dt from the fastest wave (a 0-d array: no host
synchronization per step); the y direction is the x direction on transposed views."""

from xops import Phase

PROGRAM, TWIN = "tessera-shallow-water", "shallow_water.py"
CHECK_ARGS = "--n 12 --iters 24"
GPU_ARGS = "--n 4096 --iters 50"
RTOL = 1e-9  # elementwise and max (exact); only the printed sums and norms reorder
TORCH_COMPILE = "parts"  # rates(), the stage and the average, each compiled once (the whole step is ~500 ops)
MAIN = "iteration"

G, THETA, CFL, DRY = 9.81, 1.3, 0.25, 1e-10
ALL = slice(None)


def add_args(p):
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--iters", type=int, default=100)


def setup(X, a):
    return []


def walls(X, h, hu, hv, n):
    for k in range(2):
        for ghost, inner in ((1 - k, 2 + k), (n + 2 + k, n + 1 - k)):
            h, hu, hv = (X.put(h, (ALL, ghost), h[:, inner]), X.put(hu, (ALL, ghost), -hu[:, inner]),
                         X.put(hv, (ALL, ghost), hv[:, inner]))
    for k in range(2):
        for ghost, inner in ((1 - k, 2 + k), (n + 2 + k, n + 1 - k)):
            h, hu, hv = (X.put(h, (ghost, ALL), h[inner, :]), X.put(hu, (ghost, ALL), hu[inner, :]),
                         X.put(hv, (ghost, ALL), -hv[inner, :]))
    return h, hu, hv


def fluxes(X, h, qn, qt, n):
    """Fluxes through the faces between columns (x); pass transposes for y."""
    inner = slice(2, n + 2)

    def sides(q):
        dl = q[inner, 1 : n + 3] - q[inner, 0 : n + 2]
        dr = q[inner, 2 : n + 4] - q[inner, 1 : n + 3]
        slope = X.where(dl * dr > 0.0,
                        X.sign(dl) * X.minimum(X.minimum(THETA * X.abs(dl), 0.5 * X.abs(dl + dr)), THETA * X.abs(dr)),
                        0.0)
        return q[inner, 1 : n + 2] + 0.5 * slope[:, 0 : n + 1], q[inner, 2 : n + 3] - 0.5 * slope[:, 1 : n + 2]

    hL, hR = sides(h)
    nL, nR = sides(qn)
    tL, tR = sides(qt)
    uL, uR = X.where(hL > DRY, nL / hL, 0.0), X.where(hR > DRY, nR / hR, 0.0)
    vL, vR = X.where(hL > DRY, tL / hL, 0.0), X.where(hR > DRY, tR / hR, 0.0)
    cL, cR = X.sqrt(G * hL), X.sqrt(G * hR)
    ap = X.maximum(X.maximum(uL + cL, uR + cR), 0.0)
    am = X.minimum(X.minimum(uL - cL, uR - cR), 0.0)

    def upwind(fL, fR, qL, qR):
        return X.where(ap - am > DRY, (ap * fL - am * fR + ap * am * (qR - qL)) / (ap - am), 0.0)

    fh = upwind(nL, nR, hL, hR)
    fn = upwind(nL * uL + 0.5 * G * hL * hL, nR * uR + 0.5 * G * hR * hR, nL, nR)
    ft = upwind(nL * vL, nR * vR, tL, tR)
    return fh, fn, ft, X.amax(X.maximum(ap, -am))


def phases(X, a):
    n = a.n
    dx = 1.0 / n
    inn = slice(2, n + 2)
    IN = (inn, inn)

    def rates(h, hu, hv):
        xh, xn, xt, xs = fluxes(X, h, hu, hv, n)
        yh, yn, yt, ys = fluxes(X, h.T, hv.T, hu.T, n)
        yh, yn, yt = yh.T, yn.T, yt.T

        def div(fx, fy):
            return -(fx[:, 1:] - fx[:, :-1]) / dx - (fy[1:, :] - fy[:-1, :]) / dx

        return div(xh, yh), div(xn, yt), div(xt, yn), X.maximum(xs, ys)

    def stage(h, hu, hv, sh, shu, shv, rh, rhu, rhv, dt):
        sh = X.put(sh, IN, h[IN] + dt * rh)
        shu = X.put(shu, IN, hu[IN] + dt * rhu)
        shv = X.put(shv, IN, hv[IN] + dt * rhv)
        return walls(X, sh, shu, shv, n)

    def average(h, hu, hv, sh, shu, shv, rh, rhu, rhv, dt):
        h = X.put(h, IN, 0.5 * (h[IN] + sh[IN] + dt * rh))
        hu = X.put(hu, IN, 0.5 * (hu[IN] + shu[IN] + dt * rhu))
        hv = X.put(hv, IN, 0.5 * (hv[IN] + shv[IN] + dt * rhv))
        return walls(X, h, hu, hv, n)

    rates_, stage_, average_ = X.part(rates), X.part(stage), X.part(average)

    def init(c):
        x = (X.arange(n + 4) - 1.5) * dx
        XX, YY = x[None, :], x[:, None]
        h = 1.0 + 0.5 * X.exp(-(X.square(XX - 0.3) + X.square(YY - 0.4)) / 0.01)
        h, hu, hv = walls(X, h, X.zeros((n + 4, n + 4)), X.zeros((n + 4, n + 4)), n)
        return [h, hu, hv, X.copy(h), X.copy(hu), X.copy(hv), X.zeros(())]

    def step(st, c):
        h, hu, hv, sh, shu, shv, t = st
        rh, rhu, rhv, speed = rates_(h, hu, hv)
        dt = CFL * dx / speed
        sh, shu, shv = stage_(h, hu, hv, sh, shu, shv, rh, rhu, rhv, dt)
        rh, rhu, rhv, _ = rates_(sh, shu, shv)
        h, hu, hv = average_(h, hu, hv, sh, shu, shv, rh, rhu, rhv, dt)
        return [h, hu, hv, sh, shu, shv, t + dt]

    # 72 B per interior cell: h, hu, hv read for the wave speed (dt is a global max), then read
    # again and written, the stage recomputed on the fly.
    return [Phase("iteration", a.iters, init, step, min_bytes=72.0 * n * n)]


def results(X, a, c, states):
    n = a.n
    dx = 1.0 / n
    h, hu, hv, t = states["iteration"][0], states["iteration"][1], states["iteration"][2], states["iteration"][6]
    inn = slice(2, n + 2)
    return [("mass", X.item(X.sum(h[inn, inn])) * dx * dx), ("h_max", X.item(X.amax(h[inn, inn]))),
            ("h_min", X.item(X.amin(h[inn, inn]))), ("hu_norm", X.item(X.norm(hu[inn, inn]))),
            ("hv_norm", X.item(X.norm(hv[inn, inn]))), ("time", X.item(t)), ("probe", X.item(h[n // 3 + 2, n // 2 + 2]))]
