#pragma once
// The state behind ts::Runtime that the rest of tessera reaches through detail::runtime().

#include <array>
#include <memory>
#include <string>
#include <unordered_set>

#include "tessera/comm/mpi_communicator.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/memory_pool.hpp"
#include "tessera/core/stats.hpp"
#include "tessera/fusion/interpreter.hpp"
#include "tessera/fusion/window.hpp"
#include "tessera/partition/process_grid.hpp"

namespace tessera::detail {

class Store;
class Jit;
class HostJit;

enum class LogTopic : unsigned { Fusion = 1, Comm = 2, Exec = 4 };

class RuntimeState {
 public:
  RuntimeState(const Config& config, MPI_Comm parent);
  ~RuntimeState();

  const Config& config() const { return config_; }
  Communicator& comm() { return *comm_; }
  int rank() const { return comm_->rank(); }
  int size() const { return comm_->size(); }
  const ProcessGrid& grid(int ndim) const { return grids_[ndim]; }
  Stats& stats() { return stats_; }
  Window& window() { return *window_; }
  MemoryPool& pool() { return pool_; }
  ProgramImages& programs() { return programs_; }
  Jit* jit() { return jit_.get(); }                // nullptr: the interpreter runs every kernel
  HostJit* host_jit() { return host_jit_.get(); }  // host builds: the compiled tier, or nullptr

  bool logging(LogTopic t) const { return (log_mask_ & static_cast<unsigned>(t)) != 0; }
  void log(LogTopic t, const std::string& line) const;

  void register_store(Store* s) { s->link_into(stores_); }
  void unregister_store(Store* s) { s->unlink_from(stores_); }
  std::uint64_t next_store_id() { return ++store_counter_; }

 private:
  Config config_;
  std::unique_ptr<Communicator> comm_;
  std::unique_ptr<Window> window_;
  MemoryPool pool_;
  ProgramImages programs_;
  std::shared_ptr<Jit> jit_;
  std::shared_ptr<HostJit> host_jit_;
  std::array<ProcessGrid, 4> grids_;
  Stats stats_;
  unsigned log_mask_ = 0;
  Store* stores_ = nullptr;  // the live stores, linked through themselves (Store::link_into)
  std::uint64_t store_counter_ = 0;
};

struct NodePlacement {
  int rank = 0;
  int size = 1;
};
NodePlacement node_placement();

// The live runtime; throws tessera::Error if there is none (used before or after ts::Runtime).
RuntimeState& runtime();
bool runtime_active();

}  // namespace tessera::detail
