// The few out-of-line definitions of core's headers: fatal errors, dtype names, Stats printing.

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>

#include "tessera/core/dtype.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/stats.hpp"

namespace tessera {
namespace detail {

void fatal(const std::string& message) {
  std::fprintf(stderr, "tessera: fatal: %s\n", message.c_str());
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

}  // namespace detail

std::ostream& operator<<(std::ostream& out, const Stats& s) {
  return out << "ops=" << s.ops << " kernels=" << s.kernels << " buffer_renames=" << s.buffer_renames
             << " frame_copies=" << s.frame_copies << " halo_exchanges=" << s.halo_exchanges
             << " halo_bytes=" << s.halo_bytes << " halo_overlaps=" << s.halo_overlaps
             << " boundary_launches=" << s.boundary_launches << " redistributions=" << s.redistributions
             << " redistribution_bytes=" << s.redistribution_bytes << " image_exchanges=" << s.image_exchanges
             << " image_bytes=" << s.image_bytes << " allreduces=" << s.allreduces << " gathers=" << s.gathers
             << " stores_allocated=" << s.stores_allocated << " bytes_accessed=" << s.bytes_accessed
             << " plan_cache_hits=" << s.plan_cache_hits << " plan_cache_misses=" << s.plan_cache_misses
             << " kernel_cache_hits=" << s.kernel_cache_hits << " kernel_disk_hits=" << s.kernel_disk_hits
             << " kernel_compiles=" << s.kernel_compiles;
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
