#include "tessera/partition/view.hpp"

#include <numeric>
#include <tuple>

namespace tessera::detail {

View View::of_box(const Box& b) {
  View v;
  v.ndim = v.store_ndim = b.ndim;
  for (int d = 0; d < b.ndim; ++d) {
    v.extent[d] = b.extent(d);
    v.origin[d] = b.lo[d];
    v.map[d][d] = 1;
  }
  return v;
}

std::int64_t View::volume() const {
  std::int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= std::max<std::int64_t>(0, extent[d]);
  return n;
}

Index3 View::store_index(const Index3& x) const {
  Index3 s = origin;
  for (int k = 0; k < store_ndim; ++k)
    for (int d = 0; d < ndim; ++d) s[k] += map[k][d] * x[d];
  return s;
}

Box View::whole() const {
  Box b;
  b.ndim = ndim;
  for (int d = 0; d < ndim; ++d) b.hi[d] = extent[d];
  return b;
}

Box View::bounds(const Box& part) const {
  Box b;
  b.ndim = store_ndim;
  if (part.empty()) {
    for (int k = 0; k < store_ndim; ++k) b.lo[k] = b.hi[k] = origin[k];
    if (store_ndim == 0) b.hi[0] = b.lo[0];
    return b;
  }
  for (int k = 0; k < store_ndim; ++k) {
    std::int64_t lo = origin[k], hi = origin[k];
    for (int d = 0; d < ndim; ++d) {
      lo += map[k][d] * part.lo[d];  // steps are never negative
      hi += map[k][d] * (part.hi[d] - 1);
    }
    b.lo[k] = lo;
    b.hi[k] = hi + 1;
  }
  return b;
}

bool View::is_box() const {
  if (ndim != store_ndim) return false;
  for (int k = 0; k < store_ndim; ++k)
    for (int d = 0; d < ndim; ++d)
      if (map[k][d] != (k == d ? 1 : 0)) return false;
  return true;
}

bool View::separable() const {
  for (int d = 0; d < ndim; ++d) {
    int moved = 0;
    for (int k = 0; k < store_ndim; ++k) moved += map[k][d] != 0;
    if (moved > 1) return false;
  }
  for (int k = 0; k < store_ndim; ++k) {
    int movers = 0;
    for (int d = 0; d < ndim; ++d) movers += map[k][d] != 0;
    if (movers > 1) return false;
  }
  return true;
}

int View::moved_by(int d) const {
  for (int k = 0; k < store_ndim; ++k)
    if (map[k][d] != 0) return k;
  return -1;
}

namespace {

// The store indices along dimension k that a separable view shows are origin + step * x (step 0:
// the one index origin); may_meet needs no more of them than that (the bounds cover the rest).
struct Progression {
  std::int64_t origin = 0, step = 0;
};
Progression along(const View& v, int k) {
  Progression p{v.origin[k], 0};
  for (int d = 0; d < v.ndim; ++d)
    if (v.map[k][d] != 0 && v.extent[d] > 1) p.step = v.map[k][d];
  return p;
}

}  // namespace

bool may_meet(const View& a, const View& b) {
  if (a.volume() == 0 || b.volume() == 0 || intersect(a.bounds(), b.bounds()).empty()) return false;
  if (!a.separable() || !b.separable()) return true;
  for (int k = 0; k < a.store_ndim; ++k) {
    const Progression p = along(a, k), q = along(b, k);
    // origin_p + step_p x == origin_q + step_q y has a solution only where gcd(steps) divides the
    // origins' difference (an index set of one element has step 0: the gcd is the other step).
    const std::int64_t g = std::gcd(p.step, q.step);
    if (g > 1 && (p.origin - q.origin) % g != 0) return false;
  }
  return true;
}

std::int64_t View::footprint(const Box& part) const {
  std::int64_t n = 1;
  for (int d = 0; d < part.ndim; ++d)
    if (d >= ndim || moved_by(d) >= 0) n *= part.hi[d] - part.lo[d];
  return n;
}

bool View::stretched() const {
  for (int d = 0; d < ndim; ++d)
    if (extent[d] > 1 && moved_by(d) < 0) return true;
  return false;
}

Box View::preimage(const Box& store_box) const {
  Box p = whole();
  std::array<bool, kMaxDims> moved{};
  for (int d = 0; d < ndim; ++d) {
    const int k = moved_by(d);
    if (k < 0) continue;
    moved[k] = true;
    const std::int64_t t = map[k][d];
    // view elements x with store_box.lo <= origin + t x < store_box.hi
    const std::int64_t a = store_box.lo[k] - origin[k], b = store_box.hi[k] - origin[k];
    const std::int64_t lo = a <= 0 ? 0 : (a + t - 1) / t;
    const std::int64_t hi = b <= 0 ? 0 : (b + t - 1) / t;
    p.lo[d] = std::min(lo, extent[d]);
    p.hi[d] = std::clamp(hi, p.lo[d], extent[d]);
  }
  // A store dimension no view dimension moves is fixed at origin: all or nothing.
  for (int k = 0; k < store_ndim; ++k)
    if (!moved[k] && (origin[k] < store_box.lo[k] || origin[k] >= store_box.hi[k])) {
      p.lo[0] = p.hi[0] = 0;  // empty (also for ndim 0)
    }
  return p;
}

bool operator<(const View& a, const View& b) {
  return std::tie(a.ndim, a.store_ndim, a.extent, a.origin, a.map) <
         std::tie(b.ndim, b.store_ndim, b.extent, b.origin, b.map);
}

View compose(const View& outer, const View& inner) {
  View v;
  v.ndim = inner.ndim;
  v.store_ndim = outer.store_ndim;
  v.extent = inner.extent;
  v.origin = outer.origin;
  for (int k = 0; k < outer.store_ndim; ++k) {
    for (int m = 0; m < outer.ndim; ++m) v.origin[k] += outer.map[k][m] * inner.origin[m];
    for (int d = 0; d < inner.ndim; ++d)
      for (int m = 0; m < outer.ndim; ++m) v.map[k][d] += outer.map[k][m] * inner.map[m][d];
  }
  return v;
}

std::optional<Tiling> induced(const Tiling& store, const View& view) {
  if (!view.separable()) return std::nullopt;
  Tiling t;
  t.ndim = view.ndim;
  t.grid = store.grid;
  t.fixed = store.fixed;
  std::array<bool, kMaxDims> moved{};
  for (int d = 0; d < view.ndim; ++d) {
    t.extent[d] = view.extent[d];
    const int k = view.moved_by(d);
    if (k < 0) continue;  // new or stretched: whole wherever the tiling holds data
    moved[k] = true;
    if (!store.cuts[k]) continue;
    t.cuts[d] = store.cuts[k];
    t.axis[d] = store.axis[k];
    t.offset[d] = store.offset[k] + view.origin[k] * store.step[k];
    t.step[d] = view.map[k][d] * store.step[k];
  }
  for (int k = 0; k < store.ndim; ++k)
    if (!moved[k] && store.cuts[k])
      t.fixed[store.axis[k]] = store.cuts[k]->tile_of(store.offset[k] + view.origin[k] * store.step[k]);
  for (int d = view.ndim; d < kMaxDims; ++d) t.axis[d] = static_cast<std::int8_t>(d);
  return t;
}

std::ostream& operator<<(std::ostream& out, const View& v) {
  if (v.is_box()) return out << v.box();
  out << '[';
  for (int d = 0; d < v.ndim; ++d) {
    const int k = v.moved_by(d);
    out << (d ? ", " : "");
    if (k < 0) {
      out << (v.extent[d] == 1 ? "newaxis" : "stretched " + std::to_string(v.extent[d]));
      continue;
    }
    out << "dim" << k << " " << v.origin[k] << ':' << v.origin[k] + v.map[k][d] * v.extent[d];
    if (v.map[k][d] != 1) out << ':' << v.map[k][d];
  }
  out << " of " << v.store_ndim << "-d";
  for (int k = 0; k < v.store_ndim; ++k) {
    bool moved = false;
    for (int d = 0; d < v.ndim; ++d) moved = moved || v.map[k][d] != 0;
    if (!moved) out << ", dim" << k << "=" << v.origin[k];
  }
  return out << ']';
}

}  // namespace tessera::detail
