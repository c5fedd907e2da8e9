"""CG with the 2-D Poisson matrix in CSR on the peers, as tessera-bench sparse_cg defines it
(bench/workloads.hpp): the 5-point matrix over the rows x cols unknowns of cg's interior,
numbered row-major, int32 column indices; b = the interior of cg's random grid (seed 9), x0 = 0,
cg's iterations with no host synchronization inside. CuPy: cupyx.scipy.sparse.csr_matrix
(cuSPARSE's SpMV); PyTorch: a sparse CSR tensor (cuSPARSE), torch.compile where it can trace it;
JAX: jax.experimental.sparse.BCSR. Checked as tessera-bench checks it: the recurrence's ||r||^2
against a fresh ||b - A x||^2, the energy below phi(0) = 0, and small grids against NumPy's CG
of cg.py (sparse_cg --n c --rows r solves cg --n c+2 --rows r+2).

    python3 bench/peers/sparse_cg.py --system cupy,torch,jax --n 4096 --iters 50 --json
"""

import sys

import cg
import common

SEED = cg.SEED


def poisson(rows, cols):
    """indptr, indices (int32) and values of the matrix, built with NumPy."""
    np = common.numpy()
    k = np.arange(rows * cols, dtype=np.int64)
    i, j = k // cols, k % cols
    columns = np.stack([k - cols, k - 1, k, k + 1, k + cols], axis=1)
    present = np.stack([i > 0, j > 0, np.ones_like(i, dtype=bool), j < cols - 1, i < rows - 1], axis=1)
    values = np.broadcast_to(np.array([-1.0, -1.0, 4.0, -1.0, -1.0]), columns.shape)
    indptr = np.concatenate([[0], np.cumsum(present.sum(axis=1))]).astype(np.int32)
    return indptr, columns[present].astype(np.int32), np.ascontiguousarray(values[present])


def matrix(env, rows, cols):
    indptr, indices, values = poisson(rows, cols)
    shape = (rows * cols, rows * cols)
    if env.system == "cupy":
        import cupy as cp
        import cupyx.scipy.sparse as cps

        return cps.csr_matrix((cp.asarray(values), cp.asarray(indices), cp.asarray(indptr)), shape=shape)
    if env.system.startswith("torch"):
        import torch

        to = lambda a: torch.from_numpy(a).cuda()
        return torch.sparse_csr_tensor(to(indptr), to(indices), to(values), size=shape)
    if env.system.startswith("jax"):
        import jax.numpy as jnp
        from jax.experimental import sparse

        return sparse.BCSR((jnp.asarray(values), jnp.asarray(indices), jnp.asarray(indptr)), shape=shape)
    import scipy.sparse

    return scipy.sparse.csr_matrix((values, indices, indptr), shape=shape)


def step_in_place(A, x, r, p, rr):
    q = A @ p
    alpha = rr / (p * q).sum()
    x += alpha * p
    r -= alpha * q
    rr_new = (r * r).sum()
    p *= rr_new / rr
    p += r
    return rr_new


def step_functional(A, x, r, p, rr):
    q = A @ p
    alpha = rr / (p @ q)
    x = x + alpha * p
    r = r - alpha * q
    rr_new = r @ r
    return x, r, r + (rr_new / rr) * p, rr_new


def run(o, env):
    rows, cols = o.rows, o.n
    size = rows * cols
    if env.system == "torch-compile":
        raise common.Skip("torch.compile does not trace sparse CSR tensors (torch eager is measured)")
    A = matrix(env, rows, cols)
    b = env.uniform(SEED, (rows + 2, cols + 2))[1:-1, 1:-1].reshape(size)
    if not env.functional:
        b = env.copy(b)
    x, r, p = env.zeros((size,)), env.copy(b), env.copy(b)
    rr0 = (r * r).sum()
    state = [x, r, p, rr0]
    if env.functional:
        f = env.compile(step_functional, donate=(1, 2, 3))

        def step():
            state[:] = f(A, *state)
    else:

        def step():
            state[3] = step_in_place(A, *state)

    ms, ms_min = common.measure(o, step, lambda: env.sync(*state))
    x, r, p, rr = state
    rr, rr0 = float(rr), float(rr0)
    res = b - A @ x
    rr_true = float((res * res).sum())
    energy = -0.5 * (float((x * b).sum()) + float((x * res).sum()))
    drift = abs(rr - rr_true) / max(rr0, rr_true)
    steps = o.warmup + o.iters
    detail = (f"||r||^2 {rr0:.6e} -> {rr:.6e} after {steps} iterations, recomputed {rr_true:.6e} "
              f"(rel. diff {drift:.1e}), energy {energy:.6e}")
    ok = drift <= 1e-8 and energy < 0
    if ok and (rows + 2) * (cols + 2) <= cg.HOST_POINTS:
        xh, rrh = cg.host_cg(rows + 2, cols + 2, steps)
        np = common.numpy()
        dx = float(np.abs(env.host(x) - xh[1:-1, 1:-1].reshape(size)).max() / np.abs(xh).max())
        drr = abs(rr - rrh) / max(rr0, rrh)
        detail += f"; NumPy CG: max|x - x_host|/max|x_host| {dx:.1e}, ||r||^2 rel. diff {drr:.1e}"
        ok = dx <= 1e-8 and drr <= 1e-10
    nonzeros = 5 * rows * cols - 2 * rows - 2 * cols
    return common.record(o, env, ms, ms_min, 12.0 * nonzeros + 84.0 * size, ok, detail, rr)


if __name__ == "__main__":
    sys.exit(common.main(common.parse("sparse_cg", 256, 50, grid=True), run))
