#pragma once
// Timing a tessera loop: warm-up, timed rounds (bench.hpp), and the per-iteration counters from
// this rank's statistics. Halo bytes include the entries of x that SpMVs receive (image_bytes):
// both are what the ranks received.

#include <tessera/tessera.hpp>

#include "bench.hpp"

namespace bench::tessera_system {

template <class Body>
void measure(tessera::Runtime& rt, const Options& o, Result& r, Body&& body) {
  // The JIT compiles in the background while the warm-up runs the programs on the interpreter;
  // flush() waits for those compiles, so the timed loop measures the steady state, with their
  // code (compile_ms: the compilers' time, reported apart).
  auto sync = [&] { rt.flush(); };
  warm_up(o, r, body, sync);
  const tessera::Stats before = rt.stats();
  time_rounds(o, r, body, sync);
  const tessera::Stats after = rt.stats();
  set_counters(r, o, static_cast<double>(after.kernels - before.kernels),
               static_cast<double>(after.stores_allocated - before.stores_allocated),
               static_cast<double>(after.bytes_accessed - before.bytes_accessed),
               static_cast<double>(after.halo_bytes - before.halo_bytes + after.image_bytes - before.image_bytes));
  const double hits = static_cast<double>(after.plan_cache_hits - before.plan_cache_hits);
  const double lookups = hits + static_cast<double>(after.plan_cache_misses - before.plan_cache_misses);
  r.plan_cache_hit_rate = lookups > 0 ? hits / lookups : 0.0;
}

}  // namespace bench::tessera_system
