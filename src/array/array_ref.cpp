#include "tessera/array/array_ref.hpp"

#include "tessera/array/store_factory.hpp"
#include "tessera/core/error.hpp"
#include "tessera/fusion/runtime_state.hpp"

namespace tessera::detail {

Shape ArrayRef::shape() const {
  Shape s(view.ndim);
  for (int d = 0; d < view.ndim; ++d) s[d] = view.extent[d];
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
  return balanced(shape, {grid.dim(0), grid.dim(1), grid.dim(2)});
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
  const ProcessGrid& grid = rt.grid(tiling.grid);
  const Index3 coords = grid.coords(rt.rank());
  // A 0-d store is on every rank; rank 0's copy counts.
  const bool primary = tiling.ndim == 0 ? rt.rank() == 0 : tiling.primary(coords, grid.ndim());
  auto store = make_store(type, tiling, tiling.tile(coords), primary, zero);
  return ArrayRef{store, store->whole()};
}

// Dimensions that are not cut at their defaults, as induced() leaves them: a result of a whole
// store's shape then takes the store's tiling as it is (a steady loop makes one such result per
// op; recomputing the tiling cost more than the rest of the new store).
bool induces_own_tiling(const ArrayRef& a) {
  const Tiling& t = a.store->tiling();
  const View& v = a.view;
  if (v.ndim != t.ndim || v.store_ndim != t.ndim) return false;
  for (int d = 0; d < kMaxDims; ++d) {
    const bool inside = d < t.ndim;
    if (inside && (v.origin[d] != 0 || v.extent[d] != t.extent[d])) return false;
    for (int k = 0; k < t.ndim; ++k)
      if (inside && v.map[k][d] != (k == d ? 1 : 0)) return false;
    if ((!inside || !t.cuts[d]) && (t.axis[d] != d || t.offset[d] != 0 || t.step[d] != 1)) return false;
    if (!inside && (t.cuts[d] || t.extent[d] != 1)) return false;
  }
  return true;
}

ArrayRef new_array_like(DType type, const ArrayRef& key, bool zero) {
  if (key.ndim() == 0) return new_array(type, Tiling{}, zero);  // 0-d results are replicated
  if (key.store->ndim() > 0 && induces_own_tiling(key)) return new_array(type, key.store->tiling(), zero);
  if (key.store->ndim() > 0 && !key.view.stretched()) {
    if (auto t = induced(key.store->tiling(), key.view)) return new_array(type, *t, zero);
  }
  return new_array(type, balanced_tiling(key.shape(), "result", type), zero);
}

namespace {

// [lo, hi) of a range entry on an axis of extent n, checked as tessera checks slices (bounds out
// of range are errors, not clipped: a bad slice in an SPMD program is a bug).
std::pair<std::int64_t, std::int64_t> resolve_range(const IndexSpec& s, int axis, std::int64_t n, const ArrayRef& a) {
  if (s.whole) return {0, n};
  if (s.step < 1)
    raise("index: slice step ", s.step, " on axis ", axis, " of shape ", shape_string(a.shape()),
          ": steps must be at least 1 (tessera has no negative steps; NumPy's step 0 is an error too)");
  const std::int64_t lo = s.start < 0 ? s.start + n : s.start;
  const std::int64_t hi = s.stop_is_end ? n : s.stop < 0 ? s.stop + n : s.stop;
  if (lo < 0 || hi > n || lo > hi) {
    std::string stop = s.stop_is_end ? "end" : std::to_string(s.stop);
    raise("slice(", s.start, ", ", stop, s.step != 1 ? ", " + std::to_string(s.step) : std::string(), ") on axis ",
          axis, " of extent ", n, " of shape ", shape_string(a.shape()), " selects [", lo, ", ", hi,
          "): bounds must satisfy 0 <= start <= stop <= ", n);
  }
  return {lo, hi};
}

}  // namespace

ArrayRef index(const ArrayRef& a, const std::vector<IndexSpec>& entries) {
  check_runtime(a, "index");
  // The shape only for messages: a view is made per operand of most ops, and a Shape is a vector.
  auto shape = [&a] { return a.shape(); };
  int consumed = 0;
  for (const IndexSpec& e : entries) consumed += e.kind != IndexSpec::Kind::NewAxis;
  if (consumed > a.ndim())
    raise("index: too many indices for an array of shape ", shape_string(shape()), ": the array is ", a.ndim(),
          "-dimensional, but ", consumed, " were indexed");
  const View& in = a.view;
  View out = in;  // copied, then cleared but for store_ndim and origin (a fresh View is zeroed by `rep stos`)
  out.ndim = 0;
  out.extent = {1, 1, 1};
  out.map = {};
  int next = 0;  // the next axis of `a` an entry applies to
  auto add_axis = [&](std::int64_t extent, const Index3& column, const char* why) {
    if (out.ndim == kMaxDims)
      raise("index: ", why, " would give a view of more than ", kMaxDims, " dimensions (of shape ",
            shape_string(shape()), "); tessera arrays have 1 to 3");
    for (int k = 0; k < kMaxDims; ++k) out.map[k][out.ndim] = column[k];
    out.extent[out.ndim++] = extent;
  };
  auto column_of = [&](int d) {
    Index3 c{0, 0, 0};
    for (int k = 0; k < kMaxDims; ++k) c[k] = in.map[k][d];
    return c;
  };
  for (const IndexSpec& e : entries) {
    if (e.kind == IndexSpec::Kind::NewAxis) {
      add_axis(1, Index3{0, 0, 0}, "ts::newaxis");
      continue;
    }
    const int d = next++;
    const std::int64_t n = in.extent[d];
    const Index3 c = column_of(d);
    if (e.kind == IndexSpec::Kind::Integer) {
      const std::int64_t i = e.start < 0 ? e.start + n : e.start;
      if (i < 0 || i >= n)
        raise("index ", e.start, " is out of bounds for axis ", d, " with size ", n, " (shape ", shape_string(shape()),
              ")");
      for (int k = 0; k < kMaxDims; ++k) out.origin[k] += c[k] * i;
      continue;
    }
    const auto [lo, hi] = resolve_range(e, d, n, a);
    const std::int64_t step = e.whole ? 1 : e.step;
    for (int k = 0; k < kMaxDims; ++k) out.origin[k] += c[k] * lo;
    Index3 stepped = c;
    for (auto& x : stepped) x *= step;
    add_axis((hi - lo + step - 1) / step, stepped, "the index");
  }
  for (int d = next; d < a.ndim(); ++d) add_axis(in.extent[d], column_of(d), "the index");
  return ArrayRef{a.store, out};
}

Shape broadcast_shapes(const char* what, const std::vector<Shape>& shapes) {
  Shape out;
  for (const Shape& s : shapes) out.resize(std::max(out.size(), s.size()), 1);
  for (const Shape& s : shapes) {
    const std::size_t pad = out.size() - s.size();
    for (std::size_t d = 0; d < s.size(); ++d) {
      std::int64_t& o = out[pad + d];
      if (s[d] == o || s[d] == 1) continue;
      if (o == 1) {
        o = s[d];
        continue;
      }
      std::string list;
      for (const Shape& x : shapes) list += (list.empty() ? "" : " and ") + shape_string(x);
      raise(what, ": operands could not be broadcast together with shapes ", list);
    }
  }
  return out;
}

View broadcast_view(const ArrayRef& a, const Shape& shape) {
  return broadcast_view(a, shape.data(), static_cast<int>(shape.size()));
}

View broadcast_view(const ArrayRef& a, const std::int64_t* shape, int nd) {
  const View& in = a.view;
  const int pad = nd - in.ndim;
  View v;
  v.ndim = nd;
  v.store_ndim = in.store_ndim;
  v.origin = in.origin;
  for (int d = 0; d < nd; ++d) {
    v.extent[d] = shape[d];
    const int from = d - pad;
    if (from < 0 || in.extent[from] != shape[d]) continue;  // a new or stretched axis: a zero column
    for (int k = 0; k < kMaxDims; ++k) v.map[k][d] = in.map[k][from];
  }
  return v;
}

}  // namespace tessera::detail
