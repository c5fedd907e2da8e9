#pragma once
// Counters returned by Runtime::stats(): what ran, what moved. Counts are this rank's.

#include <cstdint>
#include <ostream>

namespace tessera {

struct Stats {
  std::int64_t ops = 0;                   // array operations recorded
  std::int64_t kernels = 0;               // kernels launched (fused groups, or one per op unfused)
  std::int64_t buffer_renames = 0;        // in-place writes into a fresh buffer (docs/FUSION.md)
  std::int64_t frame_copies = 0;          // kernels of their own that copied a renamed store's unwritten
                                          // frame over (a copy inside a batch of small kernels is not one)
  std::int64_t halo_exchanges = 0;        // grouped halo exchanges performed
  std::int64_t halo_bytes = 0;            // bytes received into ghost cells
  std::int64_t halo_overlaps = 0;         // of those exchanges, ones that ran behind interior work
  std::int64_t boundary_launches = 0;     // kernels over boundary strips, after an overlapped exchange
  std::int64_t redistributions = 0;       // operands moved to a different tiling
  std::int64_t redistribution_bytes = 0;  // bytes received by redistributions
  std::int64_t image_exchanges = 0;       // exchanges of the entries an image() constraint names (SpMV's x)
  std::int64_t image_bytes = 0;           // bytes received by them
  std::int64_t allreduces = 0;            // reductions completed across ranks
  std::int64_t gathers = 0;               // to_host() calls
  std::int64_t stores_allocated = 0;      // device allocations: memory-pool misses, program images (on every build)
  std::int64_t bytes_accessed =
      0;  // bytes the kernels read and wrote: each argument over the launch tile, a broadcast operand once
  std::int64_t plan_cache_hits = 0;
  std::int64_t plan_cache_misses = 0;
  std::int64_t kernel_cache_hits = 0;  // JIT: compiled kernels found in memory or on disk
  std::int64_t kernel_disk_hits = 0;   // JIT: of those, read from TESSERA_CACHE_DIR
  std::int64_t kernel_compiles = 0;    // JIT: kernels compiled by NVRTC (cache misses)
};

std::ostream& operator<<(std::ostream& out, const Stats& s);

}  // namespace tessera
