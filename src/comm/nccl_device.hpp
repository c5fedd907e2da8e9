#pragma once
// What the NCCL communicator needs from the CUDA execution space. Kept apart so that the
// communicator compiles with only the CUDA runtime and NCCL headers: CI compiles it that way,
// without a CUDA Kokkos (src/CMakeLists.txt, target tessera_nccl_compile_check).

#include <cuda_runtime_api.h>

namespace tessera::detail {

cudaStream_t device_stream();  // the Kokkos execution space's stream

// NCCL's max/min leave NaN to the hardware's fmax/fmin, which drop it; NumPy's propagate it.
// nan_split writes (x without NaN, NaN flag) to pair[0..1]; after an allreduce of the pair with
// the same max/min, nan_join writes the NumPy result back to x. Both are enqueued on the stream.
void nan_split(const double* x, double* pair, bool is_max);
void nan_join(double* x, const double* pair);

}  // namespace tessera::detail
