#!/usr/bin/env python3
"""NumPy twin of cfd.cpp: the cavity flow of "12 steps to Navier-Stokes", step 11."""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=41)
    ap.add_argument("--iters", type=int, default=500)
    ap.add_argument("--nit", type=int, default=50)
    ap.add_argument("--check", action="store_true")
    o = ap.parse_args()
    n = o.n
    dx = dy = 2.0 / (n - 1)
    rho, nu = 1.0, 0.1
    dt = min(0.001, 0.1 * dx * dx / nu)
    u, v, p, b = (np.zeros((n, n)) for _ in range(4))
    for _ in range(o.iters):
        un, vn = u.copy(), v.copy()
        du_dx = (u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)
        du_dy = (u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy)
        dv_dx = (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)
        dv_dy = (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)
        b[1:-1, 1:-1] = rho * (1 / dt * (du_dx + dv_dy) - np.square(du_dx) - 2 * (du_dy * dv_dx) - np.square(dv_dy))
        for _ in range(o.nit):
            p[1:-1, 1:-1] = ((p[1:-1, 2:] + p[1:-1, 0:-2]) * (dy * dy) + (p[2:, 1:-1] + p[0:-2, 1:-1]) * (dx * dx)) / (
                2 * (dx * dx + dy * dy)
            ) - dx * dx * dy * dy / (2 * (dx * dx + dy * dy)) * b[1:-1, 1:-1]
            p[:, -1] = p[:, -2]
            p[0, :] = p[1, :]
            p[:, 0] = p[:, 1]
            p[-1, :] = 0
        uc, vc = un[1:-1, 1:-1], vn[1:-1, 1:-1]
        u[1:-1, 1:-1] = (
            uc
            - uc * dt / dx * (uc - un[1:-1, 0:-2])
            - vc * dt / dy * (uc - un[0:-2, 1:-1])
            - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
            + nu
            * (
                dt / (dx * dx) * (un[1:-1, 2:] - 2 * uc + un[1:-1, 0:-2])
                + dt / (dy * dy) * (un[2:, 1:-1] - 2 * uc + un[0:-2, 1:-1])
            )
        )
        v[1:-1, 1:-1] = (
            vc
            - uc * dt / dx * (vc - vn[1:-1, 0:-2])
            - vc * dt / dy * (vc - vn[0:-2, 1:-1])
            - dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
            + nu
            * (
                dt / (dx * dx) * (vn[1:-1, 2:] - 2 * vc + vn[1:-1, 0:-2])
                + dt / (dy * dy) * (vn[2:, 1:-1] - 2 * vc + vn[0:-2, 1:-1])
            )
        )
        u[0, :] = 0
        u[:, 0] = 0
        u[:, -1] = 0
        u[-1, :] = 1
        v[0, :] = 0
        v[-1, :] = 0
        v[:, 0] = 0
        v[:, -1] = 0
    m = n // 2
    print(f"cfd: n={n} iters={o.iters} nit={o.nit}")
    for name, value in (
        ("u_norm", np.linalg.norm(u)),
        ("v_norm", np.linalg.norm(v)),
        ("p_norm", np.linalg.norm(p)),
        ("u_mid", u[m, m]),
        ("v_mid", v[m, m]),
        ("p_mid", p[m, m]),
    ):
        print("%s %.17g" % (name, value))


if __name__ == "__main__":
    main()
