#include "tessera/comm/nccl_device.hpp"

#include "tessera/core/kokkos_compat.hpp"

namespace tessera::detail {

cudaStream_t device_stream() { return ExecSpace().cuda_stream(); }

}  // namespace tessera::detail
