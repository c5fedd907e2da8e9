#pragma once
// MemoryPool: a caching allocator over Kokkos memory. Buffers given back are kept by capacity and
// handed out again, so a steady-state loop allocates nothing (cudaMalloc costs tens of µs and
// cudaFree synchronizes the device). Reuse is safe without events because every kernel and
// every NCCL call of tessera is ordered on the one execution-space stream, and the MPI path
// fences before it touches a buffer. On an allocation failure the cache is emptied and the
// allocation retried once.

#include <cstddef>
#include <map>

#include "tessera/core/kokkos_compat.hpp"

namespace tessera::detail {

using Buffer = Kokkos::View<char*, MemSpace>;

class MemoryPool {
 public:
  // A buffer of at least `bytes` (zero-filled if asked); counts a real allocation in `misses`.
  Buffer acquire(std::size_t bytes, const char* label, bool zero, std::int64_t& misses);
  void give_back(Buffer&& buffer);
  void clear();
  std::size_t cached_bytes() const { return cached_bytes_; }

 private:
  std::multimap<std::size_t, Buffer> free_;  // capacity -> buffer
  std::size_t cached_bytes_ = 0;
};

}  // namespace tessera::detail
