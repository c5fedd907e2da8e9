#include "tessera/core/runtime.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "tessera/array/store.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/kokkos_compat.hpp"
#include "tessera/core/runtime_state.hpp"
#include "tessera/jit/jit.hpp"
#ifdef TESSERA_HAVE_NCCL
#include "tessera/comm/nccl_communicator.hpp"
#endif
#include "tessera/fusion/window.hpp"

namespace tessera {
namespace detail {
namespace {
RuntimeState* g_state = nullptr;
}

void fatal(const std::string& message) {
  std::fprintf(stderr, "tessera: fatal: %s\n", message.c_str());
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

RuntimeState& runtime() {
  if (!g_state)
    raise(
        "no active runtime: create a tessera::Runtime before using arrays, and do not use them after it is "
        "destroyed");
  return *g_state;
}

bool runtime_active() { return g_state != nullptr; }

// This rank's index among the ranks of its node, and their number (MPI_COMM_TYPE_SHARED).
NodePlacement node_placement() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  NodePlacement p;
  MPI_Comm_rank(node, &p.rank);
  MPI_Comm_size(node, &p.size);
  MPI_Comm_free(&node);
  return p;
}

namespace {

// NCCL needs a GPU per rank; with several ranks per GPU (or on CPU builds) tessera uses MPI.
std::unique_ptr<Communicator> make_communicator(const Config& config, MPI_Comm parent) {
#ifdef TESSERA_HAVE_NCCL
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  int fits = node_placement().size <= devices ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, parent);  // the same choice on every rank
  if (config.comm == "nccl" && !fits)
    raise("TESSERA_COMM=nccl needs one GPU per rank, but a node has more ranks than its ", devices,
          " GPU(s); use TESSERA_COMM=mpi or auto");
  if (config.comm == "nccl" || (config.comm == "auto" && fits)) return make_nccl_communicator(parent, config.comm_timeout);
#else
  if (config.comm == "nccl") raise("TESSERA_COMM=nccl: this build of tessera has no NCCL (CUDA builds only)");
#endif
  return std::make_unique<MpiCommunicator>(parent);
}

}  // namespace

RuntimeState::RuntimeState(const Config& config, MPI_Comm parent)
    : config_(config),
      comm_(make_communicator(config, parent)),
      window_(std::make_unique<Window>(config.window)),
      jit_(make_jit(config, comm_->rank())) {
  for (int nd = 0; nd <= 3; ++nd) grids_[nd] = ProcessGrid(nd, comm_->size(), config_.grid);
  const std::string& log = config_.log;
  auto has = [&](const char* w) { return log.find(w) != std::string::npos || log.find("all") != std::string::npos; };
  if (has("fusion")) log_mask_ |= static_cast<unsigned>(LogTopic::Fusion);
  if (has("comm")) log_mask_ |= static_cast<unsigned>(LogTopic::Comm);
  if (has("exec")) log_mask_ |= static_cast<unsigned>(LogTopic::Exec);
}

RuntimeState::~RuntimeState() {
  window_.reset();
  // Arrays may outlive the runtime; their device memory may not outlive Kokkos.
  for (Store* s : stores_) s->release();
  stores_.clear();
  clear_cuts_registry();
}

void RuntimeState::log(LogTopic, const std::string& line) const {
  std::fprintf(stderr, "[tessera %d/%d] %s\n", rank(), size(), line.c_str());
}

}  // namespace detail

// One GPU per rank by node-local rank (several ranks share a GPU when there are more ranks than
// GPUs). Kokkos reads the device from KOKKOS_DEVICE_ID, so --kokkos-* arguments keep working;
// a device chosen by the user (variable already set, or --kokkos-device-id) wins.
void choose_device(int argc, char** argv) {
#ifdef KOKKOS_ENABLE_CUDA
  if (std::getenv("KOKKOS_DEVICE_ID")) return;
  for (int i = 0; i < argc; ++i)
    if (argv && argv[i] && std::string(argv[i]).rfind("--kokkos-device", 0) == 0) return;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return;  // Kokkos reports it
  const std::string id = std::to_string(detail::node_placement().rank % devices);
  setenv("KOKKOS_DEVICE_ID", id.c_str(), 1);
#else
  (void)argc;
  (void)argv;
#endif
}

Runtime::Runtime(int& argc, char**& argv, const Config& config) {
  if (detail::runtime_active()) detail::raise("a tessera::Runtime already exists: create one per process");
  Config effective = config.with_environment();
  effective.validate();
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    owns_mpi_ = true;
  }
  if (!Kokkos::is_initialized()) {
    choose_device(argc, argv);
    Kokkos::initialize(argc, argv);
    owns_kokkos_ = true;
  }
  try {
    detail::g_state = new detail::RuntimeState(effective, MPI_COMM_WORLD);
  } catch (...) {
    if (owns_kokkos_) Kokkos::finalize();
    if (owns_mpi_) MPI_Finalize();
    throw;
  }
}

Runtime::~Runtime() {
  try {
    flush();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera: error while flushing at teardown: %s\n", e.what());
  }
  delete detail::g_state;
  detail::g_state = nullptr;
  if (owns_kokkos_) Kokkos::finalize();
  if (owns_mpi_) MPI_Finalize();
}

int Runtime::rank() const { return detail::runtime().rank(); }
int Runtime::size() const { return detail::runtime().size(); }
void Runtime::flush() {
  detail::flush_window();
  detail::runtime().comm().wait("tessera::Runtime::flush");
}
Stats Runtime::stats() const { return detail::runtime().stats(); }
void Runtime::reset_stats() { detail::runtime().stats() = Stats{}; }
const Config& Runtime::config() const { return detail::runtime().config(); }

std::ostream& operator<<(std::ostream& out, const Stats& s) {
  return out << "ops=" << s.ops << " kernels=" << s.kernels << " halo_exchanges=" << s.halo_exchanges
             << " halo_bytes=" << s.halo_bytes << " redistributions=" << s.redistributions
             << " redistribution_bytes=" << s.redistribution_bytes << " allreduces=" << s.allreduces
             << " gathers=" << s.gathers << " stores_allocated=" << s.stores_allocated
             << " bytes_accessed=" << s.bytes_accessed << " plan_cache_hits=" << s.plan_cache_hits
             << " plan_cache_misses=" << s.plan_cache_misses << " kernel_cache_hits=" << s.kernel_cache_hits
             << " kernel_disk_hits=" << s.kernel_disk_hits << " kernel_compiles=" << s.kernel_compiles;
}

const char* name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float32: return "float32";
    default: return "float64";
  }
}

}  // namespace tessera
