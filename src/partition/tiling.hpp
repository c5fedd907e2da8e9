#pragma once
// Tiling: per dimension, the sorted cut points of the tiles (shared, interned Cuts) plus an offset.
//
// A store of shape {10} on 3 ranks gets cuts {0, 4, 7, 10}; rank 1 owns [4, 7). A store computed
// over the view a(slice(1, -1)) inherits a's cuts with offset 1, so its element i lives on the rank
// that owns a's element i + 1: results of expressions over views stay where their inputs are.
//
// Two tilings are aligned when they share the cuts object and the offset: an O(ndim) comparison
// that needs no geometry. A shifted view (same cuts, offset differing by d) needs a halo of |d|.

#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/partition/box.hpp"

namespace tessera::detail {

struct Cuts {
  std::int64_t extent = 0;
  int parts = 1;
  std::vector<std::int64_t> points;  // parts + 1 entries, points[0] = 0, points[parts] = extent
  std::int64_t min_nonempty_width = 0;
};

// Balanced block cuts (the first extent % parts tiles get one more element), interned so that two
// stores of the same extent on the same grid share one object.
std::shared_ptr<const Cuts> balanced_cuts(std::int64_t extent, int parts);
void clear_cuts_registry();

struct Tiling {
  int ndim = 0;
  std::array<std::shared_ptr<const Cuts>, kMaxDims> cuts;
  Index3 offset{0, 0, 0};  // base coordinate (of the cuts) of element 0
  Index3 extent{1, 1, 1};  // shape covered

  // The part of [0, extent) owned by the rank at these grid coordinates (may be empty).
  Box tile(const Index3& grid_coords) const;
  // The tiling induced on a view [view_lo, view_lo + view_extent) of this tiling.
  Tiling restricted(const Index3& view_lo, const Index3& view_extent) const;
  bool same_cuts(const Tiling& other) const;
  bool aligned(const Tiling& other) const;  // same cuts, offsets and extents
};

}  // namespace tessera::detail
