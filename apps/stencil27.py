#!/usr/bin/env python3
"""NumPy twin of stencil27.cpp: cuPyNumeric's stencil_27.py with the same output lines."""
import argparse

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--check", action="store_true")  # the C++ program's self-check; nothing here
    o = p.parse_args()
    n = o.n
    grid = np.zeros((n + 2, n + 2, n + 2))
    grid[:, :, 0] = -273.15
    grid[:, 0, :] = -273.15
    grid[0, :, :] = -273.15
    grid[:, :, -1] = 273.15
    grid[:, -1, :] = 273.15
    grid[-1, :, :] = 273.15

    def s(k):
        return slice(0, -2) if k == 0 else slice(1, -1) if k == 1 else slice(2, None)

    g = [[[grid[s(a), s(b), s(c)] for c in range(3)] for b in range(3)] for a in range(3)]
    for _ in range(o.iters):
        rows = [[g[a][b][0] + g[a][b][1] + g[a][b][2] for b in range(3)] for a in range(3)]
        planes = [rows[a][0] + rows[a][1] + rows[a][2] for a in range(3)]
        g[1][1][1][:] = 0.037 * (planes[0] + planes[1] + planes[2])
    print(f"stencil27: n={n} iters={o.iters}")
    print("energy %.17g" % (np.sum(g[1][1][1]) / n**2))
    print("sum %.17g" % np.sum(grid))
    print("norm %.17g" % np.linalg.norm(grid))
    print("middle %.17g" % grid[n // 2 + 1, n // 2 + 1, n // 2 + 1])


if __name__ == "__main__":
    main()
