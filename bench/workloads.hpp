#pragma once
// The reference workloads of ../shared/DESIGN.md, defined once for tessera-bench (tessera's
// version and the hand-written baseline): inputs, constants, byte models and validation.
// bench/peers/ implements the same definitions in Python.
//
// Inputs are ts::random's values: element i (row-major flat index) of an array made with seed s
// is uniform(s, i), whatever the rank count. The baselines and the peers generate the same
// numbers, so every system solves the same problem and the checksums agree up to rounding.

#include <cstdint>
#include <functional>
#include <vector>

#include <tessera/program/element_ops.hpp>

#include "bench.hpp"

namespace bench {

KOKKOS_INLINE_FUNCTION double uniform(std::uint64_t seed, std::int64_t i) {
  return tessera::detail::element::uniform<double>(seed, static_cast<std::uint64_t>(i));
}

namespace black_scholes {

// cuNumeric's Black-Scholes: rate 0.02, volatility 0.3; S in [5, 30), X in [1, 100), T in
// [0.25, 10). 3 inputs read and 2 outputs written: 40 bytes per option at least.
constexpr double kRate = 0.02, kVolatility = 0.3;
constexpr std::uint64_t kSeedS = 1, kSeedX = 2, kSeedT = 3;
constexpr double kBytesPerOption = 40;

KOKKOS_INLINE_FUNCTION double spot(std::int64_t i) { return uniform(kSeedS, i) * 25.0 + 5.0; }
KOKKOS_INLINE_FUNCTION double strike(std::int64_t i) { return uniform(kSeedX, i) * 99.0 + 1.0; }
KOKKOS_INLINE_FUNCTION double years(std::int64_t i) { return uniform(kSeedT, i) * 9.75 + 0.25; }

// The polynomial approximation of the normal CDF (cuNumeric's, with `where`).
KOKKOS_INLINE_FUNCTION double cnd(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double k = 1.0 / (1.0 + 0.2316419 * TESSERA_KOKKOS_MATH::fabs(d));
  const double tail = 0.39894228040143267793994605993438 * TESSERA_KOKKOS_MATH::exp(-0.5 * d * d) *
                      (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0.0 ? 1.0 - tail : tail;
}

KOKKOS_INLINE_FUNCTION void price(double s, double x, double t, double& call, double& put) {
  const double sqrt_t = TESSERA_KOKKOS_MATH::sqrt(t);
  const double d1 =
      TESSERA_KOKKOS_MATH::log(s / x) + (kRate + 0.5 * kVolatility * kVolatility) * t / (kVolatility * sqrt_t);
  const double d2 = d1 - kVolatility * sqrt_t;
  const double cnd_d1 = cnd(d1), cnd_d2 = cnd(d2);
  const double exp_rt = TESSERA_KOKKOS_MATH::exp(-kRate * t);
  call = s * cnd_d1 - x * exp_rt * cnd_d2;
  put = x * exp_rt * (1.0 - cnd_d2) - s * (1.0 - cnd_d1);
}

// The options `index` priced on the host against the computed call and put values.
Check check_sample(const std::vector<std::int64_t>& index, const std::vector<double>& call,
                   const std::vector<double>& put);

}  // namespace black_scholes

namespace stencil {

// cuNumeric stencil.py on a rows x cols grid: center = 0.2 * (center + north + east + west +
// south) over the interior, in place with NumPy's semantics (every right-hand side value is
// read before any is written), the boundary fixed. At least 16 bytes per interior point.
constexpr std::uint64_t kSeed = 5;
constexpr double kBytesPerPoint = 16;

// The values of global rows [r0, r1) and columns [c0, c1) after the run, row-major, on every
// rank. Collective: every rank calls it with the same blocks in the same order.
using Fetch = std::function<std::vector<double>(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1)>;

// Recomputes `steps` steps on the host in patches around sample points (the middle, the
// corners, and the rows and columns where ranks' tiles meet) and compares every point of a
// patch that no value outside it can have reached. Small grids are one patch: checked whole.
Check check(std::int64_t rows, std::int64_t cols, int steps, int ranks, const Fetch& final_values);

}  // namespace stencil

namespace cg {

// Conjugate gradients on the 2-D Poisson problem: the matrix-free 5-point Laplacian
// (A u = 4u - north - south - west - east) over the interior of a rows x cols grid whose
// boundary is zero; b = uniform(kSeed, i * cols + j) inside; x0 = 0; a fixed number of
// iterations. Byte model: 80 bytes per interior point per iteration, the fewest of the three
// kernels an iteration needs (q = A p with p.q: read p, write q; r -= alpha q with r.r: read r
// and q, write r; x += alpha p and p = r + beta p: read x, p, r, write x and p).
constexpr std::uint64_t kSeed = 9;
constexpr double kBytesPerPoint = 80;
// Grids up to this many points are also compared with a CG on the host.
constexpr std::int64_t kHostPoints = std::int64_t(1) << 18;

KOKKOS_INLINE_FUNCTION double rhs(std::int64_t i, std::int64_t j, std::int64_t cols) {
  return uniform(kSeed, i * cols + j);
}

struct Final {
  double rr0 = 0;        // ||b||^2
  double rr = 0;         // ||r||^2 by the recurrence, after the run
  double rr_true = 0;    // ||b - A x||^2 computed afresh from x by the system
  double energy = 0;     // phi(x) = x.A x / 2 - b.x = -(b.x + (b - A x).x) / 2; phi(0) = 0
  double conjugacy = 0;  // p.q / (|p| |q|): the last direction against A times the one before
  stencil::Fetch x, r;   // blocks of the final x and r (collective)
};

// After `steps` iterations on `ranks` ranks:
// - the recurrence's ||r||^2 matches the system's fresh ||b - A x||^2;
// - the energy phi(x), which CG decreases at every iteration (unlike ||r||: with this b, ||r||
//   grows over the first dozens of iterations), is below phi(0) = 0;
// - consecutive directions are A-conjugate (a wrong beta breaks this at any size);
// - r = b - A x pointwise on the host, in patches where ranks' tiles meet (x and r read back
//   through the gather, not through the halo code the kernels use);
// - grids up to kHostPoints match a CG on the host (the same iterations in the same order).
Check check(std::int64_t rows, std::int64_t cols, int steps, int ranks, const Final& f);

}  // namespace cg

namespace sparse_cg {

// cg's problem with an explicit matrix: the 2-D Poisson 5-point matrix (4 on the diagonal, -1
// for each of the four neighbours inside the grid) over the rows x cols unknowns of cg's interior,
// numbered row-major, in CSR; b, x0 = 0 and the iterations are cg's, so `sparse_cg --n c --rows r`
// solves the problem of `cg --n c+2 --rows r+2` and the checksums (||r||^2 after the run) agree up
// to rounding. Byte model (the floor, per iteration): the matrix once, 8 B per value and 4 B per
// column index (int32, as the GPU peers store it) and 4 B per row pointer, plus cg's 80 B per
// unknown for the vectors (q = A p with p.q: read p, write q; then cg's two kernels).
constexpr double kBytesPerNonzero = 12, kBytesPerRow = 4 + cg::kBytesPerPoint;

inline std::int64_t nonzeros(std::int64_t rows, std::int64_t cols) { return 5 * rows * cols - 2 * rows - 2 * cols; }
inline double min_bytes(std::int64_t rows, std::int64_t cols) {
  return kBytesPerNonzero * static_cast<double>(nonzeros(rows, cols)) + kBytesPerRow * static_cast<double>(rows * cols);
}

// Rows [lo, hi) of the matrix: indptr local (hi - lo + 1 entries from 0), global column indices in
// ascending order.
void poisson_rows(std::int64_t rows, std::int64_t cols, std::int64_t lo, std::int64_t hi,
                  std::vector<std::int64_t>& indptr, std::vector<std::int64_t>& indices, std::vector<double>& values);

}  // namespace sparse_cg

namespace jacobi {

// cuPyNumeric's dense Jacobi (examples/jacobi.py): A = rand(n, n) + n I (diagonally dominant),
// b = rand(n), x0 = 0, R = A - diag(diag(A)), then x = (b - R @ x) / diag(A) per iteration. The
// floor is reading R once: 8 n^2 bytes (the vectors add 32 n).
constexpr std::uint64_t kSeedA = 19, kSeedB = 20;
KOKKOS_INLINE_FUNCTION double a(std::int64_t n, std::int64_t i, std::int64_t j) {
  return uniform(kSeedA, i * n + j) + (i == j ? static_cast<double>(n) : 0.0);
}
inline double min_bytes(std::int64_t n) { return 8.0 * static_cast<double>(n) * static_cast<double>(n + 4); }

// x_next = (b - R x) / d at the rows `index`, on the host from the formulas, against the computed
// x_next (x whole, x_next at those rows).
Check check_rows(std::int64_t n, const std::vector<std::int64_t>& index, const std::vector<double>& x,
                 const std::vector<double>& x_next);

}  // namespace jacobi

namespace gemm {

// C = A @ B for n x n matrices of ts::random's values (seeds 21 and 22): 2 n^3 flops, and at least
// A and B read and C written once (24 n^2 bytes).
constexpr std::uint64_t kSeedA = 21, kSeedB = 22;
inline double flops(std::int64_t n) {
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
}

// C's entries at (rows[k], cols[k]) recomputed on the host.
Check check_entries(std::int64_t n, const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& cols,
                    const std::vector<double>& got);

}  // namespace gemm

namespace logreg {

// cuPyNumeric's logistic regression (examples/logreg.py), n samples of kFeatures features:
// X = rand(n, F), y = rand(n) (the targets need not be labels: the benchmark does not need it to
// converge, as cuPyNumeric's says), w0 = 0, and per step
//   scores = X @ w; error = y - 1 / (1 + exp(-scores)); w += (kRate / n) * (error @ X).
// The floor is reading X once per step, 8 n F bytes, plus y (8 n): one pass can do the whole step.
constexpr std::int64_t kFeatures = 32;
constexpr std::uint64_t kSeedX = 23, kSeedY = 24;
constexpr double kRate = 1.0;
inline double min_bytes(std::int64_t n) { return 8.0 * static_cast<double>(n) * (kFeatures + 1); }
// Problems up to this many elements of X are also run on the host.
constexpr std::int64_t kHostElements = std::int64_t(1) << 22;

// `steps` steps on the host from w0 = 0: the weights.
std::vector<double> host_weights(std::int64_t n, int steps);

}  // namespace logreg

}  // namespace bench
