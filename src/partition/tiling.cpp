#include "tessera/partition/tiling.hpp"

#include <map>
#include <mutex>

namespace tessera::detail {
namespace {

std::map<std::pair<std::int64_t, int>, std::shared_ptr<const Cuts>>& registry() {
  static std::map<std::pair<std::int64_t, int>, std::shared_ptr<const Cuts>> cuts;
  return cuts;
}

}  // namespace

std::shared_ptr<const Cuts> balanced_cuts(std::int64_t extent, int parts) {
  auto& reg = registry();
  auto key = std::make_pair(extent, parts);
  auto it = reg.find(key);
  if (it != reg.end()) return it->second;
  auto c = std::make_shared<Cuts>();
  c->extent = extent;
  c->parts = parts;
  c->points.resize(parts + 1);
  std::int64_t base = extent / parts, extra = extent % parts;
  c->min_nonempty_width = extent;
  for (int i = 0; i <= parts; ++i) c->points[i] = i * base + std::min<std::int64_t>(i, extra);
  for (int i = 0; i < parts; ++i) {
    std::int64_t w = c->points[i + 1] - c->points[i];
    if (w > 0) c->min_nonempty_width = std::min(c->min_nonempty_width, w);
  }
  reg.emplace(key, c);
  return c;
}

void clear_cuts_registry() { registry().clear(); }

Box Tiling::tile(const Index3& grid_coords) const {
  Box b;
  b.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {
    const auto& p = cuts[d]->points;
    std::int64_t lo = p[grid_coords[d]] - offset[d];
    std::int64_t hi = p[grid_coords[d] + 1] - offset[d];
    lo = std::clamp<std::int64_t>(lo, 0, extent[d]);
    hi = std::clamp<std::int64_t>(hi, lo, extent[d]);
    b.lo[d] = lo;
    b.hi[d] = hi;
  }
  return b;
}

Tiling Tiling::restricted(const Index3& view_lo, const Index3& view_extent) const {
  Tiling t = *this;
  for (int d = 0; d < ndim; ++d) {
    t.offset[d] = offset[d] + view_lo[d];
    t.extent[d] = view_extent[d];
  }
  return t;
}

bool Tiling::same_cuts(const Tiling& other) const {
  if (ndim != other.ndim) return false;
  for (int d = 0; d < ndim; ++d)
    if (cuts[d] != other.cuts[d]) return false;
  return true;
}

bool Tiling::aligned(const Tiling& other) const {
  return same_cuts(other) && offset == other.offset && extent == other.extent;
}

}  // namespace tessera::detail
