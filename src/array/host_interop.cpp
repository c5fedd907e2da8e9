// Moving whole arrays to the host: every rank packs the part of the view it owns, the parts are
// gathered on every rank through the communicator (NCCL on GPUs), and each rank places them in a
// row-major buffer.

#include "tessera/array/array_ref.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/profiling.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"

namespace tessera::detail {
namespace {
constexpr int kGatherTag = 300;  // halos use 100+, redistributions 200+ (comm/exchange.cpp)
}  // namespace

BoxView::BoxView(const ArrayRef& a) : ref_(a) {
  if (a.store->ndim() == 0 || a.view.is_box()) return;
  // Steps, indices, new axes: one copy kernel, then the parts are boxes again.
  ref_ = apply("copy", OpCode::Load, {Operand::of(a)}, {a.dtype()}, a.dtype(), a.dtype());
  ref_.store->add_user_ref();  // read after the flush: not a temporary
  copied_ = true;
}

BoxView::~BoxView() {
  if (copied_) ref_.store->drop_user_ref();
}

std::vector<char> gather_bytes(const ArrayRef& in) {
  check_runtime(in, "to_host");
  RuntimeState& rt = runtime();
  const BoxView box_view(in);
  const ArrayRef& a = box_view.ref();
  flush_window();
  ScopedRegion region("tessera::gather");
  rt.stats().gathers++;
  Store& s = *a.store;
  const int esize = size_of(s.dtype());
  auto on_host = [](std::vector<char>& v) {
    return Kokkos::View<char*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size());
  };
  if (s.ndim() == 0) {  // replicated: every rank has the value
    rt.comm().wait("tessera::item");
    std::vector<char> value(esize);
    Kokkos::deep_copy(on_host(value), Kokkos::View<char*, MemSpace, Kokkos::MemoryUnmanaged>(s.data(), esize));
    return value;
  }

  // The pieces in rank order: what each rank owns of the view (every rank can compute them all).
  // Where the tiling holds copies, only the copy that counts is gathered.
  const ProcessGrid& grid = rt.grid(s.tiling().grid);
  const int me = rt.rank(), nranks = rt.size();
  const Box view = a.view.box();
  std::vector<Box> pieces(nranks);
  std::vector<std::size_t> offset(nranks + 1, 0);
  for (int r = 0; r < nranks; ++r) {
    const Index3 coords = grid.coords(r);
    pieces[r] = intersect(view, s.tiling().tile(coords));
    if (!s.tiling().primary(coords, grid.ndim())) pieces[r].hi[0] = pieces[r].lo[0];
    offset[r + 1] = offset[r] + static_cast<std::size_t>(pieces[r].volume()) * esize;
  }
  const std::size_t total = offset[nranks];
  std::vector<char> gathered(total);
  if (total > 0) {
    // Each rank packs its piece into its place in one device buffer, the pieces travel in one
    // exchange (NCCL or MPI: the communicator's), and the buffer comes to the host in one copy.
    Kokkos::View<char*, MemSpace> all = allocate(total, "tessera::gather", false);
    char* mine = all.data() + offset[me];
    const std::size_t my_bytes = offset[me + 1] - offset[me];
    if (my_bytes > 0)
      copy_box(s.data(), s.layout(), mine, Layout::row_major(pieces[me]), pieces[me], esize, "tessera::gather[pack]");
    std::vector<Message> sends, receives;
    for (int r = 0; r < nranks; ++r) {
      if (r == me) continue;
      if (my_bytes > 0) sends.push_back({r, kGatherTag, mine, my_bytes});
      if (offset[r + 1] > offset[r])
        receives.push_back({r, kGatherTag, all.data() + offset[r], offset[r + 1] - offset[r]});
    }
    rt.comm().exchange(sends, receives);
    rt.comm().wait("tessera::to_host");
    Kokkos::deep_copy(on_host(gathered), Kokkos::subview(all, std::make_pair(std::size_t(0), total)));
    recycle(std::move(all));
  }

  std::vector<char> out(static_cast<std::size_t>(a.size()) * esize);
  const Layout global = Layout::row_major(view);
  for (int r = 0; r < nranks; ++r) {
    std::size_t at = offset[r];
    for_each_row(pieces[r], [&](const Index3& first, std::int64_t length) {
      const std::size_t bytes = static_cast<std::size_t>(length) * esize;
      std::copy(gathered.data() + at, gathered.data() + at + bytes, out.data() + global.offset(first) * esize);
      at += bytes;
    });
  }
  return out;
}

}  // namespace tessera::detail
