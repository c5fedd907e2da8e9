#!/usr/bin/env python3
"""NumPy twin of kmeans.cpp: Lloyd's k-means with broadcast distances and bincount updates."""
import argparse

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=100000)
    p.add_argument("--dims", type=int, default=2)
    p.add_argument("--centers", type=int, default=10)
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--check", action="store_true")
    o = p.parse_args()
    C = o.centers
    i, j = np.arange(o.n, dtype=np.float64)[:, None], np.arange(o.dims, dtype=np.float64)[None, :]
    data = 5.0 * np.cos(2.0 * np.pi * (i % C) / C + j) + 0.5 * np.sin(1.7 * i + 0.3 * j)
    centroids = data[0 : 2 * C : 2, :].copy()
    for _ in range(o.iters):
        d2 = np.sum(np.square(data[:, None, :] - centroids[None, :, :]), 2)
        labels = np.argmin(d2, 1)
        distance_sum = np.sum(np.min(d2, 1))
        counts = np.bincount(labels, minlength=C).astype(np.float64)
        sums = np.stack([np.bincount(labels, weights=data[:, d], minlength=C) for d in range(o.dims)], 1)
        centroids = sums / np.maximum(counts, 1.0)[:, None]
    print(f"kmeans: n={o.n} dims={o.dims} centers={C} iters={o.iters}")
    print("distance_sum %.17g" % distance_sum)
    print("centroid_norm %.17g" % np.linalg.norm(centroids))
    print("label_sum %d" % np.sum(labels))
    for k in range(C):
        print("count[%d] %.0f" % (k, counts[k]))


if __name__ == "__main__":
    main()
