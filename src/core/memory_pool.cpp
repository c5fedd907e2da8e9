#include "tessera/core/memory_pool.hpp"

#include <mpi.h>

#include <string>

#include "tessera/core/error.hpp"

namespace tessera::detail {
namespace {

// Capacities are powers of two from 256 bytes: a freed buffer serves any request of its class.
std::size_t capacity_for(std::size_t bytes) {
  std::size_t c = 256;
  while (c < bytes) c <<= 1;
  return c;
}

}  // namespace

Buffer MemoryPool::acquire(std::size_t bytes, const char* label, bool zero, std::int64_t& misses) {
  if (bytes == 0) return Buffer();
  const std::size_t capacity = capacity_for(bytes);
  Buffer b;
  auto it = free_.find(capacity);
  if (it != free_.end()) {
    b = std::move(it->second);
    free_.erase(it);
    cached_bytes_ -= capacity;
  } else {
    ++misses;
    for (int attempt = 0; attempt < 2 && !b.data(); ++attempt) {
      try {
        b = Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), capacity);
      } catch (const std::exception& e) {
        if (attempt == 0 && cached_bytes_ > 0) {
          clear();
          continue;
        }
        // Only this rank knows: the others would wait for it in the next exchange. Sizes that can
        // never fit are errors on every rank before anything is allocated (balanced_tiling).
        int rank = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fatal(concat("out of memory: rank ", rank, " could not allocate ", bytes, " bytes",
                     capacity != bytes ? concat(" (", capacity, " with the pool's rounding)") : std::string(),
                     " in the memory space ", MemSpace::name(), " for ", label, ": ", e.what()));
      }
    }
  }
  if (zero) Kokkos::deep_copy(ExecSpace(), Kokkos::subview(b, std::make_pair(std::size_t(0), bytes)), char(0));
  return b;
}

void MemoryPool::give_back(Buffer&& buffer) {
  if (!buffer.data()) return;
  const std::size_t capacity = buffer.extent(0);
  cached_bytes_ += capacity;
  free_.emplace(capacity, std::move(buffer));
}

void MemoryPool::clear() {
  free_.clear();
  cached_bytes_ = 0;
}

}  // namespace tessera::detail
