// Moving whole arrays to the host: every rank packs the part of the view it owns, the parts are
// gathered on every rank, and each rank places them in a row-major buffer.

#include "tessera/array/array_ref.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/profiling.hpp"
#include "tessera/core/runtime_state.hpp"
#include "tessera/fusion/window.hpp"

namespace tessera::detail {

std::vector<char> gather_bytes(const ArrayRef& a) {
  check_runtime(a, "to_host");
  RuntimeState& rt = runtime();
  flush_window();
  ScopedRegion region("tessera::gather");
  fence("tessera::to_host");
  Store& s = *a.store;
  const int esize = size_of(s.dtype());
  const Box mine = s.ndim() == 0 ? Box{} : intersect(a.view, s.owned());
  std::vector<char> packed(static_cast<std::size_t>(mine.volume()) * esize);
  if (!packed.empty()) {
    Kokkos::View<char*, MemSpace> buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::gather"),
                                         packed.size());
    copy_box(s.data(), s.layout(), buffer.data(), Layout::row_major(mine), mine, esize, "tessera::gather[pack]");
    Kokkos::deep_copy(Kokkos::View<char*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(packed.data(), packed.size()),
                      buffer);
  }
  rt.stats().gathers++;
  if (s.ndim() == 0) return packed;  // replicated: every rank already has the value

  std::vector<std::size_t> counts;
  std::vector<char> all = rt.comm().allgather(packed, counts);
  std::vector<char> out(static_cast<std::size_t>(a.size()) * esize);
  const Layout global = Layout::row_major(a.view);
  const ProcessGrid& grid = rt.grid(s.ndim());
  std::size_t at = 0;
  for (int r = 0; r < rt.size(); ++r) {
    const Box piece = intersect(a.view, s.tiling().tile(grid.coords(r)));
    for_each_row(piece, [&](const Index3& first, std::int64_t length) {
      const std::size_t bytes = static_cast<std::size_t>(length) * esize;
      std::copy(all.data() + at, all.data() + at + bytes, out.data() + global.offset(first) * esize);
      at += bytes;
    });
  }
  return out;
}

}  // namespace tessera::detail
