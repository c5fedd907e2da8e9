#include "tessera/fusion/runtime_state.hpp"

#include "tessera/core/error.hpp"
#include "tessera/data/store.hpp"

namespace tessera::detail {
namespace {
RuntimeState* g_state = nullptr;
}  // namespace

RuntimeState::RuntimeState(const Config& config, std::unique_ptr<Communicator> comm, std::unique_ptr<Window> window,
                           std::shared_ptr<Jit> jit, std::shared_ptr<HostJit> host_jit)
    : CoreState(config, comm->rank(), comm->size()),
      comm_(std::move(comm)),
      window_(std::move(window)),
      jit_(std::move(jit)),
      host_jit_(std::move(host_jit)) {
  for (int nd = 0; nd <= 3; ++nd) grids_[nd] = ProcessGrid(nd, comm_->size(), this->config().grid);
}

RuntimeState::~RuntimeState() {
  window_.reset();
  // Arrays may outlive the runtime; their device memory may not outlive Kokkos.
  release_stores();
}

RuntimeState& runtime() {
  if (!g_state)
    raise(
        "no active runtime: create a tessera::Runtime before using arrays, and do not use them after it is "
        "destroyed");
  return *g_state;
}

void set_runtime(RuntimeState* state) {
  g_state = state;
  set_core_state(state);
}

}  // namespace tessera::detail
