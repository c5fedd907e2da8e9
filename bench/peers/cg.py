"""CG on the 2-D Poisson problem on the peers, as tessera-bench cg defines it
(bench/workloads.hpp): the matrix-free 5-point Laplacian over the interior of a rows x cols grid
with a zero boundary; b = ts::random's values (seed 9) inside, x0 = 0; a fixed number of
iterations with no host synchronization inside (alpha and beta stay on the device). The eager
libraries update x, r, p and q in place; JAX returns them and donates the old ones.
Checked as tessera-bench checks it: the recurrence's ||r||^2 against a fresh ||b - A x||^2, the
energy below phi(0) = 0, consecutive directions A-conjugate, r = b - A x on the host in patches
where the devices' tiles meet, and small grids against a NumPy CG. 80 bytes per interior point
per iteration at least.

    python3 bench/peers/cg.py --system jax,cupy,torch --n 8192 --iters 50 --json
"""

import sys

import common

SEED = 9
BYTES_PER_POINT = 80
HOST_POINTS = 1 << 18  # grids up to this size are also compared with a NumPy CG


def inner(a):
    return a[1:-1, 1:-1]


def laplacian(u):
    return 4.0 * u[1:-1, 1:-1] - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]


def step_in_place(x, r, p, q, rr):
    # Updates through views of the interior: no copies back.
    xi, ri, pi, qi = inner(x), inner(r), inner(p), inner(q)
    qi[...] = laplacian(p)
    alpha = rr / (pi * qi).sum()
    xi += alpha * pi
    ri -= alpha * qi
    rr_new = (ri * ri).sum()
    pi[...] = ri + (rr_new / rr) * pi
    return rr_new


def step_functional(x, r, p, rr):
    q = laplacian(p)
    alpha = rr / (inner(p) * q).sum()
    x = x.at[1:-1, 1:-1].add(alpha * inner(p))
    r_in = inner(r) - alpha * q
    rr_new = (r_in * r_in).sum()
    return x, r.at[1:-1, 1:-1].set(r_in), p.at[1:-1, 1:-1].set(r_in + (rr_new / rr) * inner(p)), rr_new


def step_functional_with_q(x, r, p, rr):
    q = laplacian(p)
    return (*step_functional(x, r, p, rr), q)


def host_cg(rows, cols, steps):
    """CG with NumPy on flat vectors, written apart from the steps above so that each checks the
    other."""
    np = common.numpy()
    inside = np.zeros((rows, cols), dtype=bool)
    inside[1:-1, 1:-1] = True
    inside = inside.ravel()
    b = np.where(inside, common.uniform_block(SEED, cols, 0, rows, 0, cols).ravel(), 0.0)

    def apply(v):  # A v on the interior, zero on the boundary
        out = np.zeros_like(v)
        k = np.flatnonzero(inside)
        out[k] = 4.0 * v[k] - v[k - cols] - v[k + cols] - v[k - 1] - v[k + 1]
        return out

    x, r, p = np.zeros_like(b), b.copy(), b.copy()
    rr = r @ r
    for _ in range(steps):
        q = apply(p)
        alpha = rr / (p @ q)
        x += alpha * p
        r -= alpha * q
        rr_new = r @ r
        p = r + (rr_new / rr) * p
        rr = rr_new
    return x.reshape(rows, cols), float(rr)


def run(o, env):
    rows, cols = o.rows, o.n
    b = env.uniform(SEED, (rows, cols))
    if env.functional:
        b = b.at[0, :].set(0.0).at[-1, :].set(0.0).at[:, 0].set(0.0).at[:, -1].set(0.0)
    else:
        b[0, :] = 0.0
        b[-1, :] = 0.0
        b[:, 0] = 0.0
        b[:, -1] = 0.0
    x, r, p = env.zeros((rows, cols)), env.copy(b), env.copy(b)
    rr0 = (inner(r) * inner(r)).sum()
    if env.functional:
        f = env.compile(step_functional, donate=(0, 1, 2))
        state = [x, r, p, rr0]

        def step():
            state[:] = f(*state)
    else:
        f = env.compile(step_in_place)
        q = env.zeros((rows, cols))
        state = [x, r, p, rr0]

        def step():
            state[3] = f(state[0], state[1], state[2], q, state[3])

    ms, ms_min = common.measure(o, step, lambda: env.sync(*state))
    x, r, p, rr = state
    if env.functional:
        # The timed step does not keep q: one more step, untimed and donating nothing (the state
        # checked below stays), gives the next direction and A times this one.
        p, q = env.compile(step_functional_with_q)(*state)[2::2]
    else:
        q = inner(q)
    conjugacy = float((inner(p) * q).sum()) / (float((inner(p) * inner(p)).sum()) * float((q * q).sum())) ** 0.5
    return finish(o, env, b, x, r, float(rr), float(rr0), conjugacy, ms, ms_min)


def finish(o, env, b, x, r, rr, rr0, conjugacy, ms, ms_min):
    """tessera-bench's CG check (bench/workloads.cpp)."""
    np = common.numpy()
    rows, cols, steps = o.rows, o.n, o.warmup + o.iters
    res = inner(b) - laplacian(x)
    rr_true = float((res * res).sum())
    energy = -0.5 * (float((inner(x) * inner(b)).sum()) + float((inner(x) * res).sum()))
    drift = abs(rr - rr_true) / max(rr0, rr_true)
    # r = b - A x pointwise, in patches where the devices' tiles meet, on the host.
    pointwise, where, w = 0.0, "", 4
    for ci in common.samples(rows, env.ranks):
        for cj in common.samples(cols, env.ranks):
            r0, r1, c0, c1 = max(0, ci - w), min(rows, ci + w + 1), max(0, cj - w), min(cols, cj + w + 1)
            xs, rs = env.host(x[r0:r1, c0:c1]), env.host(r[r0:r1, c0:c1])
            bs = common.uniform_block(SEED, cols, r0, r1, c0, c1)
            i0, i1 = max(r0 + 1, 1) - r0, min(r1 - 1, rows - 1) - r0  # interior of patch and grid
            j0, j1 = max(c0 + 1, 1) - c0, min(c1 - 1, cols - 1) - c0
            if i0 >= i1 or j0 >= j1:
                continue
            ax = (4.0 * xs[i0:i1, j0:j1] - xs[i0 - 1:i1 - 1, j0:j1] - xs[i0 + 1:i1 + 1, j0:j1] -
                  xs[i0:i1, j0 - 1:j1 - 1] - xs[i0:i1, j0 + 1:j1 + 1])
            err = np.abs(rs[i0:i1, j0:j1] - (bs[i0:i1, j0:j1] - ax)) / (1.0 + 8.0 * np.abs(xs).max())
            if not err.max() <= pointwise:
                pointwise = float(err.max())
                i, j = np.unravel_index(np.argmax(err), err.shape)
                where = f"({r0 + i0 + i}, {c0 + j0 + j})"
    detail = (f"||r||^2 {rr0:.6e} -> {rr:.6e} after {steps} iterations, recomputed {rr_true:.6e} "
              f"(rel. diff {drift:.1e}), energy {energy:.6e}, conjugacy {conjugacy:.1e}, "
              f"r = b - A x on the host near tile edges to {pointwise:.1e}")
    finite = all(v == v and abs(v) != float("inf") for v in (rr, rr_true, energy, conjugacy, pointwise))
    ok = False
    if not finite:
        detail = "not finite: " + detail
    elif not drift <= 1e-8:
        detail = "recurrence and recomputed residual differ: " + detail
    elif not energy < 0:
        detail = "energy did not decrease: " + detail
    elif not abs(conjugacy) <= 1e-8:
        detail = "consecutive directions not A-conjugate: " + detail
    elif not pointwise <= 1e-10:
        detail = f"r differs from b - A x at {where}: " + detail
    else:
        ok = True
    if ok and rows * cols <= HOST_POINTS:
        xh, rrh = host_cg(rows, cols, steps)
        dx = float(np.abs(env.host(x) - xh).max() / np.abs(xh).max())
        drr = abs(rr - rrh) / max(rr0, rrh)
        detail += f"; NumPy CG: max|x - x_host|/max|x_host| {dx:.1e}, ||r||^2 rel. diff {drr:.1e}"
        ok = dx <= 1e-8 and drr <= 1e-10
        if not ok:
            detail = "differs from the NumPy CG: " + detail
    return common.record(o, env, ms, ms_min, BYTES_PER_POINT * (rows - 2) * (cols - 2), ok, detail, rr)


if __name__ == "__main__":
    sys.exit(common.main(common.parse("cg", 256, 50, grid=True), run))
