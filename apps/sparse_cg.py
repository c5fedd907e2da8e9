#!/usr/bin/env python3
"""SciPy twin of sparse_cg.cpp: CG and BiCGSTAB, fixed iteration counts, on scipy.sparse CSR matrices."""
import argparse

import numpy as np
import scipy.io
import scipy.sparse as sp


def poisson(n):
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    return (sp.kron(sp.identity(n), t) + sp.kron(t, sp.identity(n))).tocsr()


def cg(A, b, iters):
    x, r, p = np.zeros_like(b), b.copy(), b.copy()
    rr = np.vdot(r, r)
    for _ in range(iters):
        q = A @ p
        alpha = rr / np.dot(p, q)
        x += alpha * p
        r -= alpha * q
        rr_next = np.vdot(r, r)
        p = r + (rr_next / rr) * p
        rr = rr_next
    return x, r


def bicgstab(A, b, iters):
    x, r, r_hat, p = np.zeros_like(b), b.copy(), b.copy(), b.copy()
    rho = np.vdot(r_hat, r)
    for _ in range(iters):
        v = A @ p
        alpha = rho / np.vdot(r_hat, v)
        s = r - alpha * v
        t = A @ s
        omega = np.vdot(t, s) / np.vdot(t, t)
        x += alpha * p + omega * s
        r = s - omega * t
        rho_next = np.vdot(r_hat, r)
        p = r + ((rho_next / rho) * (alpha / omega)) * (p - omega * v)
        rho = rho_next
    return x, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--matrix")
    ap.add_argument("--check", action="store_true")
    o = ap.parse_args()
    systems = [("poisson", poisson(o.n))]
    if o.matrix:
        systems.append(("mtx", sp.csr_matrix(scipy.io.mmread(o.matrix))))
    print(f"sparse-cg: n={o.n} iters={o.iters}")
    for name, A in systems:
        b = 1.0 + np.sin(0.1 * np.arange(A.shape[0], dtype=np.float64))
        for solver, solve in (("cg", cg), ("bicgstab", bicgstab)):
            x, r = solve(A, b, o.iters)
            print("%s_%s_residual %.17g" % (name, solver, np.linalg.norm(r) / np.linalg.norm(b)))
            print("%s_%s_x_norm %.17g" % (name, solver, np.linalg.norm(x)))


if __name__ == "__main__":
    main()
