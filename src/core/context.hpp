#pragma once
// CoreState: the part of the live runtime that every layer may reach, whatever its folder: the
// settings, this rank's counters, the memory pool and the log. The runtime's full state
// (fusion/runtime_state.hpp: the communicator, process grids, op window and kernel backends) is
// a CoreState; code below fusion/ (stores, the interpreter, the JIT) sees only this part.

#include <string>

#include "tessera/core/config.hpp"
#include "tessera/core/kokkos_compat.hpp"
#include "tessera/core/memory_pool.hpp"
#include "tessera/core/stats.hpp"

namespace tessera::detail {

enum class LogTopic : unsigned { Fusion = 1, Comm = 2, Exec = 4 };

class CoreState {
 public:
  CoreState(const Config& config, int rank, int size);
  CoreState(const CoreState&) = delete;
  CoreState& operator=(const CoreState&) = delete;

  const Config& config() const { return config_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  Stats& stats() { return stats_; }
  MemoryPool& pool() { return pool_; }

  bool logging(LogTopic t) const { return (log_mask_ & static_cast<unsigned>(t)) != 0; }
  void log(LogTopic t, const std::string& line) const;

 protected:
  ~CoreState() = default;

 private:
  Config config_;
  int rank_ = 0, size_ = 1;
  MemoryPool pool_;
  Stats stats_;
  unsigned log_mask_ = 0;
};

// The live runtime's core state; throws tessera::Error if there is none (used before or after
// ts::Runtime).
CoreState& core_state();
bool runtime_active();
// Device buffers come from the live runtime's memory pool and go back to it (a no-op once the
// runtime is gone).
Kokkos::View<char*, MemSpace> allocate(std::size_t bytes, const char* label, bool zero);
void recycle(Kokkos::View<char*, MemSpace>&& buffer);

// Made live (or, with nullptr, gone) by the runtime that owns the state (fusion/runtime_state.cpp).
void set_core_state(CoreState* state);

}  // namespace tessera::detail
