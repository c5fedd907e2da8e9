#pragma once
// The state behind ts::Runtime that the layers from fusion/ up reach through detail::runtime():
// the core state (core/context.hpp: settings, counters, memory pool, log) and what runs the op
// stream: the communicator, the process grids, the op window, the program images and the JIT
// tiers. ts::Runtime (runtime/runtime.cpp) picks and makes the communicator and the JIT tiers
// and hands them over; this class owns them and tears them down in order.

#include <array>
#include <memory>

#include "tessera/comm/communicator.hpp"
#include "tessera/core/context.hpp"
#include "tessera/fusion/window.hpp"
#include "tessera/jit/host_jit.hpp"
#include "tessera/jit/jit.hpp"
#include "tessera/jit/program_images.hpp"
#include "tessera/partition/process_grid.hpp"

namespace tessera::detail {

class RuntimeState : public CoreState {
 public:
  // `jit`, `host_jit`: nullptr where the build or the configuration has no such tier.
  RuntimeState(const Config& config, std::unique_ptr<Communicator> comm, std::unique_ptr<Window> window,
               std::shared_ptr<Jit> jit, std::shared_ptr<HostJit> host_jit);
  ~RuntimeState();

  Communicator& comm() { return *comm_; }
  const ProcessGrid& grid(int ndim) const { return grids_[ndim]; }
  Window& window() { return *window_; }
  ProgramImages& programs() { return programs_; }
  Jit* jit() { return jit_.get(); }                // nullptr: the interpreter runs every kernel
  HostJit* host_jit() { return host_jit_.get(); }  // host builds: the compiled tier, or nullptr

 private:
  std::unique_ptr<Communicator> comm_;
  std::unique_ptr<Window> window_;
  ProgramImages programs_;
  std::shared_ptr<Jit> jit_;
  std::shared_ptr<HostJit> host_jit_;
  std::array<ProcessGrid, 4> grids_;
};

// The live runtime; throws tessera::Error if there is none (used before or after ts::Runtime).
RuntimeState& runtime();
// Makes `state` the live runtime (and its core state core_state()), or, with nullptr, none.
void set_runtime(RuntimeState* state);

}  // namespace tessera::detail
