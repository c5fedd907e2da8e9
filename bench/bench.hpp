#pragma once
// What every tessera-bench workload shares: the options, the result of one measurement, and the
// timed loop. A measurement is `warmup` iterations, then `iters` iterations in a few rounds that
// each end by waiting for the device; ms_per_iter is the whole timed loop over iters (the slowest
// rank's), ms_per_iter_min the fastest round. Counters are per iteration of the timed loop.

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace bench {

struct Options {
  std::string workload;
  std::string system = "tessera";  // tessera | expert
  std::int64_t n = 0;              // 1-D: elements; 2-D: columns (and rows unless --rows)
  std::int64_t rows = 0;           // 2-D workloads: rows of the grid (weak scaling: ranks x n)
  int iters = 0;
  // A loop longer than a window (shallow_water: about 120 ops) plans its steady windows, grown to
  // hold an iteration, in its fifth iteration (fusion/window.cpp): warm up past that.
  int warmup = 5;
  bool fusion = true;
  std::string backend = "auto";  // auto | interp | jit (tessera only)
  bool json = false;
};

struct Result {
  double ms_per_iter = 0, ms_per_iter_min = 0;
  double min_bytes_per_iter = 0;  // global: what any implementation must read and write
  double ops_per_iter = 0;        // array operations of tessera's formulation (0: not meaningful)
  double flops_per_iter = 0;      // floating-point operations of the products (0: not reported)
  // Per iteration of the timed loop: kernels and allocations of the busiest rank; bytes and halo
  // bytes summed over the ranks (what the kernels read and wrote; what the ranks received).
  double kernels = 0, allocs = 0, bytes = 0, halo_bytes = 0;
  double plan_cache_hit_rate = std::numeric_limits<double>::quiet_NaN();
  double first_iter_ms = std::numeric_limits<double>::quiet_NaN();  // the first warm-up iteration
  // overhead: the host's time recording the ops (the loop body before its flush), per op
  double record_us_per_op = std::numeric_limits<double>::quiet_NaN();
  double checksum = std::numeric_limits<double>::quiet_NaN();  // comparable across systems
  std::string check = "FAILED";                                // ok | FAILED | unvalidated
  std::string check_detail;
};

// A check outcome: passed, and what was compared (or why it failed).
struct Check {
  bool ok = false;
  bool validated = true;  // false: too large to check on the host (the same on every rank)
  std::string detail;
};

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline bool all_ranks(bool mine) {
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return out != 0;
}

inline double max_over_ranks(double mine) {
  double out = 0;
  MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

inline double sum_over_ranks(double mine) {
  double out = 0;
  MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

inline std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b, c);
  return text;
}

// Runs the warm-up; r.first_iter_ms: its first iteration, sync() included (the slowest rank's):
// with an empty kernel cache, what a cold start costs.
template <class Body, class Sync>
void warm_up(const Options& o, Result& r, Body&& body, Sync&& sync) {
  for (int i = 0; i < o.warmup; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    if (i > 0) continue;
    sync();
    r.first_iter_ms =
        max_over_ranks(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  sync();
}

// Times o.iters calls of body() in up to 5 rounds, each ended by sync() (which waits for the
// device) and a barrier, and fills r.ms_per_iter and r.ms_per_iter_min. Lazy systems (tessera's
// op window, CUDA streams) run ahead inside a round, as they would in an application. Rank 0
// reports progress on stderr once a run takes longer than two seconds.
template <class Body, class Sync>
void time_rounds(const Options& o, Result& r, Body&& body, Sync&& sync) {
  using clock = std::chrono::steady_clock;
  const int rounds = std::min(o.iters, 5);
  std::vector<double> round_ms(rounds), round_iters(rounds);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = clock::now();
  int done = 0;
  for (int k = 0; k < rounds; ++k) {
    const int count = static_cast<int>(static_cast<std::int64_t>(o.iters) * (k + 1) / rounds) - done;
    const auto t0 = clock::now();
    for (int i = 0; i < count; ++i) body();
    sync();
    MPI_Barrier(MPI_COMM_WORLD);  // rounds end together: every rank's round times add up to its total
    round_ms[k] = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    round_iters[k] = count;
    done += count;
    const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
    if (world_rank() == 0 && elapsed > 2.0)
      std::fprintf(stderr, "[tessera-bench] %s %s: %d/%d iterations, %.1f s\n", o.workload.c_str(), o.system.c_str(),
                   done, o.iters, elapsed);
  }
  const double total = std::chrono::duration<double, std::milli>(clock::now() - start).count();
  std::vector<double> slowest(rounds);
  MPI_Allreduce(round_ms.data(), slowest.data(), rounds, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  r.ms_per_iter = max_over_ranks(total) / o.iters;
  r.ms_per_iter_min = std::numeric_limits<double>::infinity();
  for (int k = 0; k < rounds; ++k) r.ms_per_iter_min = std::min(r.ms_per_iter_min, slowest[k] / round_iters[k]);
}

// The per-iteration counters of a run, from this rank's totals over the timed loop.
inline void set_counters(Result& r, const Options& o, double kernels, double allocs, double bytes, double halo_bytes) {
  r.kernels = max_over_ranks(kernels) / o.iters;
  r.allocs = max_over_ranks(allocs) / o.iters;
  r.bytes = sum_over_ranks(bytes) / o.iters;
  r.halo_bytes = sum_over_ranks(halo_bytes) / o.iters;
}

// Every rank's check, combined: ok only if all ranks passed; the detail is rank 0's, or that of
// the first rank that failed.
inline void set_check(Result& r, const Check& mine) {
  const bool ok = all_ranks(mine.ok);
  int rank = world_rank(), first_bad = 0, candidate = mine.ok ? std::numeric_limits<int>::max() : rank;
  MPI_Allreduce(&candidate, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  std::string detail = mine.detail;
  if (!ok && first_bad != 0) {
    int length = static_cast<int>(detail.size());
    MPI_Bcast(&length, 1, MPI_INT, first_bad, MPI_COMM_WORLD);
    detail.resize(static_cast<std::size_t>(length));
    MPI_Bcast(detail.data(), length, MPI_CHAR, first_bad, MPI_COMM_WORLD);
    detail = "rank " + std::to_string(first_bad) + ": " + detail;
  }
  r.check = !ok ? "FAILED" : mine.validated ? "ok" : "unvalidated";
  r.check_detail = detail;
}

}  // namespace bench
