#pragma once
// What the NCCL communicator needs from the CUDA execution space. Kept apart so that the
// communicator compiles with only the CUDA runtime and NCCL headers: CI compiles it that way,
// without a CUDA Kokkos (src/CMakeLists.txt, target tessera_nccl_compile_check).

#include <cuda_runtime_api.h>

namespace tessera::detail {

cudaStream_t device_stream();  // the Kokkos execution space's stream

}  // namespace tessera::detail
