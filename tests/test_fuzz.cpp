// Differential fuzz test. Random array programs, generated from a seed, run three ways:
//   (a) tessera with fusion on (ts::Config::fusion = true, a window size picked per program),
//   (b) tessera with fusion off (every op eager),
//   (c) a serial host reference: a small NumPy-semantics emulator written here (host arrays with
//       shapes; views as affine maps into a shared base: slices with steps, integer indices, new
//       axes, views of views), with NumPy's broadcasting and promotion rules (NEP 50 weak C++
//       scalars), integer wraparound, true division, bool or/and, NaN-propagating maximum/minimum,
//       Python's remainder, bitwise ops, NumPy's signed zeros, reductions along an axis (keepdims;
//       argmin/argmax: first occurrence, NaN first) and the shape operations.
// and are compared at checkpoints (to_host() / item()): integers and bools exactly, float64 within
// 1e-12 and float32 within 1e-5, relative to max(1, |reference|).
//
// A program is a sequence of steps over a pool of kSlots named handles v0..v7 (1-D to 3-D arrays
// of small odd shapes, some with fewer rows than ranks, 0-d arrays from reductions, and views):
// creation, expression trees bound to a handle (arithmetic, %, & | ^ ~, comparisons, where, clip,
// math functions, casts, transpose, roll, concatenate / hstack / vstack, rarely reshape), views
// (ts::slice with steps, integer indices, ts::newaxis, in any combination), operands that
// broadcast by NumPy's rules (stretched axes, missing leading axes, 0-d views such as v0(3, -1)),
// assign / += -= *= /= %= &= |= ^= into any such view (also overlapping ones whose right-hand side
// reads shifted or strided views of the target), reductions over everything feeding later ops as
// 0-d scalars, reductions along an axis (sum prod min max mean argmin argmax count_nonzero, with
// keepdims, negative axes), float64 products (ts::matmul: matvec, vecmat, GEMM, the 1-D inner
// product; the SpMV ts::matmul(A, x) by a small random CsrMatrix made once per program with
// csr_from_host) whose operands are views or temporaries and whose results feed later
// elementwise ops, in-place updates and reductions, dropped handles, and checks.
//
// The generator only emits steps that the reference accepts: it evaluates each proposal on the
// reference first and rejects it if it would be undefined (integer overflow beyond 2^40, a float
// cast to an integer out of range, NaN or inf not introduced deliberately) or numerically fragile.
// For that the reference tracks, per element, a bound on how far any correct implementation may
// differ (0 = bit-exact: the value only went through correctly rounded operations that cannot be
// contracted); a comparison, a where() condition or a float->int cast whose outcome could flip
// within that bound is rejected, and so is a step after which a bound exceeds a tenth of the
// comparison tolerance.
//
// On a mismatch the failing program is minimized while the mismatch persists (the prefix up to
// the failing check, then dropping chunks and single steps, aliases, slices, generated data and
// subexpressions; every decision rests on to_host() results, identical on all ranks, and is agreed
// with an MPI_Allreduce) and printed as pseudo-code with the seed.
//
// Besides random expressions, programs contain idioms: stencils and Jacobi sweeps between two
// arrays (halo exchanges, rule 2), x = x - mean(x) and x -= mean(x, 1, true), alpha = vdot/norm;
// y += alpha * z, k-means' argmin(sum(square(P(:, newaxis, :) - C(newaxis, :, :)), 2), 1),
// reflective boundaries a(0) = a(1), red-black updates a(1:-1:2) = f(a(0:-2:2), a(2::2)),
// multigrid transfers through f(0::2, 0::2), periodic stencils with roll, outer products
// x(:, newaxis) * y(newaxis, :), s = 0.5 * (s + transpose(s)), y += A x, vdot(p, A p),
// relaxation sweeps x = (b - A x) * w (rebinding x, or assigning into the x the product reads),
// loops that repeat a body
// (plan-cache hits, sometimes with other constants), handle swaps and moves, and explicit
// flushes. The fused runs use a window size picked per program (3 to 256).
//
// Environment: TESSERA_FUZZ_SEED=<n> replays program <n> only (with TESSERA_FUZZ_PROGRAMS: that
// many programs from seed <n>), TESSERA_FUZZ_PROGRAMS=<n> sets the number of programs,
// TESSERA_FUZZ_WINDOW=<n> sets the fused runs' window (default: picked per program),
// TESSERA_FUZZ_PRINT=1 prints every generated program, TESSERA_FUZZ_DEBUG=1 traces the minimizer
// and prints each rank's exceptions.
//
// The parts: fuzz/program.hpp (the representation and its printing), fuzz/reference.hpp (the
// host reference), fuzz/generator.hpp, fuzz/runner.hpp (tessera, and comparing checkpoints) and
// fuzz/minimizer.hpp.

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz/generator.hpp"
#include "fuzz/minimizer.hpp"
#include "fuzz/reference.hpp"
#include "fuzz/runner.hpp"

using namespace fuzz;  // the fuzzer's parts (tests/fuzz/)

namespace {

std::string listing(const Program& p) {
  std::vector<Snap> snaps;
  std::vector<std::string> notes;
  std::string why;
  run_reference(p, snaps, &why, &notes);
  std::string out = p.csr.rows > 0 ? "  " + show(p.csr) + "\n" : "";
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    std::string line = "  [" + std::to_string(k) + "] " + show(p.steps[k]);
    if (k < notes.size() && !notes[k].empty()) line += "  // " + notes[k];
    out += line + "\n";
  }
  if (!why.empty()) out += "  (reference rejects: " + why + ")\n";
  return out;
}

// The nodes of an expression that are `op`.
std::int64_t nodes(const Expr& e, Op op) {
  std::int64_t n = e.op == op;
  for (const Expr& k : e.kids) n += nodes(k, op);
  return n;
}

// The product nodes of a program: matmul and SpMV (counted in `spmv`).
std::int64_t products(const Expr& e, std::int64_t& spmv) {
  std::int64_t n = is_product(e.op);
  spmv += e.op == Op::SpMV;
  for (const Expr& k : e.kids) n += products(k, spmv);
  return n;
}

std::optional<std::uint64_t> env_number(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 10);
  if (*end != '\0') throw std::invalid_argument(std::string(name) + "=" + v + ": expected a non-negative integer");
  return static_cast<std::uint64_t>(x);
}

}  // namespace

TEST(Fuzz, FusedUnfusedAndReferenceAgree) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto seed_env = env_number("TESSERA_FUZZ_SEED");
  const auto programs_env = env_number("TESSERA_FUZZ_PROGRAMS");
  const bool print = std::getenv("TESSERA_FUZZ_PRINT") != nullptr;
  const auto window_env = env_number("TESSERA_FUZZ_WINDOW");
  const std::uint64_t first_seed = seed_env ? *seed_env : 1;
  const std::uint64_t programs = programs_env ? *programs_env : seed_env ? 1 : 64;
  const std::int64_t target_ops = 300;  // per program (the reference's count)

  const double t0 = MPI_Wtime();
  Totals fused, unfused;
  std::int64_t checks = 0, steps = 0, product_nodes = 0, spmv_nodes = 0, bincount_nodes = 0;
  int failures = 0;
  for (std::uint64_t k = 0; k < programs; ++k) {
    const std::uint64_t seed = first_seed + k;
    Program p = generate(seed, target_ops);
    if (window_env) p.window = static_cast<int>(*window_env);
    std::vector<Snap> ref;
    std::string why;
    ASSERT_TRUE(run_reference(p, ref, &why))
        << "seed " << seed << ": the generator produced an invalid program: " << why;
    checks += static_cast<std::int64_t>(ref.size());
    steps += static_cast<std::int64_t>(p.steps.size());
    for (const Step& s : p.steps) {
      product_nodes += products(s.rhs, spmv_nodes);
      bincount_nodes += nodes(s.rhs, Op::Bincount);
    }
    if (print && rank == 0)
      std::printf("[fuzz] program seed=%llu\n%s", static_cast<unsigned long long>(seed), listing(p).c_str());
    const Outcome o = check_program(p, ref, fused, unfused);
    if (!o.bad) continue;
    ++failures;
    if (rank == 0) {
      std::printf("[fuzz] MISMATCH in program seed=%llu (replay: TESSERA_FUZZ_SEED=%llu), %zu steps:\n%s",
                  static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed), p.steps.size(),
                  o.detail.c_str());
      std::fflush(stdout);
    }
    std::string minimized = "(not minimized: only the first 2 failures are)";
    if (failures <= 2) {
      Minimizer m;
      const Program small = m.run(p, o.step);
      minimized = "minimized program (" + std::to_string(small.steps.size()) + " steps, " + std::to_string(m.runs) +
                  " runs; fused window " + std::to_string(small.window) + "):\n" + listing(small) +
                  "mismatch of the minimized program:\n" + (m.detail.empty() ? o.detail : m.detail);
    }
    ADD_FAILURE() << "fuzz mismatch in program seed " << seed << " (replay: TESSERA_FUZZ_SEED=" << seed << ")\n"
                  << o.detail << minimized;
  }
  const double elapsed = MPI_Wtime() - t0;
  if (rank == 0) {
    std::printf(
        "[fuzz] %llu programs (seeds %llu..%llu), %lld steps (%lld product nodes, %lld of them SpMV; %lld "
        "bincounts), %lld checkpoints, %d mismatching; %.1f s at np %d\n",
        static_cast<unsigned long long>(programs), static_cast<unsigned long long>(first_seed),
        static_cast<unsigned long long>(first_seed + programs - 1), static_cast<long long>(steps),
        static_cast<long long>(product_nodes), static_cast<long long>(spmv_nodes),
        static_cast<long long>(bincount_nodes), static_cast<long long>(checks), failures, elapsed, size);
    std::printf("[fuzz] tessera, fused (rank 0):   %s\n", fused.str().c_str());
    std::printf("[fuzz] tessera, unfused (rank 0): %s\n", unfused.str().c_str());
  }
  if (!seed_env && !programs_env) {
    EXPECT_GE(fused.ops, 10000);
    EXPECT_GE(unfused.ops, 10000);
    EXPECT_GE(product_nodes, 200);  // the products stay in the mix
    EXPECT_GE(spmv_nodes, 50);
  }
}

// Programs that once failed, replayed at every rank count (each is the generator's program for its
// seed: a change to the generator changes them, so each fix also names what it fixed).
//   20053: at np 2, an epilogue group whose launch domain is a view of extent 1 inside the other
//          rank's tile (an index and a new axis) ran its one row on the rank holding none of it
//          and stored through a null pointer (executor.cpp, the epilogue's outputs).
//   51829: at np 2, an `arange` temporary recomputed in a matvec's epilogue took the row's position
//          in the product's (n, k) domain (planner_groups.cpp, epilogue_refusal; also test_epilogues).
//   60437, 60922: at every rank count, a keepdims reduction's epilogue whose result is tiled in
//          another form than its launch domain (one fixes a grid axis of one coordinate, the other
//          does not) was refused by the executor as "not aligned" (executor.cpp; also
//          test_axis_reductions, KeepdimsEpilogueWrittenWhereItsDomainIs).
TEST(Fuzz, ProgramsThatOnceFailed) {
  for (const std::uint64_t seed : {20053, 51829, 60437, 60922}) {
    const Program p = generate(seed, 300);
    std::vector<Snap> ref;
    std::string why;
    ASSERT_TRUE(run_reference(p, ref, &why)) << "seed " << seed << ": " << why;
    Totals fused, unfused;
    const Outcome o = check_program(p, ref, fused, unfused);
    EXPECT_FALSE(o.bad) << "seed " << seed << ":\n" << o.detail;
  }
}
