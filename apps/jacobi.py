#!/usr/bin/env python3
"""NumPy twin of jacobi.cpp: cuPyNumeric's jacobi.py on a system built from index formulas."""
import argparse

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--check", action="store_true")
    o = p.parse_args()
    n = o.n
    i, j = np.arange(n, dtype=np.float64)[:, None], np.arange(n, dtype=np.float64)[None, :]
    A = 0.5 * (1.0 + np.sin(0.7 * i + 1.3 * j + 0.01 * i * j)) + n * np.eye(n)
    b = 0.5 * (1.0 + np.cos(0.9 * np.arange(n, dtype=np.float64)))
    x = np.zeros(n)
    d = np.diag(A)
    R = A - np.diag(d)
    for _ in range(o.iters):
        x = (b - np.dot(R, x)) / d
    if o.check:
        assert np.allclose(A.dot(x), b)
    print(f"jacobi: n={n} iters={o.iters}")
    for name, value in (("x_sum", np.sum(x)), ("x_norm", np.linalg.norm(x)), ("x_first", x[0]), ("x_last", x[-1])):
        print("%s %.17g" % (name, value))


if __name__ == "__main__":
    main()
