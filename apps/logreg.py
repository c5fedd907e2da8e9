#!/usr/bin/env python3
"""NumPy twin of logreg.cpp: cuPyNumeric's logreg.py on data from index formulas."""
import argparse

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def log_likelihood(features, target, weights):
    scores = np.dot(features, weights)
    return np.sum(target * scores - (np.maximum(scores, 0.0) + np.log(1.0 + np.exp(-np.abs(scores)))))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=10000)
    p.add_argument("--features", type=int, default=32)
    p.add_argument("--iters", type=int, default=1000)
    p.add_argument("--intercept", action="store_true")
    p.add_argument("--check", action="store_true")
    o = p.parse_args()
    i, j = np.arange(o.n, dtype=np.float64)[:, None], np.arange(o.features, dtype=np.float64)[None, :]
    X = 2.0 * np.sin(0.5 + 0.37 * i + 1.31 * j)
    y = ((np.arange(o.n) * 37) % 7 < 3).astype(np.float64)
    if o.intercept:
        X = np.hstack((np.ones((o.n, 1)), X))
    w = np.zeros(X.shape[1])
    for _ in range(o.iters):
        scores = np.dot(X, w)
        error = y - sigmoid(scores)
        w += 1e-5 * np.dot(error, X)
    print(f"logreg: n={o.n} features={o.features} iters={o.iters}")
    for name, value in (
        ("w_norm", np.linalg.norm(w)),
        ("w_sum", np.sum(w)),
        ("w_first", w[0]),
        ("likelihood", log_likelihood(X, y, w)),
    ):
        print("%s %.17g" % (name, value))


if __name__ == "__main__":
    main()
