#pragma once
// Profiler labels for work that is not a kernel: halo exchanges, redistributions, collectives and
// gathers. A ScopedRegion is a Kokkos Tools region (every Kokkos profiling tool sees it) and, on
// CUDA builds, an NVTX range (Nsight Systems shows it on the timeline without a Kokkos tool).

#include <string>

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define TESSERA_HAVE_NVTX 1
#endif

namespace tessera::detail {

class ScopedRegion {
 public:
  explicit ScopedRegion(const std::string& name) {
    Kokkos::Profiling::pushRegion(name);
#ifdef TESSERA_HAVE_NVTX
    nvtxRangePushA(name.c_str());
#endif
  }
  ~ScopedRegion() {
#ifdef TESSERA_HAVE_NVTX
    nvtxRangePop();
#endif
    Kokkos::Profiling::popRegion();
  }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
};

}  // namespace tessera::detail
