#include "tessera/comm/nccl_device.hpp"

#include <Kokkos_NumericTraits.hpp>

#include "tessera/core/kokkos_compat.hpp"

namespace tessera::detail {

cudaStream_t device_stream() { return ExecSpace().cuda_stream(); }

void nan_split(const double* x, double* pair, bool is_max) {
  Kokkos::parallel_for(
      "tessera::allreduce[nan split]", Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(int) {
        const bool nan = *x != *x;
        const double inf = Kokkos::Experimental::infinity<double>::value;
        pair[0] = nan ? (is_max ? -inf : inf) : *x;
        pair[1] = nan ? (is_max ? 1.0 : -1.0) : 0.0;
      });
}

void nan_join(double* x, const double* pair) {
  Kokkos::parallel_for(
      "tessera::allreduce[nan join]", Kokkos::RangePolicy<ExecSpace>(0, 1),
      KOKKOS_LAMBDA(int) { *x = pair[1] != 0.0 ? Kokkos::Experimental::quiet_NaN<double>::value : pair[0]; });
}

}  // namespace tessera::detail
