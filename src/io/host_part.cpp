// Staging a rank's part of an array on the host, and hashing it (see host_part.hpp).

#include "tessera/io/host_part.hpp"

#include <cstring>
#include <utility>

#include "tessera/core/context.hpp"
#include "tessera/core/kokkos_compat.hpp"
#include "tessera/data/store.hpp"

namespace tessera::detail {
namespace {

constexpr std::uint64_t mix(std::uint64_t z) {  // SplitMix64's finalizer
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Box shape_box(const Shape& shape) {
  Box b;
  b.ndim = static_cast<int>(shape.size());
  for (int d = 0; d < b.ndim; ++d) b.hi[d] = shape[d];
  return b;
}

}  // namespace

std::uint64_t header_hash(DType type, const Shape& shape) {
  std::uint64_t h = mix(static_cast<std::uint64_t>(shape.size()) * 8 + static_cast<std::uint64_t>(type) + 1);
  for (std::int64_t e : shape) h = mix(h ^ static_cast<std::uint64_t>(e));
  return h;
}

std::uint64_t partial_hash(const HostPart& part, const Shape& shape, DType type) {
  if (part.empty()) return 0;
  const int esize = size_of(type);
  const Layout global = Layout::row_major(shape_box(shape));
  std::uint64_t sum = 0;
  std::size_t at = 0;
  for_each_row(part.box, [&](const Index3& first, std::int64_t length) {
    const std::int64_t i0 = global.offset(first);
    for (std::int64_t k = 0; k < length; ++k, at += esize) {
      std::uint64_t bits = 0;  // the element's bytes, zero-extended (little-endian hosts)
      std::memcpy(&bits, part.bytes.data() + at, esize);
      sum += mix(mix(static_cast<std::uint64_t>(i0 + k)) ^ bits);
    }
  });
  return sum;
}

HostPart host_part(const ArrayRef& a, int rank) {
  Store& s = *a.store;
  const int esize = size_of(s.dtype());
  HostPart p;
  const Box view = a.view.box();
  const Box in_store = s.ndim() == 0 ? Box{} : intersect(view, s.owned());
  if ((s.ndim() == 0 && rank != 0) || !s.primary() || in_store.empty()) return p;
  p.box = in_store;
  for (int d = 0; d < s.ndim(); ++d) p.box.lo[d] -= view.lo[d], p.box.hi[d] -= view.lo[d];
  p.bytes.resize(static_cast<std::size_t>(in_store.volume()) * esize);
  Kokkos::View<char*, MemSpace> buffer = allocate(p.bytes.size(), "tessera::checkpoint", false);
  copy_box(s.data(), s.layout(), buffer.data(), Layout::row_major(in_store), in_store, esize,
           "tessera::checkpoint[pack]");
  Kokkos::deep_copy(Kokkos::View<char*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(p.bytes.data(), p.bytes.size()),
                    Kokkos::subview(buffer, std::make_pair(std::size_t(0), p.bytes.size())));
  recycle(std::move(buffer));
  return p;
}

}  // namespace tessera::detail
