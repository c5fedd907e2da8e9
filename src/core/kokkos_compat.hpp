#pragma once
// What tessera needs from Kokkos that moved between 3.4 (Debian) and 4.x: the math functions left
// Kokkos::Experimental in 3.7, and reducer joins lost their volatile overloads in 4.0.

#include <Kokkos_Core.hpp>

#if KOKKOS_VERSION >= 30700
#define TESSERA_KOKKOS_MATH Kokkos
#else
#define TESSERA_KOKKOS_MATH Kokkos::Experimental
#endif

#if KOKKOS_VERSION < 40000
#define TESSERA_KOKKOS_VOLATILE_JOIN 1
#endif

namespace tessera::detail {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;

// A labeled fence where Kokkos supports labels (3.6+), so profilers can say why tessera waited.
inline void fence(const char* why) {
#if KOKKOS_VERSION >= 30600
  Kokkos::fence(why);
#else
  (void)why;
  Kokkos::fence();
#endif
}

inline constexpr bool kDeviceIsHost = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;

}  // namespace tessera::detail

#include <string>
#include <vector>

namespace tessera::detail {

// A read-only device copy of a small host array (kernel metadata). Where the device is the host
// it is a view of the vector itself: no allocation, no copy; the vector must outlive the kernel.
template <class T>
Kokkos::View<const T*, MemSpace> to_device(const std::vector<T>& host, const char* label) {
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(host.data(), host.size());
  if constexpr (kDeviceIsHost) {
    return h;
  } else {
    Kokkos::View<T*, MemSpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), host.size());
    Kokkos::deep_copy(ExecSpace(), d, h);
    return d;
  }
}

}  // namespace tessera::detail
