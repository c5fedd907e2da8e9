#!/usr/bin/env python3
"""Writes diffusion.mtx, the small matrix the sparse_cg test reads (run once; the file is checked in).

A 2-D diffusion operator with a variable coefficient on a 10 x 15 grid (150 unknowns, zero
Dirichlet boundary): row (i, j) couples to its four neighbours through the coefficient at the
face between them, k(x, y) = 1 + 0.8 sin(2.1 x + 1.3 y) at the face's centre, plus 0.05 on the
diagonal. Symmetric positive definite, stored as Matrix Market's `symmetric` (lower triangle).
"""
import math

NX, NY = 10, 15


def k(x, y):
    return 1.0 + 0.8 * math.sin(2.1 * x + 1.3 * y)


def main():
    idx = lambda i, j: i * NY + j  # noqa: E731
    entries = []
    for i in range(NX):
        for j in range(NY):
            diag = 0.05
            for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                c = k(i + 0.5 * di, j + 0.5 * dj)
                diag += c
                a, b = i + di, j + dj
                if 0 <= a < NX and 0 <= b < NY and idx(a, b) < idx(i, j):
                    entries.append((idx(i, j), idx(a, b), -c))
            entries.append((idx(i, j), idx(i, j), diag))
    entries.sort()
    with open("diffusion.mtx", "w") as out:
        out.write("%%MatrixMarket matrix coordinate real symmetric\n")
        out.write("% 2-D variable-coefficient diffusion on a 10 x 15 grid, SPD (apps/data/make_diffusion_mtx.py)\n")
        out.write(f"{NX * NY} {NX * NY} {len(entries)}\n")
        for r, c, v in entries:
            out.write(f"{r + 1} {c + 1} {v:.17g}\n")


if __name__ == "__main__":
    main()
