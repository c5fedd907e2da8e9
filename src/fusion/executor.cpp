// The executor: classify each argument of a task against the launch domain (aligned, halo,
// redistribution, replicated), redistribute what must move, start one grouped halo exchange for
// all halo arguments, launch the kernel on the interior of the tile while the halos travel and on
// the boundary strips once they have arrived, and complete reductions with an allreduce. A task
// with partition constraints (Launch::body, tasks/task_body.hpp) goes the same way: its bloat()
// arguments are halos, its image() argument an exchange of its own, and its body runs on the
// tile where the program would; its reduce privileges are summed across the grid slice after.

#include <algorithm>
#include <optional>
#include <sstream>

#include "tessera/comm/exchange.hpp"
#include "tessera/comm/image_exchange.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/profiling.hpp"
#include "tessera/fusion/backend.hpp"
#include "tessera/fusion/nesting.hpp"
#include "tessera/fusion/reduction_finish.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/task.hpp"
#include "tessera/program/interpreter.hpp"

namespace tessera::detail {
namespace {

enum class Access { Replicated, Aligned, Local, Halo, Redistributed, Image };

// Tile coordinates of dimension d of an ndim-array in the padded 3-D domain.
int padded(int ndim, int d) { return 3 - ndim + d; }

// Element `first` (view coordinates) of `view` and its neighbours along each view dimension, in a
// buffer of this layout: strides are the layout's, through the view's map (0 on stretched axes).
Accessor accessor_for(char* ptr, const Layout& layout, const View& view, const Index3& first) {
  Accessor a;
  a.ptr = ptr;
  a.origin = layout.offset(view.store_index(first));
  for (int d = 0; d < view.ndim; ++d) {
    std::int64_t stride = 0;
    for (int k = 0; k < view.store_ndim; ++k) stride += layout.stride[k] * view.map[k][d];
    a.stride[padded(view.ndim, d)] = stride;
  }
  return a;
}

// "tessera::halo[" + "tessera::fused[add,mul]" -> "tessera::halo[fused[add,mul]]": the region
// names the kernel it serves.
std::string region_label(const char* prefix, const std::string& kernel) {
  const std::string inner = kernel.rfind("tessera::", 0) == 0 ? kernel.substr(9) : kernel;
  return prefix + inner + "]";
}

// The part of this rank's launch tile that reads none of the cells `exchanged` fetches: there
// every halo argument of a fetched store reads the store's owned cells only.
Box interior(const Box& tile, const Launch& task, const std::vector<Access>& access,
             const std::vector<FetchRequest>& exchanged) {
  Box inside = tile;
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    const Arg& arg = task.args[i];
    const Store* s = &*arg.store;
    if (access[i] != Access::Halo ||
        std::none_of(exchanged.begin(), exchanged.end(), [&](const FetchRequest& r) { return r.store == s; }))
      continue;
    inside = intersect(inside, arg.view.preimage(s->owned()));
  }
  return inside;
}

std::string to_string(const Box& b) {
  std::ostringstream s;
  s << b;
  return s.str();
}

// The ranks of this rank's slice of the grid axis that cuts launch dimension `dim` (nullptr if it
// is not cut): those that computed other parts of the same outputs of a reduction along `dim`.
Communicator* partners_along(const Tiling& launch, const ProcessGrid& grid, int dim) {
  RuntimeState& rt = runtime();
  if (!launch.cuts[dim] || grid.dim(launch.axis[dim]) == 1) return nullptr;
  const int g = launch.axis[dim];
  const Index3 c = grid.coords(rt.rank());
  int color = 0;
  for (int a = 0; a < grid.ndim(); ++a)
    if (a != g) color = color * grid.dim(a) + static_cast<int>(c[a]);
  return &rt.comm().slice(grid.ndim() * kMaxDims + g, color, static_cast<int>(c[g]));
}

// The ranks that hold other parts of a reduction's outputs: every rank for a full reduction over
// a distributed domain; for one along view dimension `dim`, the ranks of this rank's slice of the
// grid axis that cuts it (none if it is not cut).
Communicator* reduction_partners(const Launch& task, const Tiling& launch, const ProcessGrid& grid) {
  RuntimeState& rt = runtime();
  if (task.reductions.empty() || task.domain.store->ndim() == 0) return nullptr;  // 0-d: computed whole everywhere
  const int reduce_dim = task.program->reduce_dim;
  if (reduce_dim < 0) return &rt.comm();
  return partners_along(launch, grid, reduce_dim - (3 - launch.ndim));
}

// A part of a launch domain (view coordinates of the key view) as the kernels see it.
Domain domain_over(const Box& part, const View& key_view) {
  const int ndim = key_view.ndim;
  Domain domain;
  std::int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    domain.n[padded(ndim, d)] = part.extent(d);
    domain.global_origin[padded(ndim, d)] = part.lo[d];
    domain.global_stride[padded(ndim, d)] = stride;
    stride *= key_view.extent[d];
  }
  if (ndim == 0) domain.n[0] = part.volume();  // a 0-d view's element lives on one rank
  return domain;
}

// The owned part of `arg`'s store outside the view a renaming launch writes: the frame. (Only box
// views are renamed: the planner's rule 3.)
std::vector<Box> frame_of(const Arg& arg, const Box& tile) {
  return subtract(arg.store->owned(), arg.view.bounds(tile));
}

// After the kernel wrote `arg`'s view of this rank's tile into `written`: copies the frame from the
// store's buffer unless `written` holds it already, then the store adopts `written`. Returns the
// bytes the frame copy moved.
std::int64_t adopt_renamed(const Arg& arg, const std::vector<Box>& frame, Kokkos::View<char*, MemSpace>&& written,
                           bool frame_current, const std::string& kernel) {
  RuntimeState& rt = runtime();
  Store& s = *arg.store;
  std::int64_t volume = 0;
  if (!frame_current) {
    for (const Box& b : frame) volume += b.volume();
    copy_pieces(s.data(), written.data(), s.layout(), frame, size_of(s.dtype()),
                region_label("tessera::frame[", kernel).c_str());
    rt.stats().frame_copies++;
  }
  s.adopt(std::move(written), frame);
  rt.stats().buffer_renames++;
  return 2 * volume * size_of(s.dtype());
}

// How argument `arg` of a launch over `launch` reads its store on this rank: with no other rank
// (Aligned, Local), from its own ghost cells after a halo exchange of `lo`/`hi` cells per store
// dimension (Halo), or from a buffer that a redistribution fills with `need[me]` (Redistributed).
// Every rank decides the same from global metadata, so all take part in the same exchanges.
struct Classified {
  Access access = Access::Aligned;
  Index3 lo{0, 0, 0}, hi{0, 0, 0};
  std::vector<Box> need;  // Redistributed: per rank, the store box it reads
  Box buffer;             // Redistributed under bloat(): this rank's buffer, ghosts past the store included
};

Classified classify(const Arg& arg, const Tiling& launch, const ProcessGrid& grid, int nranks) {
  Classified c;
  const Store& s = *arg.store;
  const std::optional<Tiling> t = induced(s.tiling(), arg.view);
  if (t && t->aligned(launch)) return c;
  if (nranks == 1) {  // one rank holds every store whole: any view is read in place
    c.access = Access::Local;
    return c;
  }
  const Tiling& st = s.tiling();
  // A box view over the same cuts with unit steps (the stencil case): the shift of the offsets is
  // the halo, an O(ndim) decision.
  bool unit = t && arg.view.is_box() && t->same_cuts(launch);
  for (int d = 0; d < launch.ndim && unit; ++d) unit = !t->cuts[d] || t->step[d] == 1;
  if (unit) {
    bool halo = true;
    for (int d = 0; d < launch.ndim && halo; ++d) {
      if (!t->cuts[d]) continue;  // not cut: every rank holds the whole dimension
      const std::int64_t shift = t->offset[d] - launch.offset[d];
      // A halo up to the width of the narrowest tile comes from the neighbours (a store of 2 rows
      // on 2 ranks still exchanges its single-row halos); anything wider is a redistribution.
      if (std::abs(shift) > t->cuts[d]->min_nonempty_width) halo = false;
      c.lo[d] = std::max<std::int64_t>(0, -shift);
      c.hi[d] = std::max<std::int64_t>(0, shift);
    }
    if (halo) {
      c.access = Access::Halo;
      return c;
    }
  }
  // Anything else (steps, fixed or new axes, broadcast operands, transposes): the store box every
  // rank's part of the launch reads, against what that rank holds.
  const ProcessGrid& store_grid = runtime().grid(st.grid);
  c.need.resize(nranks);
  bool local = true, halo = true;
  for (int r = 0; r < nranks; ++r) {
    const Box part = launch.tile(grid.coords(r));
    c.need[r] = arg.view.bounds(part);
    if (c.need[r].empty()) continue;
    const Box held = st.tile(store_grid.coords(r));
    if (!held.contains(c.need[r])) local = false;
    if (held.empty()) {
      halo = false;
      continue;
    }
    for (int k = 0; k < st.ndim; ++k) {
      c.lo[k] = std::max(c.lo[k], held.lo[k] - c.need[r].lo[k]);
      c.hi[k] = std::max(c.hi[k], c.need[r].hi[k] - held.hi[k]);
    }
  }
  if (local) {
    c.access = Access::Local;
    return c;
  }
  // A halo is a bloated tile of the launch's own partition: a view over the same cuts (a step or
  // a transpose of it) whose reads reach at most the narrowest tile's width past what a rank holds.
  // Other partitions are redistributed.
  halo = halo && t && t->grid == launch.grid;
  for (int d = 0; d < launch.ndim && halo; ++d)
    halo = t->cuts[d] == launch.cuts[d] && (!t->cuts[d] || t->axis[d] == launch.axis[d]);
  for (int k = 0; k < st.ndim && halo; ++k) {
    const std::int64_t widest = st.cuts[k] ? st.cuts[k]->min_nonempty_width : 0;
    halo = c.lo[k] <= widest && c.hi[k] <= widest;
  }
  c.access = halo ? Access::Halo : Access::Redistributed;
  return c;
}

// ---- Tasks with partition constraints (tasks/) ----

// bloat(w): the argument is read over the tile grown by w cells on every side; ghost cells outside
// the store are allocated (addressable) but unspecified. On one rank: the store's own ghost cells
// (Local; `lo`/`hi` the allocation needed). A box view over the launch's cuts whose reach stays
// within the neighbouring tiles: a halo of its shift plus w (Halo). Anything else: a
// redistribution into a buffer covering the bloated tile.
Classified classify_bloated(const Arg& arg, std::int64_t w, const Tiling& launch, const ProcessGrid& grid, int nranks,
                            int me) {
  Classified c;
  const Store& s = *arg.store;
  const Index3 wide{w, w, w};
  const Box tile = launch.tile(grid.coords(me));
  const Box reach = arg.view.bounds(bloat(tile, wide, wide));
  if (nranks == 1) {
    c.access = Access::Local;
    for (int k = 0; k < s.ndim() && !tile.empty(); ++k) {
      c.lo[k] = std::max<std::int64_t>(0, s.owned().lo[k] - reach.lo[k]);
      c.hi[k] = std::max<std::int64_t>(0, reach.hi[k] - s.owned().hi[k]);
    }
    return c;
  }
  const std::optional<Tiling> t = induced(s.tiling(), arg.view);
  bool in_place = t && arg.view.is_box() && t->same_cuts(launch);
  for (int d = 0; d < launch.ndim && in_place; ++d) {
    c.lo[d] = c.hi[d] = w;  // past the store where the dimension is not cut: allocated only
    if (!t->cuts[d]) continue;
    const std::int64_t shift = t->offset[d] - launch.offset[d];
    c.lo[d] += std::max<std::int64_t>(0, -shift);
    c.hi[d] += std::max<std::int64_t>(0, shift);
    in_place = t->step[d] == 1 && std::max(c.lo[d], c.hi[d]) <= t->cuts[d]->min_nonempty_width;
  }
  if (in_place) {
    c.access = Access::Halo;
    return c;
  }
  c = Classified{};
  c.access = Access::Redistributed;
  c.need.resize(nranks);
  for (int r = 0; r < nranks; ++r) {
    const Box part = launch.tile(grid.coords(r));
    c.need[r] = part.empty() ? arg.view.bounds(part) : intersect(arg.view.bounds(bloat(part, wide, wide)), s.full());
  }
  c.buffer = tile.empty() ? c.need[me] : reach;
  return c;
}

// Where the body finds argument i's part of the tile (TileArg, tasks/task_body.hpp).
TileArg tile_arg(const Arg& arg, Access access, char* base, const Layout& layout, const Box& tile, std::int64_t w) {
  TileArg t;
  const Store& s = *arg.store;
  t.dtype = s.dtype();
  const int esize = size_of(s.dtype());
  if (access == Access::Replicated) {
    t.data = base;
    t.extent = {1, 1, 1};
  } else if (access == Access::Image) {
    t.data = base ? base + layout.offset(s.owned().lo) * esize : nullptr;
    t.stride[0] = 1;
    t.extent[0] = s.owned().extent(0);
  } else {
    for (int d = 0; d < arg.view.ndim; ++d) t.extent[d] = tile.extent(d);
    if (tile.empty() || !base) return t;
    const Accessor a = accessor_for(base, layout, arg.view, tile.lo);
    t.data = base + a.origin * esize;
    for (int d = 0; d < arg.view.ndim; ++d) t.stride[d] = a.stride[padded(arg.view.ndim, d)];
    t.ghosts = w;
  }
  return t;
}

// A reduce privilege: the argument's tile starts at zero (so a rank with nothing to add adds
// nothing), every rank adds its contribution to its copy, and the ranks that share it (the grid
// slice along the launch dimension its view is stretched over) sum them in place.
void zero_contribution(const Arg& arg, const std::string& label) {
  Store& s = *arg.store;
  if (s.allocated() != s.owned()) raise("internal: ", label, " reduces into a store with ghost cells");
  const std::size_t bytes = static_cast<std::size_t>(s.owned().volume()) * size_of(s.dtype());
  Kokkos::deep_copy(ExecSpace(), Kokkos::View<char*, MemSpace, Kokkos::MemoryUnmanaged>(s.data(), bytes), char(0));
}

void sum_contributions(const Arg& arg, const Tiling& launch, const ProcessGrid& grid, const std::string& label) {
  RuntimeState& rt = runtime();
  Communicator* across = nullptr;
  for (int d = 0; d < launch.ndim; ++d) {
    // Also along an extent of 1 (a product of k = 1): the grid still cuts it, and the ranks of
    // the empty part hold copies of the outputs too, zeroed, until this sum.
    if (arg.view.moved_by(d) >= 0) continue;
    if (Communicator* c = partners_along(launch, grid, d)) {
      if (across) raise("internal: ", label, " reduces an argument across more than one grid axis");
      across = c;
    }
  }
  if (!across) return;
  Store& s = *arg.store;
  ScopedRegion region(region_label("tessera::allreduce[", label));
  across->allreduce(s.data(), static_cast<int>(s.owned().volume()), s.dtype(), ReduceKind::Sum);
  rt.stats().allreduces++;
}

// A redistributed operand: a fresh buffer for the store box `box` of `s` (row-major), and the
// request that fills it with `need` (per rank, the store box it reads).
FetchRequest redistribution(Store& s, std::vector<Box>&& need, const Box& box, Kokkos::View<char*, MemSpace>& buffer) {
  RuntimeState& rt = runtime();
  buffer = allocate(static_cast<std::size_t>(box.volume()) * size_of(s.dtype()), "tessera::redistribute", false);
  return FetchRequest{&s, std::move(need), buffer.data(), Layout::row_major(box), false, &rt.grid(s.tiling().grid)};
}

// The halo widths a launch (or an independent batch's launches) reads, per store: the widest
// asked of each.
struct HaloNeeds {
  std::vector<Store*> stores;
  std::vector<std::pair<Index3, Index3>> widths;  // parallel to `stores`
  void add(Store& s, const Index3& lo, const Index3& hi) {
    auto it = std::find(stores.begin(), stores.end(), &s);
    if (it == stores.end()) {
      stores.push_back(&s);
      widths.push_back({lo, hi});
      return;
    }
    auto& w = widths[it - stores.begin()];
    for (int d = 0; d < s.ndim(); ++d)
      w.first[d] = std::max(w.first[d], lo[d]), w.second[d] = std::max(w.second[d], hi[d]);
  }
};

// One grouped exchange for every store that needs a wider valid halo than it has: its requests,
// each store then valid that wide. `log` (where the comm log is on) names the stores.
std::vector<FetchRequest> halo_requests(const HaloNeeds& needs, std::string* log) {
  RuntimeState& rt = runtime();
  std::vector<FetchRequest> exchange;
  for (std::size_t h = 0; h < needs.stores.size(); ++h) {
    Store& s = *needs.stores[h];
    auto [lo, hi] = needs.widths[h];
    bool covered = true;
    for (int d = 0; d < s.ndim(); ++d) {
      covered = covered && lo[d] <= s.valid_lo()[d] && hi[d] <= s.valid_hi()[d];
      lo[d] = std::max(lo[d], s.valid_lo()[d]);
      hi[d] = std::max(hi[d], s.valid_hi()[d]);
    }
    if (covered || rt.size() == 1) continue;  // one rank owns the whole store: nothing to fetch
    s.ensure_ghosts(lo, hi);
    const ProcessGrid& store_grid = rt.grid(s.tiling().grid);
    FetchRequest req{&s, {}, s.data(), s.layout(), true, &store_grid};
    req.needed.resize(rt.size());
    for (int r = 0; r < rt.size(); ++r)
      req.needed[r] = intersect(bloat(s.tiling().tile(store_grid.coords(r)), lo, hi), s.full());
    exchange.push_back(std::move(req));
    s.set_valid(lo, hi);
    if (log) *log += " store#" + std::to_string(s.id());
  }
  return exchange;
}

}  // namespace

ExecReport execute(const Launch& task) {
  ExecReport report;
  RuntimeState& rt = runtime();
  const Arg& key = task.domain;

  // The launch domain: the tiling the key view induces; this rank computes its tile.
  const std::optional<Tiling> induced_launch = induced(key.store->tiling(), key.view);
  if (!induced_launch) raise("internal: the launch domain of ", *task.label, " is not a separable view");
  const Tiling& launch = *induced_launch;
  const int ndim = launch.ndim;
  const ProcessGrid& grid = rt.grid(launch.grid);
  const Box tile = launch.tile(grid.coords(rt.rank()));

  const std::size_t nargs = task.args.size();
  std::vector<Access> access(nargs, Access::Aligned);
  HaloNeeds halos;
  // What the launch keeps per argument, in one allocation.
  struct ArgState {
    Kokkos::View<char*, MemSpace> temporary;  // a redistributed argument's elements
    Box redistributed;                        // ... the store box they are
    std::int64_t ghosts = 0;                  // bloat() width
    Kokkos::View<char*, MemSpace> fresh;      // a renamed store's new buffer
    std::vector<Box> frame;                   // ... the frame it shares with the current one
    bool frame_current = false;               // ... whether that frame was copied already
    char* base = nullptr;                     // where the argument's elements are
    Layout layout;                            // ... and how they are placed
  };
  std::vector<ArgState> state(nargs);
  std::vector<FetchRequest> moves;
  const TaskBody* body = task.body;
  int image_arg = -1;

  for (std::size_t i = 0; i < nargs; ++i) {
    const Arg& arg = task.args[i];
    Store& s = *arg.store;
    if (s.ndim() == 0) {
      access[i] = Access::Replicated;
      continue;
    }
    if (body && body->constraint(static_cast<int>(i)).image()) {
      if (image_arg >= 0) raise("internal: ", *task.label, " has two image() arguments");
      access[i] = Access::Image;
      image_arg = static_cast<int>(i);
      continue;
    }
    if (arg.view.ndim != ndim || arg.view.extent != key.view.extent)
      raise("internal: argument ", i, " of ", *task.label, " has view ", arg.view, " but the domain is ", key.view);
    state[i].ghosts = body ? body->constraint(static_cast<int>(i)).bloat() : 0;
    Classified c = state[i].ghosts > 0 ? classify_bloated(arg, state[i].ghosts, launch, grid, rt.size(), rt.rank())
                                       : classify(arg, launch, grid, rt.size());
    access[i] = c.access;
    const bool reduced = body && body->privilege(static_cast<int>(i)) == Privilege::Reduce;
    if (arg.written && !(c.access == Access::Aligned || (reduced && c.access == Access::Local))) {
      // Placed like the domain on every rank though its tiling differs in form: a grid axis of one
      // coordinate that one fixes and the other does not (a keepdims reduction's epilogue, which
      // the planner admits by this same test). Each rank holds what it writes: written in place.
      const std::optional<Tiling> placed = induced(s.tiling(), arg.view);
      if (!placed || !same_parts(*placed, launch))
        raise("internal: ", *task.label, " writes argument ", i, " through a view not aligned with its domain");
      c = Classified{};
      access[i] = c.access;
    }
    if (state[i].ghosts > 0 && c.access == Access::Local) s.ensure_ghosts(c.lo, c.hi);
    if (c.access == Access::Halo) {
      halos.add(s, c.lo, c.hi);
    } else if (c.access == Access::Redistributed) {
      state[i].redistributed = state[i].ghosts > 0 ? c.buffer : c.need[rt.rank()];
      moves.push_back(redistribution(s, std::move(c.need), state[i].redistributed, state[i].temporary));
    }
  }

  // Redistributions complete first (one exchange is in flight at a time); the halo exchange then
  // runs behind the interior of the launch.
  report.redistributions = static_cast<int>(moves.size());
  if (!moves.empty()) {
    rt.stats().redistribution_bytes +=
        fetch(rt.comm(), grid, std::move(moves), region_label("tessera::redistribute[", *task.label));
    rt.stats().redistributions += report.redistributions;
    if (rt.logging(LogTopic::Comm))
      rt.log(LogTopic::Comm, "redistribution for " + *task.label + ": " + std::to_string(report.redistributions) +
                                 " operand(s) not aligned with the launch domain and not a halo");
  }

  std::string halo_log;  // built only when logging: an ostringstream per launch costs more than the rest
  std::vector<FetchRequest> exchange = halo_requests(halos, rt.logging(LogTopic::Comm) ? &halo_log : nullptr);
  const Box inside = interior(tile, task, access, exchange);
  // Reductions along a dimension write each output once, from a launch over the whole tile; so
  // does an epilogue (Program::epilogue), whose reductions have no outputs of their own.
  const bool along = !task.reductions.empty() && task.program->reduce_dim >= 0;
  const bool epilogue = !body && task.program->epilogue >= 0;
  const bool overlap = !exchange.empty() && rt.config().overlap && !inside.empty() && !along && !epilogue && !body;
  std::optional<Fetch> halo_fetch;
  if (!exchange.empty()) {
    report.halo_stores = static_cast<int>(exchange.size());
    halo_fetch.emplace(rt.comm(), grid, std::move(exchange), region_label("tessera::halo[", *task.label));
    if (rt.logging(LogTopic::Comm))
      rt.log(LogTopic::Comm, "halo exchange for " + *task.label + ":" + halo_log +
                                 (overlap ? " (behind the interior " + to_string(inside) + ")" : ""));
  }

  // Renamed stores get their buffers now, after the exchange has grown any ghosts: the same
  // layout, so the store can adopt the buffer after the kernel.
  for (std::size_t i = 0; i < nargs; ++i) {
    const Arg& arg = task.args[i];
    if (!arg.renamed) continue;
    if (access[i] == Access::Replicated) raise("internal: ", *task.label, " renames a 0-d store");
    ArgState& st = state[i];
    arg.store->data();  // the frame is copied from the current buffer: it must exist
    st.frame = frame_of(arg, tile);
    st.fresh = arg.store->rename_buffer(st.frame, st.frame_current);
  }

  // Where each argument's elements are: accessors for any part of the tile follow from these.
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < nargs; ++i) {
    const Arg& arg = task.args[i];
    Store& s = *arg.store;
    ArgState& st = state[i];
    if (arg.renamed) {
      st.base = st.fresh.data(), st.layout = s.layout();
    } else if (access[i] == Access::Replicated) {
      st.base = s.data();
    } else if (access[i] == Access::Redistributed) {
      st.base = st.temporary.data(), st.layout = Layout::row_major(st.redistributed);
    } else {
      st.base = s.data(), st.layout = s.layout();
    }
    bytes += (access[i] == Access::Replicated ? 1 : arg.view.footprint(tile)) * size_of(s.dtype());
  }
  const auto accessors = [&](const Box& part) {
    std::vector<Accessor> a(nargs);
    for (std::size_t i = 0; i < nargs; ++i) {
      if (access[i] == Access::Replicated)
        a[i].ptr = state[i].base;
      else
        a[i] = accessor_for(state[i].base, state[i].layout, task.args[i].view, part.lo);
    }
    return a;
  };
  const auto domain_of = [&](const Box& part) { return domain_over(part, key.view); };

  // The partial results live in pool buffers: reductions in a loop allocate nothing either. A
  // launch in parts reduces each later part apart and folds it into the first's.
  Kokkos::View<char*, MemSpace> partials_buffer, part_buffer;
  ReductionTarget target, part_target;
  std::int64_t outputs = 1;  // per slot
  const auto cut = [&](int d) { return launch.cuts[d] && grid.dim(launch.axis[d]) > 1; };
  if (along) {
    const int dim = task.program->reduce_dim - (3 - ndim);
    // A nested reduction (Program::nested) reduces a second dimension inside the kernel; the
    // planner's launch domain cuts neither (the inner result would need partials of its own).
    const int inner = task.program->nested.dim >= 0 ? task.program->nested.dim - (3 - ndim) : -1;
    if (inner >= 0 && (cut(inner) || cut(dim)))
      raise("internal: ", *task.label, " nests reductions along dimensions its launch domain cuts");
    // A sweep (Program::sweep) folds whole rows before it sweeps them: none is cut across ranks.
    if (task.program->sweep >= 0 && cut(ndim - 1))
      raise("internal: ", *task.label, " sweeps rows its launch domain cuts");
    for (int d = 0; d < ndim; ++d)
      if (d != dim && d != inner) outputs *= tile.extent(d);
    // A rank whose tile is off the coordinate an integer index fixes holds no outputs, though its
    // kept extents need not be 0; an empty reduced axis still yields identity outputs.
    if (tile.empty() && task.reductions.front().out->owned().empty()) outputs = 0;
    partials_buffer = allocate(static_cast<std::size_t>(2 * task.reductions.size() * outputs) * sizeof(Value),
                               "tessera::partials", false);
    target.along = reinterpret_cast<Value*>(partials_buffer.data());
    target.count = outputs;
  } else if (epilogue) {
    // One row per output of the last dimension's reductions, none of it cut across ranks.
    if (cut(ndim - 1))
      raise("internal: ", *task.label, " runs an epilogue over a domain cut along its reduced dimension");
    for (int d = 0; d < ndim - 1; ++d) outputs *= std::max<std::int64_t>(0, tile.extent(d));  // rows of 0 too
    // A rank off the coordinate an integer index fixes holds none of the rows, whatever its extents:
    // an index into the key's store, or a launch tiling whose data lies on one grid coordinate
    // (a view of extent 1 inside another rank's tile; its tile here is empty along the reduced
    // dimension too, which alone would still be a row of identity outputs).
    if ((key.store->ndim() > 0 && key.store->owned().empty()) || !launch.holds(grid.coords(rt.rank()))) outputs = 0;
    target.count = outputs;
  } else if (!task.reductions.empty()) {
    partials_buffer = allocate(sizeof(Accumulators), "tessera::partials", false);
    target.partials = PartialsView(reinterpret_cast<Accumulators*>(partials_buffer.data()));
  }
  // A task's body: its halos complete first; an image exchange runs behind the body's Owned phase
  // where the body splits.
  std::optional<ImageFetch> image_fetch;
  Kokkos::View<char*, MemSpace> image_buffer;
  const auto run_body = [&] {
    if (halo_fetch) report.halo_bytes = halo_fetch->finish();
    if (image_arg >= 0 && rt.size() > 1) {  // one rank owns every entry
      const ImagePlan& plan = *body->constraint(image_arg).image();
      Store& x = *task.args[image_arg].store;
      image_buffer = allocate(static_cast<std::size_t>(plan.ghosts) * size_of(x.dtype()), "tessera::image", false);
      image_fetch.emplace(rt.comm(), plan, x, image_buffer.data(), region_label("tessera::image[", *task.label));
    }
    for (std::size_t i = 0; i < nargs; ++i)
      if (body->privilege(static_cast<int>(i)) == Privilege::Reduce) zero_contribution(task.args[i], *task.label);
    TileContext context;
    context.tile = tile;
    context.shape = key.view.extent;
    for (std::size_t i = 0; i < nargs; ++i) {
      context.args.push_back(tile_arg(task.args[i], access[i], state[i].base, state[i].layout, tile, state[i].ghosts));
      if (access[i] == Access::Image) {
        context.args.back().image = image_buffer.data();
        context.args.back().image_count = body->constraint(static_cast<int>(i)).image()->ghosts;
      }
    }
    ScopedRegion region(*task.label);
    if (image_fetch && body->splits()) {
      context.phase = TileContext::Phase::Owned;
      body->run(context);
      report.image_bytes = image_fetch->finish();
      context.phase = TileContext::Phase::Ghosts;
      body->run(context);
    } else {
      if (image_fetch) report.image_bytes = image_fetch->finish();
      body->run(context);
    }
    if (image_fetch) {
      rt.stats().image_exchanges++;
      rt.stats().image_bytes += report.image_bytes;
    }
    recycle(std::move(image_buffer));
    for (std::size_t i = 0; i < nargs; ++i)
      if (body->privilege(static_cast<int>(i)) == Privilege::Reduce)
        sum_contributions(task.args[i], launch, grid, *task.label);
  };
  bool launched = false;
  const auto run = [&](const Box& part, const std::string& label) {
    if ((along || epilogue) && outputs == 0) return;  // nothing to reduce into on this rank
    if (task.reductions.empty() || !launched) {
      launch_kernel(label, *task.program, accessors(part), domain_of(part), target);
    } else {
      if (!part_buffer.data()) {
        part_buffer = allocate(sizeof(Accumulators), "tessera::partials", false);
        part_target.partials = PartialsView(reinterpret_cast<Accumulators*>(part_buffer.data()));
      }
      launch_kernel(label, *task.program, accessors(part), domain_of(part), part_target);
      combine_partials(*task.program, target.partials, part_target.partials);
    }
    launched = true;
  };
  if (body) {
    run_body();
  } else if (overlap) {
    // The interior reads no fetched cell: it runs while the messages travel; the strips around it
    // run once they have arrived.
    run(inside, *task.label);
    report.halo_bytes = halo_fetch->finish();
    const std::string boundary = region_label("tessera::boundary[", *task.label);
    for (const Box& strip : subtract(tile, inside)) {
      run(strip, boundary);
      rt.stats().boundary_launches++;
    }
    rt.stats().halo_overlaps++;
  } else {
    if (halo_fetch) report.halo_bytes = halo_fetch->finish();
    run(tile, *task.label);
  }
  if (halo_fetch) {
    rt.stats().halo_bytes += report.halo_bytes;
    rt.stats().halo_exchanges++;
  }
  rt.stats().kernels++;
  for (std::size_t i = 0; i < nargs; ++i)
    if (task.args[i].renamed)
      bytes +=
          adopt_renamed(task.args[i], state[i].frame, std::move(state[i].fresh), state[i].frame_current, *task.label);
  rt.stats().bytes_accessed += bytes;
  for (const Arg& arg : task.args)
    if (arg.written && !arg.renamed) arg.store->mark_written();  // a renamed one was adopted
  if (rt.logging(LogTopic::Exec))
    rt.log(LogTopic::Exec, *task.label + ": " + (body ? std::string("a task's body") : task.program->describe()));
  for (ArgState& a : state) recycle(std::move(a.temporary));
  if (!task.reductions.empty())
    finish_reductions(task, reinterpret_cast<Value*>(partials_buffer.data()), outputs,
                      reduction_partners(task, launch, grid),
                      along || launch.primary(grid.coords(rt.rank()), grid.ndim()));
  recycle(std::move(partials_buffer));
  recycle(std::move(part_buffer));
  return report;
}

namespace {

// The parts and arguments `task` may add to a batch: its own, and a copy per renamed store.
std::pair<int, int> batch_size_of(const Launch& task) {
  int parts = 1, args = static_cast<int>(task.args.size());
  for (const Arg& arg : task.args)
    if (arg.renamed) parts += 1, args += 2;
  return {parts, args};
}

// Whether `task` can run as a part of a batch (decided from global metadata, before anything
// changes): it is elementwise (no reduction, epilogue or task body) and reads every store on its
// own rank (Aligned, Local), so it needs no exchange, which in a batch in order would have to wait
// for the parts before it (their writes invalidate what it reads). In an independent batch no
// part writes what another reads, so every part's halos and redistributed operands can be fetched
// before the batch runs (BatchFetch). A renamed store is written into its fresh buffer inside the
// batch (BatchBuilder::add).
bool batchable(const Launch& task, BatchOrder order) {
  RuntimeState& rt = runtime();
  if (!task.reductions.empty() || task.body || task.program->epilogue >= 0) return false;
  const auto [parts, args] = batch_size_of(task);
  if (parts > kMaxBatchParts || args > kMaxArgs) return false;
  const std::optional<Tiling> launch = induced(task.domain.store->tiling(), task.domain.view);
  if (!launch) return false;
  const ProcessGrid& grid = rt.grid(launch->grid);
  for (const Arg& arg : task.args) {
    if (arg.store->ndim() == 0) {
      if (arg.renamed) return false;
      continue;
    }
    const Access access = classify(arg, *launch, grid, rt.size()).access;
    const bool fetched =
        order == BatchOrder::Independent && !arg.written && (access == Access::Halo || access == Access::Redistributed);
    if (access != Access::Aligned && access != Access::Local && !fetched) return false;
  }
  return true;
}

// What an independent batch's parts read from other ranks, fetched before it runs: the halos of
// every part (one grouped exchange) and each redistributed operand into a buffer of its own.
class BatchFetch {
 public:
  struct Buffer {
    Kokkos::View<char*, MemSpace> data;  // empty: the argument is read in its store
    Box box;                             // the store box it holds, row-major
  };
  // Classifies `task`'s arguments again (batchable() said yes) and notes what they need.
  void add(const Launch& task) {
    RuntimeState& rt = runtime();
    const Tiling launch = *induced(task.domain.store->tiling(), task.domain.view);
    const ProcessGrid& grid = rt.grid(launch.grid);
    if (!grid_) grid_ = &grid;
    std::vector<Buffer>& buffers = buffers_.emplace_back(task.args.size());
    int redistributed = 0;
    for (std::size_t a = 0; a < task.args.size(); ++a) {
      const Arg& arg = task.args[a];
      Store& s = *arg.store;
      if (s.ndim() == 0) continue;
      Classified c = classify(arg, launch, grid, rt.size());
      if (c.access == Access::Halo) {
        halos_.add(s, c.lo, c.hi);
      } else if (c.access == Access::Redistributed) {
        Buffer& b = buffers[a];
        b.box = c.need[rt.rank()];
        moves_.push_back(redistribution(s, std::move(c.need), b.box, b.data));
        ++redistributed;
      }
    }
    redistributions_.push_back(redistributed);
  }
  // Fetches it all; the first part's report counts the halo exchange, each part its
  // redistributions.
  void run(const std::string& label, ExecReport* reports) {
    RuntimeState& rt = runtime();
    for (std::size_t k = 0; k < redistributions_.size(); ++k) reports[k].redistributions = redistributions_[k];
    if (!moves_.empty()) {
      rt.stats().redistributions += static_cast<std::int64_t>(moves_.size());
      rt.stats().redistribution_bytes +=
          fetch(rt.comm(), *grid_, std::move(moves_), region_label("tessera::redistribute[", label));
    }
    std::string log;
    std::vector<FetchRequest> exchange = halo_requests(halos_, rt.logging(LogTopic::Comm) ? &log : nullptr);
    if (exchange.empty()) return;
    reports[0].halo_stores = static_cast<int>(exchange.size());
    reports[0].halo_bytes = fetch(rt.comm(), *grid_, std::move(exchange), region_label("tessera::halo[", label));
    rt.stats().halo_bytes += reports[0].halo_bytes;
    rt.stats().halo_exchanges++;
    if (!log.empty()) rt.log(LogTopic::Comm, "halo exchange for the independent batch of " + label + ":" + log);
  }
  // Part k's buffers (the k-th launch added), kept until the batch has been enqueued.
  const std::vector<Buffer>& buffers(std::size_t k) const { return buffers_[k]; }

 private:
  HaloNeeds halos_;
  std::vector<FetchRequest> moves_;
  std::vector<std::vector<Buffer>> buffers_;
  std::vector<int> redistributions_;
  const ProcessGrid* grid_ = nullptr;
};

// This rank's tile of `task`'s launch domain (a batchable launch's domain has a tiling).
Box rank_tile(const Launch& task) {
  RuntimeState& rt = runtime();
  const Tiling launch = *induced(task.domain.store->tiling(), task.domain.view);
  return launch.tile(rt.grid(launch.grid).coords(rt.rank()));
}

// Copies a store's element to the same element of another buffer: a renamed store's old values
// brought into its fresh buffer inside a batch, before the part that writes the buffer's view.
const Program& copy_program(DType type) {
  static const auto programs = [] {
    constexpr int kTypes = static_cast<int>(DType::Float64) + 1;
    std::vector<Program> all(kTypes);
    for (int t = 0; t < kTypes; ++t) {
      Program& p = all[t];
      p.code = {Instr{OpCode::Load, static_cast<DType>(t), DType::Bool, 0, 0, 0, 0},
                Instr{OpCode::Store, static_cast<DType>(t), DType::Bool, 0, 1, 0, 0}};
      p.registers = 1;
    }
    return all;
  }();
  return programs[static_cast<int>(type)];
}

// A batch being built: parts in program order, each seeing the buffers the parts before it left
// (a renamed store adopts its fresh buffer as soon as its part is built).
class BatchBuilder {
 public:
  explicit BatchBuilder(BatchOrder order) : order_(order) {}

  bool fits(const Launch& task) const {
    const auto [parts, args] = batch_size_of(task);
    return static_cast<int>(parts_.size()) + parts <= kMaxBatchParts && args_ + args <= kMaxArgs;
  }

  // `fetched`: where the arguments that an independent batch fetched are (BatchFetch), or null.
  void add(const Launch& task, const std::vector<BatchFetch::Buffer>* fetched = nullptr) {
    const Box tile = rank_tile(task);
    BatchLaunch part{task.program, {}, domain_over(tile, task.domain.view)};
    struct Renamed {
      Store* store;
      Kokkos::View<char*, MemSpace> fresh;
      std::vector<Box> frame;
    };
    std::vector<Renamed> renamed;
    for (const Arg& arg : task.args) {
      Store& s = *arg.store;
      if (s.ndim() == 0) {
        part.args.push_back(Accessor{s.data(), 0, {0, 0, 0}});
        continue;
      }
      if (fetched && (*fetched)[part.args.size()].data.data()) {
        const BatchFetch::Buffer& b = (*fetched)[part.args.size()];
        part.args.push_back(accessor_for(b.data.data(), Layout::row_major(b.box), arg.view, tile.lo));
        bytes_ += arg.view.footprint(tile) * size_of(s.dtype());
        continue;
      }
      char* base = s.data();
      if (arg.renamed && order_ == BatchOrder::Independent)
        raise("internal: a renaming launch in an independent batch");
      if (arg.renamed) {
        std::vector<Box> frame = frame_of(arg, tile);
        bool frame_current = false;
        Kokkos::View<char*, MemSpace> fresh = s.rename_buffer(frame, frame_current);
        base = fresh.data();
        if (!frame_current) copy_tile(s, base);
        renamed.push_back({&s, std::move(fresh), std::move(frame)});
      }
      part.args.push_back(accessor_for(base, s.layout(), arg.view, tile.lo));
      bytes_ += arg.view.footprint(tile) * size_of(s.dtype());
    }
    args_ += static_cast<int>(part.args.size());
    parts_.push_back(std::move(part));
    launches_.push_back(&task);
    if (!label_) label_ = task.label;  // the batch's name: its first launch's
    // What the later parts see: the renamed stores' fresh buffers, and every write counted (a
    // renaming after it must copy the frame again).
    for (Renamed& r : renamed) {
      r.store->adopt(std::move(r.fresh), r.frame);
      runtime().stats().buffer_renames++;
    }
    for (const Arg& arg : task.args)
      if (arg.written && !arg.renamed) arg.store->mark_written();
  }

  // The frames that `next`, the launch after the batch, renames: copied from the current buffers
  // into the spare buffers its renamings will write, as the batch's last parts, where they fit.
  // A loop that writes a store's boundary in small kernels (boundary conditions) and then renames
  // it (the interior update of the next iteration) then launches no copy of its own for the
  // frame the boundary conditions just wrote.
  void prefetch_frames(const Launch& next) {
    if (!induced(next.domain.store->tiling(), next.domain.view)) return;
    const Box tile = rank_tile(next);
    for (const Arg& arg : next.args) {
      if (!arg.renamed || arg.store->ndim() == 0) continue;
      Store& s = *arg.store;
      const std::vector<Box> frame = frame_of(arg, tile);
      const int pieces = static_cast<int>(frame.size());
      if (!pieces || !s.spare_data() || s.spare_frame_current(frame) ||
          static_cast<int>(parts_.size()) + pieces > kMaxBatchParts || args_ + 2 * pieces > kMaxArgs)
        continue;
      for (const Box& piece : frame) copy_box(s, s.spare_data(), piece);
      s.spare_frame_copied(frame);
    }
  }

  void launch() {
    if (parts_.empty()) return;
    RuntimeState& rt = runtime();
    launch_batch(*label_, parts_, order_);
    rt.stats().kernels++;
    rt.stats().bytes_accessed += bytes_;
    if (rt.logging(LogTopic::Exec))
      for (const Launch* task : launches_)
        if (task) rt.log(LogTopic::Exec, *task->label + " (batched): " + task->program->describe());
    parts_.clear(), launches_.clear(), label_ = nullptr, args_ = 0, bytes_ = 0;
  }

 private:
  // The whole owned tile of `s` from its current buffer into `to` (the renamed part then writes its
  // view there): one part of two arguments where the frame's pieces would take one each.
  void copy_tile(Store& s, char* to) { copy_box(s, to, s.owned()); }
  // A part that copies `box` (store coordinates) of `s` from its current buffer into `to`.
  void copy_box(Store& s, char* to, const Box& box) {
    const View view = View::of_box(box);
    const Box whole = view.whole();
    BatchLaunch copy{&copy_program(s.dtype()), {}, domain_over(whole, view)};
    copy.args.push_back(accessor_for(s.data(), s.layout(), view, whole.lo));
    copy.args.push_back(accessor_for(to, s.layout(), view, whole.lo));
    parts_.push_back(std::move(copy));
    launches_.push_back(nullptr);
    args_ += 2;
    bytes_ += 2 * box.volume() * size_of(s.dtype());
  }

  BatchOrder order_;
  std::vector<BatchLaunch> parts_;
  std::vector<const Launch*> launches_;  // per part (nullptr: a copy)
  const std::string* label_ = nullptr;
  int args_ = 0;
  std::int64_t bytes_ = 0;
};

}  // namespace

std::vector<ExecReport> execute_batch(const std::vector<Launch>& launches, const Launch* next, BatchOrder order) {
  // Runs of consecutive launches that can be batched go as batches (as many kernels as their
  // parameters need); a launch that cannot, or a run of one, goes on its own. Every rank decides the
  // same (from global metadata), so all take part in the same exchanges.
  std::vector<ExecReport> reports(launches.size());
  const std::size_t n = launches.size();
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && batchable(launches[j], order)) ++j;
    if (j - i >= 2) {
      // An independent batch's parts read what they fetch before it (no part writes it); one rank
      // holds every store whole and fetches nothing.
      const bool fetches = order == BatchOrder::Independent && runtime().size() > 1;
      BatchFetch fetched;
      if (fetches) {
        for (std::size_t k = i; k < j; ++k) fetched.add(launches[k]);
        fetched.run(*launches[i].label, &reports[i]);
      }
      BatchBuilder batch(order);
      for (const std::size_t first = i; i < j; ++i) {
        if (!batch.fits(launches[i])) batch.launch();
        batch.add(launches[i], fetches ? &fetched.buffers(i - first) : nullptr);
        reports[i].batched = true;
      }
      // Independent parts run in no order: a copy into a frame that a part reads could race it.
      if (const Launch* after = j < n ? &launches[j] : next; after && order == BatchOrder::InOrder)
        batch.prefetch_frames(*after);
      batch.launch();
    }
    for (; i < j; ++i) reports[i] = execute(launches[i]);  // a run of one
    if (j < n) reports[j] = execute(launches[j]);          // known not to batch: not asked again
    i = j + 1;
  }
  return reports;
}

}  // namespace tessera::detail
