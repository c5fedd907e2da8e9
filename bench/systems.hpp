#pragma once
// The systems tessera-bench measures: tessera itself (fused or not, interpreter or JIT, as the
// Runtime was configured) and the hand-written Kokkos baselines (bench/expert/). Every function
// runs warmup and timed iterations, validates the result on every rank and returns the
// measurement; all ranks call it.

#include <tessera/tessera.hpp>

#include "bench.hpp"

namespace bench {

namespace tessera_system {
Result overhead(tessera::Runtime& rt, const Options& o);       // per-op host cost, tiny arrays
Result chain(tessera::Runtime& rt, const Options& o);          // a long elementwise chain
Result stencil(tessera::Runtime& rt, const Options& o);        // cuNumeric stencil.py, in place
Result halo(tessera::Runtime& rt, const Options& o);           // the halo exchange alone
Result black_scholes(tessera::Runtime& rt, const Options& o);  // cuNumeric's Black-Scholes
Result cg(tessera::Runtime& rt, const Options& o);             // CG, 2-D Poisson, 5-point Laplacian
Result sparse_cg(tessera::Runtime& rt, const Options& o);      // the same CG with the matrix in CSR
Result axis_sum(tessera::Runtime& rt, const Options& o);       // sum(A, 1), rows x n
Result center(tessera::Runtime& rt, const Options& o);         // A - mean(A, 0), rows x n
Result kmeans_assign(tessera::Runtime& rt, const Options& o);  // argmin of broadcast distances, n points
Result stencil27(tessera::Runtime& rt, const Options& o);      // cuPyNumeric's 27-point stencil, (n+2)^3
Result shallow_water(tessera::Runtime& rt, const Options& o);  // Lax-Wendroff step, (n+2)^2
Result jacobi(tessera::Runtime& rt, const Options& o);         // cuPyNumeric's dense Jacobi, n x n
Result gemm(tessera::Runtime& rt, const Options& o);           // C = A @ B, n x n
Result logreg(tessera::Runtime& rt, const Options& o);         // cuPyNumeric's logistic regression, n x 32
}  // namespace tessera_system

namespace expert {
Result black_scholes(tessera::Runtime& rt, const Options& o);
Result stencil(tessera::Runtime& rt, const Options& o);
Result cg(tessera::Runtime& rt, const Options& o);
}  // namespace expert

}  // namespace bench
