"""A Lax-Wendroff step of the shallow-water equations on the peers, as tessera-bench shallow_water
defines it (bench/array_workloads.cpp, Moler's water wave): (n+2)^2 grids H = 1 + 0.1 u1,
U = 0.01 (u2 - 0.5), V = 0.01 (u3 - 0.5) of ts::random's values (seeds 16, 17, 18); each
iteration sets the reflective boundaries, then the half steps in x and y, then updates the
interior of H, U, V in place (JAX returns them and donates the old ones). g 9.8, dt 0.02,
dx = dy = 1. Checked at the middle point against a NumPy recomputation of the square that reaches
it (unvalidated when the boundaries could reach it); 48 bytes per interior point at least (H, U,
V read and written). The checksum is the sum of H.

    python3 bench/peers/shallow_water.py --system jax,cupy,torch,torch-compile --n 8192 --iters 20 --json
"""

import sys

import common

G, DT, DX, DY = 9.8, 0.02, 1.0, 1.0
G2, CX, CY, FX, FY = G / 2, DT / (2 * DX), DT / (2 * DY), DT / DX, DT / DY
SEED_H, SEED_U, SEED_V = 16, 17, 18
ALL, IN, HI, LO = slice(None), slice(1, -1), slice(1, None), slice(0, -1)


def reflect(H, U, V, n, put):
    """The reflective boundaries in tessera-bench's order: columns first, then rows (the corners
    take the rows' values). put(a, index, value) writes and returns the array."""
    for j, k in ((0, 1), (n + 1, n)):
        H, U, V = put(H, (ALL, j), H[:, k]), put(U, (ALL, j), U[:, k]), put(V, (ALL, j), -V[:, k])
    for i, k in ((0, 1), (n + 1, n)):
        H, U, V = put(H, (i, ALL), H[k, :]), put(U, (i, ALL), -U[k, :]), put(V, (i, ALL), V[k, :])
    return H, U, V


def increments(H, U, V):
    """What the step subtracts from the interiors of H, U, V: half steps at i +- 1/2 and j +- 1/2."""
    Hs, Hn, Us, Un, Vs, Vn = H[HI, IN], H[LO, IN], U[HI, IN], U[LO, IN], V[HI, IN], V[LO, IN]
    Hx = 0.5 * (Hs + Hn) - CX * (Us - Un)
    Ux = 0.5 * (Us + Un) - CX * ((Us * Us / Hs + G2 * Hs * Hs) - (Un * Un / Hn + G2 * Hn * Hn))
    Vx = 0.5 * (Vs + Vn) - CX * (Us * Vs / Hs - Un * Vn / Hn)
    He, Hw, Ue, Uw, Ve, Vw = H[IN, HI], H[IN, LO], U[IN, HI], U[IN, LO], V[IN, HI], V[IN, LO]
    Hy = 0.5 * (He + Hw) - CY * (Ve - Vw)
    Uy = 0.5 * (Ue + Uw) - CY * (Ve * Ue / He - Vw * Uw / Hw)
    Vy = 0.5 * (Ve + Vw) - CY * ((Ve * Ve / He + G2 * He * He) - (Vw * Vw / Hw + G2 * Hw * Hw))
    s, n, e, w = (HI, ALL), (LO, ALL), (ALL, HI), (ALL, LO)
    dH = FX * (Ux[s] - Ux[n]) + FY * (Vy[e] - Vy[w])
    dU = (FX * ((Ux[s] * Ux[s] / Hx[s] + G2 * Hx[s] * Hx[s]) - (Ux[n] * Ux[n] / Hx[n] + G2 * Hx[n] * Hx[n])) +
          FY * (Vy[e] * Uy[e] / Hy[e] - Vy[w] * Uy[w] / Hy[w]))
    dV = (FX * (Ux[s] * Vx[s] / Hx[s] - Ux[n] * Vx[n] / Hx[n]) +
          FY * ((Vy[e] * Vy[e] / Hy[e] + G2 * Hy[e] * Hy[e]) - (Vy[w] * Vy[w] / Hy[w] + G2 * Hy[w] * Hy[w])))
    return dH, dU, dV


def put_in_place(a, index, value):
    a[index] = value
    return a


def step_in_place(n):
    def step(H, U, V):
        reflect(H, U, V, n, put_in_place)
        dH, dU, dV = increments(H, U, V)
        for a, d in ((H, dH), (U, dU), (V, dV)):
            inner = a[IN, IN]  # through a view: no copy back
            inner -= d

    return step


def step_functional(n):
    def step(H, U, V):
        H, U, V = reflect(H, U, V, n, lambda a, index, value: a.at[index].set(value))
        dH, dU, dV = increments(H, U, V)
        return tuple(a.at[IN, IN].set(a[IN, IN] - d) for a, d in ((H, dH), (U, dU), (V, dV)))

    return step


def host_point(n, p, steps):
    """H, U, V at (p, p) after `steps` steps, with NumPy on the square of radius steps + 1 around it
    (no boundaries: they cannot reach it), written in flux form apart from increments() so that
    each checks the other."""
    np = common.numpy()
    r = steps + 1
    i = np.arange(p - r, p + r + 1, dtype=np.uint64)
    index = i[:, None] * np.uint64(n + 2) + i[None, :]
    q = np.stack([1.0 + 0.1 * common.uniform_of(np, SEED_H, index),
                  0.01 * (common.uniform_of(np, SEED_U, index) - 0.5),
                  0.01 * (common.uniform_of(np, SEED_V, index) - 0.5)])
    F = lambda q: np.stack([q[1], q[1] * q[1] / q[0] + G2 * q[0] * q[0], q[1] * q[2] / q[0]])
    G_ = lambda q: np.stack([q[2], q[2] * q[1] / q[0], q[2] * q[2] / q[0] + G2 * q[0] * q[0]])
    for _ in range(steps):
        s, nn, e, w = q[:, 1:, 1:-1], q[:, :-1, 1:-1], q[:, 1:-1, 1:], q[:, 1:-1, :-1]
        qx = 0.5 * (s + nn) - CX * (F(s) - F(nn))
        qy = 0.5 * (e + w) - CY * (G_(e) - G_(w))
        q[:, 1:-1, 1:-1] -= FX * (F(qx[:, 1:, :]) - F(qx[:, :-1, :])) + FY * (G_(qy[:, :, 1:]) - G_(qy[:, :, :-1]))
    return [float(v) for v in q[:, r, r]]


def run(o, env):
    n = o.n
    m = n + 2
    state = [1.0 + 0.1 * env.uniform(SEED_H, (m, m)),
             0.01 * (env.uniform(SEED_U, (m, m)) - 0.5),
             0.01 * (env.uniform(SEED_V, (m, m)) - 0.5)]
    if env.functional:
        f = env.compile(step_functional(n), donate=(0, 1, 2))

        def step():
            state[:] = f(*state)
    else:
        f = env.compile(step_in_place(n))

        def step():
            f(*state)

    ms, ms_min = common.measure(o, step, lambda: env.sync(*state))
    steps, p = o.warmup + o.iters, m // 2
    ok, validated = True, not (p - steps - 1 < 1 or p + steps + 1 > n)
    detail = "not validated: the grid is too small for a sample that the boundaries cannot reach"
    if validated:
        want = host_point(n, p, steps)
        got = [float(env.host(a[p : p + 1, p : p + 1])[0, 0]) for a in state]
        ok = all(abs(x - y) <= 1e-10 * max(1.0, abs(y)) for x, y in zip(got, want))
        detail = (f"H, U, V at the middle match NumPy after {steps} steps" if ok
                  else f"H U V at the middle: {got}, NumPy says {want}")
    rec = common.record(o, env, ms, ms_min, 48.0 * n * n, ok, detail, float(state[0].sum()))
    if ok and not validated:
        rec["check"] = "unvalidated"
    return rec


if __name__ == "__main__":
    sys.exit(common.main(common.parse("shallow_water", 256, 20, grid=False, n_help="interior points per side"), run))
