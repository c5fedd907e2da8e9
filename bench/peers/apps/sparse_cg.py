"""apps/sparse_cg.py on the peers: CG and BiCGSTAB, fixed iteration counts, on the 2-D Poisson
matrix (the twin's kron(I, T) + kron(T, I), built here as int32 CSR arrays on the host and moved
to the device): scipy.sparse (NumPy), cupyx.scipy.sparse.csr_matrix (CuPy), torch.sparse_csr_tensor
with torch.mv (PyTorch), jax.experimental.sparse BCOO or BCSR (JAX, --jax-sparse). The Matrix
Market system of the twin (--matrix) is not run here."""

from xops import Phase

PROGRAM, TWIN = "tessera-sparse-cg", "sparse_cg.py"
CHECK_ARGS = "--n 12 --iters 8"
GPU_ARGS = "--n 2048 --iters 100"
RTOL = 1e-7  # the inner products and the SpMV's rows sum in the library's order
# torch.compile does not take sparse tensors ("torch.compile does not support sparse Tensors"):
# the vector updates between the SpMVs are compiled, torch.mv runs eagerly between them.
TORCH_COMPILE = "parts"
MAIN = "cg"  # tessera-sparse-cg prints no time; the CG iteration is what docs/BENCHMARKS.md's sparse_cg times


def add_args(p):
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--iters", type=int, default=200)


def poisson_csr(n):
    """The 5-point Laplacian on an n x n grid (4 on the diagonal, -1 to the neighbours inside the
    grid), rows in order, columns sorted: indptr, indices (int32) and data."""
    import numpy as np

    N = n * n
    k = np.arange(N, dtype=np.int64)
    i, j = k // n, k % n
    cols = np.stack([k - n, k - 1, k, k + 1, k + n], 1)
    keep = np.stack([i > 0, j > 0, np.ones(N, dtype=bool), j < n - 1, i < n - 1], 1)
    data = np.broadcast_to(np.array([-1.0, -1.0, 4.0, -1.0, -1.0]), (N, 5))[keep]
    indptr = np.zeros(N + 1, dtype=np.int32)
    np.cumsum(keep.sum(1), out=indptr[1:])
    return indptr, cols[keep].astype(np.int32), np.ascontiguousarray(data)


def matrix(X, a, jax_sparse):
    """The matrix on the device, in the system's sparse format."""
    indptr, indices, data = poisson_csr(a.n)
    N = a.n * a.n
    if X.system.startswith("numpy"):
        import scipy.sparse

        return scipy.sparse.csr_matrix((data, indices, indptr), shape=(N, N))
    if X.system == "cupy":
        import cupyx.scipy.sparse

        return cupyx.scipy.sparse.csr_matrix((X.asarray(data), X.asarray(indices), X.asarray(indptr)), shape=(N, N))
    if X.is_torch:
        torch = X.torch
        return torch.sparse_csr_tensor(X.asarray(indptr), X.asarray(indices), X.asarray(data), size=(N, N),
                                       dtype=torch.float64, device=X.device)
    import numpy as np
    from jax.experimental import sparse

    if jax_sparse == "bcsr":
        return sparse.BCSR((X.asarray(data), X.asarray(indices), X.asarray(indptr)), shape=(N, N),
                           indices_sorted=True, unique_indices=True)
    rows = np.repeat(np.arange(N, dtype=np.int32), np.diff(indptr))
    return sparse.BCOO((X.asarray(data), X.asarray(np.stack([rows, indices], 1))), shape=(N, N),
                       indices_sorted=True, unique_indices=True)


def setup(X, a):
    return [matrix(X, a, a.jax_sparse), 1.0 + X.sin(0.1 * X.arange(a.n * a.n))]


def phases(X, a):
    N = a.n * a.n
    nnz = 5 * N - 4 * a.n

    def product(A, p):
        if X.is_torch:
            return X.torch.mv(A, p)
        return A @ p

    def cg_update(x, r, p, q, rr):
        alpha = rr / X.vdot(p, q)
        x = X.iadd(x, alpha * p)
        r = X.isub(r, alpha * q)
        rr_next = X.vdot(r, r)
        return x, r, r + (rr_next / rr) * p, rr_next

    def bicg_half(r, r_hat, v, rho):
        alpha = rho / X.vdot(r_hat, v)
        return alpha, r - alpha * v

    def bicg_rest(x, r_hat, p, v, s, t, alpha, rho):
        omega = X.vdot(t, s) / X.vdot(t, t)
        x = X.iadd(x, alpha * p + omega * s)
        r = s - omega * t
        rho_next = X.vdot(r_hat, r)
        return x, r, r + ((rho_next / rho) * (alpha / omega)) * (p - omega * v), rho_next

    cg_update_, bicg_half_, bicg_rest_ = X.part(cg_update), X.part(bicg_half), X.part(bicg_rest)

    def cg_init(c):
        b = c[1]
        r = X.copy(b)
        return [X.zeros((N,)), r, X.copy(b), X.vdot(r, r)]  # x, r, p, rr

    def cg_step(st, c):
        x, r, p, rr = st
        return list(cg_update_(x, r, p, product(c[0], p), rr))

    def bicg_init(c):
        b = c[1]
        r = X.copy(b)
        return [X.zeros((N,)), r, X.copy(b), X.vdot(b, r)]  # x, r, p, rho (r_hat = b)

    def bicg_step(st, c):
        A, r_hat = c
        x, r, p, rho = st
        v = product(A, p)
        alpha, s = bicg_half_(r, r_hat, v, rho)
        return list(bicg_rest_(x, r_hat, p, v, s, product(A, s), alpha, rho))

    # docs/BENCHMARKS.md's sparse CG floor: int32 CSR read once (12 B per nonzero, 4 B per row
    # pointer) and CG's vectors (80 B per row).
    return [Phase("cg", a.iters, cg_init, cg_step, min_bytes=12.0 * nnz + 84.0 * N),
            Phase("bicgstab", a.iters, bicg_init, bicg_step)]


def results(X, a, c, states):
    b_norm = X.item(X.norm(c[1]))
    out = []
    for solver in ("cg", "bicgstab"):
        x, r = states[solver][0], states[solver][1]
        out += [(f"poisson_{solver}_residual", X.item(X.norm(r)) / b_norm), (f"poisson_{solver}_x_norm", X.item(X.norm(x)))]
    return out
