#include "tessera/array/array_ref.hpp"

#include "tessera/array/store_factory.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/runtime_state.hpp"

namespace tessera::detail {

Shape ArrayRef::shape() const {
  Shape s(view.ndim);
  for (int d = 0; d < view.ndim; ++d) s[d] = view.extent(d);
  return s;
}

std::int64_t ArrayRef::size() const { return view.volume(); }

std::string shape_string(const Shape& s) {
  std::string out = "(";
  for (std::size_t d = 0; d < s.size(); ++d) out += (d ? ", " : "") + std::to_string(s[d]);
  return out + (s.size() == 1 ? ",)" : ")");
}

void check_runtime(const ArrayRef& a, const char* what) {
  runtime();
  if (!a.valid()) raise(what, ": the array is empty (default-constructed and never assigned)");
  if (a.store->released())
    raise(what, ": the array's data was freed when the tessera::Runtime that created it was destroyed");
}

namespace {
std::size_t g_memory_limit = SIZE_MAX;
}

void set_memory_limit(std::size_t bytes) { g_memory_limit = bytes; }

Tiling balanced_tiling(const Shape& shape, const char* what) {
  if (shape.empty() || shape.size() > 3)
    raise(what, ": arrays have 1 to 3 dimensions, got shape ", shape_string(shape));
  for (auto e : shape)
    if (e < 0) raise(what, ": negative extent in shape ", shape_string(shape));
  std::int64_t volume = 1;
  for (auto e : shape) {
    if (e > 0 && volume > INT64_MAX / e)
      raise(what, ": shape ", shape_string(shape), " has more than 2^63 - 1 elements");
    volume *= e;
  }
  const ProcessGrid& grid = runtime().grid(static_cast<int>(shape.size()));
  Tiling t;
  t.ndim = static_cast<int>(shape.size());
  for (int d = 0; d < t.ndim; ++d) {
    t.cuts[d] = balanced_cuts(shape[d], grid.dim(d));
    t.extent[d] = shape[d];
  }
  return t;
}

Tiling balanced_tiling(const Shape& shape, const char* what, DType type) {
  Tiling t = balanced_tiling(shape, what);
  // The largest tile (the first of each dimension's cuts is never smaller than the others), in
  // bytes, from global metadata: every rank computes the same number.
  const std::size_t limit = g_memory_limit;
  std::size_t bytes = static_cast<std::size_t>(size_of(type));
  bool fits = bytes <= limit;
  for (int d = 0; d < t.ndim && fits; ++d) {
    const auto widest = static_cast<std::size_t>(t.cuts[d]->points[1] - t.cuts[d]->points[0]);
    if (widest > 0 && bytes > limit / widest)
      fits = false;
    else
      bytes *= widest;
  }
  if (!fits || bytes > limit) {
    std::string need = "more than that";
    long double exact = size_of(type);
    for (int d = 0; d < t.ndim; ++d) exact *= static_cast<long double>(t.cuts[d]->points[1] - t.cuts[d]->points[0]);
    if (exact < 1.8e19L) need = std::to_string(static_cast<unsigned long long>(exact)) + " bytes";
    raise("out of memory: ", what, " of a ", name(type), " array of shape ", shape_string(shape), " needs ", need,
          " on one rank (its largest tile on ", runtime().size(), " rank(s)), but the memory space ", MemSpace::name(),
          " of a rank holds ", limit, " bytes in all");
  }
  return t;
}

ArrayRef new_array(DType type, const Tiling& tiling, bool zero) {
  RuntimeState& rt = runtime();
  Box owned = tiling.ndim == 0 ? Box{} : tiling.tile(rt.grid(tiling.ndim).coords(rt.rank()));
  auto store = std::make_shared<Store>(type, tiling, owned, zero);
  return ArrayRef{store, store->full()};
}

ArrayRef new_array_like(DType type, const ArrayRef& key, bool zero) {
  if (key.ndim() == 0) return new_array(type, Tiling{}, zero);
  Index3 extent{1, 1, 1};
  for (int d = 0; d < key.ndim(); ++d) extent[d] = key.view.extent(d);
  return new_array(type, key.store->tiling().restricted(key.view.lo, extent), zero);
}

ArrayRef slice(const ArrayRef& a, const std::vector<SliceSpec>& slices) {
  check_runtime(a, "slice");
  if (static_cast<int>(slices.size()) > a.ndim())
    raise("slice: ", slices.size(), " slices given for an array of shape ", shape_string(a.shape()));
  ArrayRef r = a;
  for (int d = 0; d < static_cast<int>(slices.size()); ++d) {
    const SliceSpec& s = slices[d];
    if (s.whole) continue;
    const std::int64_t n = a.view.extent(d);
    std::int64_t lo = s.start < 0 ? s.start + n : s.start;
    std::int64_t hi = s.stop_is_end ? n : s.stop < 0 ? s.stop + n : s.stop;
    if (lo < 0 || hi > n || lo > hi) {
      std::string stop = s.stop_is_end ? "end" : std::to_string(s.stop);
      raise("slice(", s.start, ", ", stop, ") on dimension ", d, " of extent ", n, " of shape ",
            shape_string(a.shape()), " selects [", lo, ", ", hi, "): bounds must satisfy 0 <= start <= stop <= ", n);
    }
    r.view.lo[d] = a.view.lo[d] + lo;
    r.view.hi[d] = a.view.lo[d] + hi;
  }
  return r;
}

}  // namespace tessera::detail
