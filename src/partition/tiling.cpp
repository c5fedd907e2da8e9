#include "tessera/partition/tiling.hpp"

#include <map>
#include <mutex>

namespace tessera::detail {
namespace {

// Never cleared: a tiling may outlive the runtime with its Array (std::map's nodes stay put).
std::map<std::pair<std::int64_t, int>, Cuts>& registry() {
  static std::map<std::pair<std::int64_t, int>, Cuts> cuts;
  return cuts;
}

// The first element x >= 0 whose cut coordinate offset + x * step is at least `point`.
std::int64_t first_at_or_after(std::int64_t point, std::int64_t offset, std::int64_t step) {
  const std::int64_t a = point - offset;
  if (a <= 0) return 0;
  return (a + step - 1) / step;
}

}  // namespace

int Cuts::tile_of(std::int64_t x) const {
  int t = static_cast<int>(std::upper_bound(points.begin(), points.end(), x) - points.begin()) - 1;
  return std::clamp(t, 0, parts - 1);
}

const Cuts* balanced_cuts(std::int64_t extent, int parts) {
  auto [it, inserted] = registry().try_emplace(std::make_pair(extent, parts));
  Cuts& c = it->second;
  if (!inserted) return &c;
  c.extent = extent;
  c.parts = parts;
  c.points.resize(parts + 1);
  std::int64_t base = extent / parts, extra = extent % parts;
  c.min_nonempty_width = extent;
  for (int i = 0; i <= parts; ++i) c.points[i] = i * base + std::min<std::int64_t>(i, extra);
  for (int i = 0; i < parts; ++i) {
    std::int64_t w = c.points[i + 1] - c.points[i];
    if (w > 0) c.min_nonempty_width = std::min(c.min_nonempty_width, w);
  }
  return &c;
}

bool Tiling::holds(const Index3& grid_coords) const {
  for (int g = 0; g < kMaxDims; ++g)
    if (fixed[g] >= 0 && grid_coords[g] != fixed[g]) return false;
  return true;
}

Box Tiling::tile(const Index3& grid_coords) const {
  Box b;
  b.ndim = ndim;
  if (!holds(grid_coords)) {
    b.hi[0] = b.lo[0];  // holds nothing (also for ndim 0)
    return b;
  }
  for (int d = 0; d < ndim; ++d) {
    std::int64_t lo = 0, hi = extent[d];
    if (cuts[d]) {
      const auto& p = cuts[d]->points;
      const std::int64_t c = grid_coords[axis[d]];
      lo = std::min(first_at_or_after(p[c], offset[d], step[d]), extent[d]);
      hi = std::clamp(first_at_or_after(p[c + 1], offset[d], step[d]), lo, extent[d]);
    }
    b.lo[d] = lo;
    b.hi[d] = hi;
  }
  return b;
}

Tiling Tiling::restricted(const Index3& view_lo, const Index3& view_extent) const {
  Tiling t = *this;
  for (int d = 0; d < ndim; ++d) {
    t.offset[d] = offset[d] + view_lo[d] * step[d];
    t.extent[d] = view_extent[d];
  }
  return t;
}

bool Tiling::same_cuts(const Tiling& other) const {
  if (ndim != other.ndim || grid != other.grid || fixed != other.fixed) return false;
  for (int d = 0; d < ndim; ++d) {
    if (cuts[d] != other.cuts[d]) return false;
    if (cuts[d] && (axis[d] != other.axis[d] || step[d] != other.step[d])) return false;
  }
  return true;
}

bool Tiling::aligned(const Tiling& other) const {
  if (ndim != other.ndim || grid != other.grid || fixed != other.fixed) return false;
  for (int d = 0; d < ndim; ++d) {
    if (extent[d] != other.extent[d]) return false;
    // Dealt into one part (its grid axis has one coordinate), a dimension is whole on every rank
    // that holds data, wherever its cuts put element 0: an array over columns 1..n of a grid and
    // one over columns 2..n+1 are then placed alike, and one kernel may compute both.
    const bool whole = !cuts[d] || cuts[d]->parts == 1, other_whole = !other.cuts[d] || other.cuts[d]->parts == 1;
    if (whole != other_whole) return false;
    if (whole) continue;
    if (cuts[d] != other.cuts[d] || axis[d] != other.axis[d] || step[d] != other.step[d] ||
        offset[d] != other.offset[d])
      return false;
  }
  return true;
}

bool Tiling::matches(const Tiling& other) const {
  if (!same_cuts(other)) return false;
  for (int d = 0; d < ndim; ++d) {
    if (extent[d] != other.extent[d]) return false;
    if (cuts[d] && offset[d] != other.offset[d]) return false;
  }
  return true;
}

unsigned Tiling::replicated_axes(int grid_ndim) const {
  unsigned mask = 0;
  for (int g = 0; g < grid_ndim; ++g) {
    bool used = fixed[g] >= 0;
    for (int d = 0; d < ndim && !used; ++d) used = cuts[d] && axis[d] == g;
    if (!used) mask |= 1u << g;
  }
  return mask;
}

bool Tiling::primary(const Index3& grid_coords, int grid_ndim) const {
  const unsigned copies = replicated_axes(grid_ndim);
  for (int g = 0; g < grid_ndim; ++g)
    if ((copies & (1u << g)) && grid_coords[g] != 0) return false;
  return true;
}

Tiling dropped(const Tiling& in, int dim) {
  Tiling t = in;
  for (int d = dim; d + 1 < kMaxDims; ++d) {
    t.cuts[d] = t.cuts[d + 1];
    t.axis[d] = t.axis[d + 1];
    t.offset[d] = t.offset[d + 1];
    t.step[d] = t.step[d + 1];
    t.extent[d] = t.extent[d + 1];
  }
  t.cuts[kMaxDims - 1] = nullptr;
  t.axis[kMaxDims - 1] = kMaxDims - 1;
  t.offset[kMaxDims - 1] = 0;
  t.step[kMaxDims - 1] = 1;
  t.extent[kMaxDims - 1] = 1;
  t.ndim -= 1;
  return t;
}

Tiling balanced(const std::vector<std::int64_t>& shape, const std::array<int, kMaxDims>& grid_dims) {
  Tiling t;
  t.ndim = static_cast<int>(shape.size());
  t.grid = t.ndim;
  for (int d = 0; d < t.ndim; ++d) {
    t.cuts[d] = balanced_cuts(shape[d], grid_dims[d]);
    t.axis[d] = static_cast<std::int8_t>(d);
    t.extent[d] = shape[d];
  }
  return t;
}

}  // namespace tessera::detail
