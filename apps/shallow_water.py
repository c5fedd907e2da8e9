#!/usr/bin/env python3
"""NumPy twin of shallow_water.cpp (TorchSWE-style central-upwind scheme), same output lines.

The C++ program cuts q[across, along] or q[along, across] by axis; here the y direction is the
x direction on transposed views, which NumPy makes without copying.
"""
import argparse

import numpy as np

G, THETA, CFL, DRY = 9.81, 1.3, 0.25, 1e-10


def walls(h, hu, hv, n):
    for k in range(2):
        for ghost, inner in ((1 - k, 2 + k), (n + 2 + k, n + 1 - k)):
            h[:, ghost], hu[:, ghost], hv[:, ghost] = h[:, inner], -hu[:, inner], hv[:, inner]
    for k in range(2):
        for ghost, inner in ((1 - k, 2 + k), (n + 2 + k, n + 1 - k)):
            h[ghost, :], hu[ghost, :], hv[ghost, :] = h[inner, :], hu[inner, :], -hv[inner, :]


def fluxes(h, qn, qt, n):
    """Fluxes through the faces between columns (x); pass transposes for y."""
    inner = slice(2, n + 2)

    def sides(q):
        dl = q[inner, 1 : n + 3] - q[inner, 0 : n + 2]
        dr = q[inner, 2 : n + 4] - q[inner, 1 : n + 3]
        slope = np.where(
            dl * dr > 0.0,
            np.sign(dl) * np.minimum(np.minimum(THETA * np.abs(dl), 0.5 * np.abs(dl + dr)), THETA * np.abs(dr)),
            0.0,
        )
        return q[inner, 1 : n + 2] + 0.5 * slope[:, 0 : n + 1], q[inner, 2 : n + 3] - 0.5 * slope[:, 1 : n + 2]

    hL, hR = sides(h)
    nL, nR = sides(qn)
    tL, tR = sides(qt)
    uL, uR = np.where(hL > DRY, nL / hL, 0.0), np.where(hR > DRY, nR / hR, 0.0)
    vL, vR = np.where(hL > DRY, tL / hL, 0.0), np.where(hR > DRY, tR / hR, 0.0)
    cL, cR = np.sqrt(G * hL), np.sqrt(G * hR)
    ap = np.maximum(np.maximum(uL + cL, uR + cR), 0.0)
    am = np.minimum(np.minimum(uL - cL, uR - cR), 0.0)

    def upwind(fL, fR, qL, qR):
        return np.where(ap - am > DRY, (ap * fL - am * fR + ap * am * (qR - qL)) / (ap - am), 0.0)

    fh = upwind(nL, nR, hL, hR)
    fn = upwind(nL * uL + 0.5 * G * hL * hL, nR * uR + 0.5 * G * hR * hR, nL, nR)
    ft = upwind(nL * vL, nR * vR, tL, tR)
    return fh, fn, ft, np.max(np.maximum(ap, -am))


def rates(h, hu, hv, n, dx):
    xh, xn, xt, xs = fluxes(h, hu, hv, n)
    yh, yn, yt, ys = (a.T if np.ndim(a) == 2 else a for a in fluxes(h.T, hv.T, hu.T, n))

    def div(fx, fy):
        return -(fx[:, 1:] - fx[:, :-1]) / dx - (fy[1:, :] - fy[:-1, :]) / dx

    return div(xh, yh), div(xn, yt), div(xt, yn), np.maximum(xs, ys)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--check", action="store_true")
    o = p.parse_args()
    n = o.n
    dx = 1.0 / n
    x = (np.arange(n + 4, dtype=np.float64) - 1.5) * dx
    X, Y = x[None, :], x[:, None]
    h = 1.0 + 0.5 * np.exp(-(np.square(X - 0.3) + np.square(Y - 0.4)) / 0.01)
    hu, hv = np.zeros((n + 4, n + 4)), np.zeros((n + 4, n + 4))
    walls(h, hu, hv, n)
    sh, shu, shv = h.copy(), hu.copy(), hv.copy()
    inn = slice(2, n + 2)
    t = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(o.iters):
            rh, rhu, rhv, speed = rates(h, hu, hv, n, dx)
            dt = CFL * dx / speed
            sh[inn, inn] = h[inn, inn] + dt * rh
            shu[inn, inn] = hu[inn, inn] + dt * rhu
            shv[inn, inn] = hv[inn, inn] + dt * rhv
            walls(sh, shu, shv, n)
            rh, rhu, rhv, _ = rates(sh, shu, shv, n, dx)
            h[inn, inn] = 0.5 * (h[inn, inn] + sh[inn, inn] + dt * rh)
            hu[inn, inn] = 0.5 * (hu[inn, inn] + shu[inn, inn] + dt * rhu)
            hv[inn, inn] = 0.5 * (hv[inn, inn] + shv[inn, inn] + dt * rhv)
            walls(h, hu, hv, n)
            t += dt
    print(f"shallow-water: n={n} iters={o.iters}")
    print("mass %.17g" % (np.sum(h[inn, inn]) * dx * dx))
    print("h_max %.17g" % np.max(h[inn, inn]))
    print("h_min %.17g" % np.min(h[inn, inn]))
    print("hu_norm %.17g" % np.linalg.norm(hu[inn, inn]))
    print("hv_norm %.17g" % np.linalg.norm(hv[inn, inn]))
    print("time %.17g" % t)
    print("probe %.17g" % h[n // 3 + 2, n // 2 + 2])


if __name__ == "__main__":
    main()
