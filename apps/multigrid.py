#!/usr/bin/env python3
"""NumPy twin of multigrid.cpp: V-cycles for 2-D Poisson, as a solver and as CG's preconditioner."""
import argparse

import numpy as np

IN, LO, HI = slice(1, -1), slice(0, -2), slice(2, None)


def apply_laplacian(u, out, h):
    out[IN, IN] = (4.0 * u[IN, IN] - u[LO, IN] - u[HI, IN] - u[IN, LO] - u[IN, HI]) / (h * h)


def smooth(L, sweeps):
    u, f, h = L["u"], L["f"], L["h"]
    for _ in range(sweeps):
        u[IN, IN] = 0.2 * u[IN, IN] + 0.8 * 0.25 * (u[LO, IN] + u[HI, IN] + u[IN, LO] + u[IN, HI] + h * h * f[IN, IN])


def restrict_residual(r, coarse):
    c, m, p = slice(2, -2, 2), slice(1, -3, 2), slice(3, -1, 2)
    coarse[IN, IN] = (
        4.0 * r[c, c] + 2.0 * (r[m, c] + r[p, c] + r[c, m] + r[c, p]) + (r[m, m] + r[m, p] + r[p, m] + r[p, p])
    ) / 16.0


def prolong_add(e, u):
    u[0::2, 0::2] += e
    u[1::2, 0::2] += 0.5 * (e[:-1, :] + e[1:, :])
    u[0::2, 1::2] += 0.5 * (e[:, :-1] + e[:, 1:])
    u[1::2, 1::2] += 0.25 * (e[:-1, :-1] + e[:-1, 1:] + e[1:, :-1] + e[1:, 1:])


def vcycle(levels, l):
    L = levels[l]
    if L["n"] == 3:
        L["u"][1, 1] = L["f"][1, 1] * (L["h"] * L["h"] / 4.0)
        return
    smooth(L, 2)
    apply_laplacian(L["u"], L["r"], L["h"])
    L["r"][IN, IN] = L["f"][IN, IN] - L["r"][IN, IN]
    C = levels[l + 1]
    restrict_residual(L["r"], C["f"])
    C["u"][:] = 0.0
    vcycle(levels, l + 1)
    prolong_add(C["u"], L["u"])
    smooth(L, 2)


def relative_residual(u, f, h):
    Au = np.zeros_like(u)
    apply_laplacian(u, Au, h)
    return np.linalg.norm(f[IN, IN] - Au[IN, IN]) / np.linalg.norm(f[IN, IN])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=257)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--check", action="store_true")
    o = ap.parse_args()
    n, iters = o.n, o.iters
    levels, m = [], n
    while m >= 3:
        levels.append({"n": m, "h": 1.0 / (m - 1), "u": np.zeros((m, m)), "f": np.zeros((m, m)), "r": np.zeros((m, m))})
        if m == 3:
            break
        m = (m - 1) // 2 + 1
    h = levels[0]["h"]
    x = np.linspace(0.0, 1.0, n)
    f = 1.0 + np.sin(3.0 * x[:, None] + 2.0 * x[None, :])

    top = levels[0]
    top["f"][:] = f
    for _ in range(iters):
        vcycle(levels, 0)
    mg_residual = relative_residual(top["u"], f, h)
    mg_norm = np.linalg.norm(top["u"])

    def precondition(r):
        top["f"][:] = r
        top["u"][:] = 0.0
        vcycle(levels, 0)
        return top["u"].copy()

    u, q = np.zeros((n, n)), np.zeros((n, n))
    r = f.copy()
    r[0, :] = r[-1, :] = r[:, 0] = r[:, -1] = 0.0
    z = precondition(r)
    p = z.copy()
    rz = np.vdot(r, z)
    for _ in range(iters):
        apply_laplacian(p, q, h)
        alpha = rz / np.vdot(p, q)
        u += alpha * p
        r -= alpha * q
        z = precondition(r)
        rz_next = np.vdot(r, z)
        p = z + (rz_next / rz) * p
        rz = rz_next
    print(f"multigrid: n={n} levels={len(levels)} iters={iters}")
    for name, value in (
        ("mg_residual", mg_residual),
        ("mg_rate", mg_residual ** (1.0 / iters)),
        ("mg_norm", mg_norm),
        ("pcg_residual", relative_residual(u, f, h)),
        ("pcg_norm", np.linalg.norm(u)),
    ):
        print("%s %.17g" % (name, value))


if __name__ == "__main__":
    main()
