#include "tessera/runtime/runtime.hpp"

#include <mpi.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "tessera/array/store_factory.hpp"
#include "tessera/comm/mpi_communicator.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/kokkos_compat.hpp"
#include "tessera/fusion/backend.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"
#include "tessera/jit/host_jit.hpp"
#include "tessera/jit/jit.hpp"
#ifdef TESSERA_HAVE_NCCL
#include "tessera/comm/nccl_communicator.hpp"
#endif

namespace tessera {
namespace detail {
namespace {
RuntimeState* g_state = nullptr;  // made and destroyed by ts::Runtime
int g_uncaught_at_start = 0;      // std::uncaught_exceptions() when the Runtime was made

// This rank's index among the ranks of its node, and their number (MPI_COMM_TYPE_SHARED).
struct NodePlacement {
  int rank = 0;
  int size = 1;
};
[[maybe_unused]] NodePlacement node_placement() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  NodePlacement p;
  MPI_Comm_rank(node, &p.rank);
  MPI_Comm_size(node, &p.size);
  MPI_Comm_free(&node);
  return p;
}

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
  if (config.comm == "nccl" || (config.comm == "auto" && fits))
    return make_nccl_communicator(parent, config.comm_timeout);
#else
  if (config.comm == "nccl") raise("TESSERA_COMM=nccl: this build of tessera has no NCCL (CUDA builds only)");
#endif
  return std::make_unique<MpiCommunicator>(parent, config.comm_timeout);
}

// Errors reported by MPI on tessera's communicators end the job with a message that says so
// (MPI's default handler also aborts, but without naming tessera or the rank).
void on_mpi_error(MPI_Comm*, int* code, ...) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(*code, text, &length);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fatal(concat("MPI error on rank ", rank, ": ", std::string(text, static_cast<std::size_t>(length))));
}

void set_error_handler(MPI_Comm comm) {
  MPI_Errhandler handler;
  MPI_Comm_create_errhandler(&on_mpi_error, &handler);
  MPI_Comm_set_errhandler(comm, handler);
  MPI_Errhandler_free(&handler);  // the communicator keeps it
}

// The bytes this rank's memory space holds in total (physical memory, or the GPU's memory).
std::size_t memory_space_bytes() {
#ifdef KOKKOS_ENABLE_CUDA
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) == cudaSuccess) return total;
#endif
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : SIZE_MAX;
}

// Settings that decide which collectives a rank calls must be the same on every rank (a variable
// set for some ranks only would hang the first exchange); the same for every rank, the smallest
// memory space of the job, against which array sizes are checked (store_factory.hpp).
void agree_across_ranks(const Config& c, MPI_Comm comm) {
  struct Setting {
    const char* name;
    std::int64_t value;
    bool numeric;
  };
  std::int64_t grid = static_cast<std::int64_t>(c.grid.size());
  for (int g : c.grid) grid = grid * 1000003 + g;
  const std::int64_t comm_kind = c.comm == "mpi" ? 1 : c.comm == "nccl" ? 2 : 0;
  const Setting settings[] = {
      {"TESSERA_WINDOW (Config::window)", c.window, true},
      {"TESSERA_FUSION (Config::fusion)", c.fusion, true},
      {"TESSERA_BACKEND (Config::backend)", static_cast<std::int64_t>(c.backend), false},
      {"TESSERA_GRID (Config::grid)", grid, false},
      {"TESSERA_COMM (Config::comm)", comm_kind, false},
      {"TESSERA_CHECK_DIVERGENCE (Config::check_divergence)", c.check_divergence, true},
      {"", -static_cast<std::int64_t>(std::min<std::size_t>(memory_space_bytes(), INT64_MAX)), false},
  };
  constexpr int n = sizeof settings / sizeof settings[0];
  std::int64_t mine[2 * n], most[2 * n];
  for (int i = 0; i < n; ++i) mine[2 * i] = settings[i].value, mine[2 * i + 1] = -settings[i].value;
  MPI_Allreduce(mine, most, 2 * n, MPI_INT64_T, MPI_MAX, comm);
  set_memory_limit(static_cast<std::size_t>(-most[2 * (n - 1)]));  // the smallest over the ranks
  for (int i = 0; i + 1 < n; ++i) {
    if (most[2 * i] == -most[2 * i + 1]) continue;
    if (settings[i].numeric)
      raise(settings[i].name, " differs between ranks (values from ", -most[2 * i + 1], " to ", most[2 * i],
            "): every rank must use the same settings; give the variable to the whole job (mpirun -x)");
    raise(settings[i].name,
          " differs between ranks: every rank must use the same settings; give the variable to the whole job "
          "(mpirun -x)");
  }
}

// The runtime's state over the ranks of `parent`: its communicator (NCCL or MPI), op window and
// JIT tiers, made in this order.
RuntimeState* make_state(const Config& config, MPI_Comm parent) {
  std::unique_ptr<Communicator> comm = make_communicator(config, parent);
  auto window = std::make_unique<Window>(config, parent);
  std::shared_ptr<Jit> jit = make_jit(config, comm->rank());
  std::shared_ptr<HostJit> host_jit;
  if (kDeviceIsHost && !jit) host_jit = make_host_jit(config, comm->rank());
  if (auto* mpi = dynamic_cast<MpiCommunicator*>(comm.get())) set_error_handler(mpi->comm());
  set_error_handler(window->check().comm());
  return new RuntimeState(config, std::move(comm), std::move(window), std::move(jit), std::move(host_jit));
}

}  // namespace
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
    detail::agree_across_ranks(effective, MPI_COMM_WORLD);
    detail::g_state = detail::make_state(effective, MPI_COMM_WORLD);
    detail::set_runtime(detail::g_state);
    detail::g_uncaught_at_start = std::uncaught_exceptions();
  } catch (...) {
    if (owns_kokkos_) Kokkos::finalize();
    if (owns_mpi_) MPI_Finalize();
    throw;
  }
}

Runtime::~Runtime() {
  // Destroyed by an exception in flight on this rank: the other ranks may be waiting for it in an
  // exchange. It runs nothing more; it only waits (briefly) for every rank to leave the same way,
  // and aborts the job otherwise (docs/RELIABILITY.md).
  const bool unwinding = std::uncaught_exceptions() > detail::g_uncaught_at_start;
  try {
    if (unwinding) {
      detail::flush_window(detail::FlushKind::Unwinding);
    } else {
      detail::flush_window(detail::FlushKind::Teardown);
      detail::runtime().comm().wait("tessera::Runtime teardown");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera: error while flushing at teardown: %s\n", e.what());
  }
  delete detail::g_state;  // still the live runtime meanwhile: stores give their buffers back
  detail::g_state = nullptr;
  detail::set_runtime(nullptr);
  if (owns_kokkos_) Kokkos::finalize();
  if (owns_mpi_) MPI_Finalize();
}

int Runtime::rank() const { return detail::runtime().rank(); }
int Runtime::size() const { return detail::runtime().size(); }
void Runtime::flush() {
  detail::flush_window();
  detail::runtime().comm().wait("tessera::Runtime::flush");
  detail::wait_for_compiles();
}
Stats Runtime::stats() const { return detail::runtime().stats(); }
void Runtime::reset_stats() { detail::runtime().stats() = Stats{}; }
const Config& Runtime::config() const { return detail::runtime().config(); }

}  // namespace tessera
