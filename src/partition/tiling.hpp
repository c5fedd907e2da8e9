#pragma once
// Tiling: how a store's elements are dealt over a process grid. Per dimension, the sorted cut
// points of the tiles (shared, interned Cuts), the grid axis that cuts it, an offset and a step;
// per grid axis, optionally the one coordinate whose ranks hold data.
//
// A store of shape {10} on 3 ranks gets cuts {0, 4, 7, 10}; rank 1 owns [4, 7). A store computed
// over the view a(slice(1, -1)) inherits a's cuts with offset 1, so its element i lives on the rank
// that owns a's element i + 1: results of expressions over views stay where their inputs are. Over
// a(slice(0, end, 2)) it inherits step 2 (element i lives with a's element 2 i); over the column
// a(ts::all, 3) of a 2-D store it is cut along grid axis 0 only and held by the grid column that
// owns column 3 (a fixed coordinate of grid axis 1).
//
// A dimension with no cuts is whole on every rank that holds data. A grid axis that cuts no
// dimension and has no fixed coordinate holds copies: the row sums of a matrix tiled over a 2 x 2
// grid are cut along grid axis 0 and repeated along axis 1, where each rank has its grid row's
// part. Every rank computes the same values for its copy; readers take theirs from the copy in
// their own coordinate of that axis (comm/exchange.cpp), writers write every copy.
//
// Two tilings are aligned when they agree on the grid, extents and fixed coordinates and, per
// dimension dealt into more than one part, on the cuts object, axis, offset and step: an O(ndim)
// comparison that needs no geometry. A shifted view (same cuts, offset differing by d) needs a
// halo of |d|; along a dimension dealt into one part no shift does.

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
  // The tile holding cut coordinate x (clamped to the first or last tile outside [0, extent)).
  int tile_of(std::int64_t x) const;
};

// Balanced block cuts (the first extent % parts tiles get one more element), interned so that two
// stores of the same extent on the same grid share one object. The objects live as long as the
// process (one per extent and part count used), so tilings point at them without owning them:
// copying a tiling, which the planner and executor do for every op, touches no reference count.
const Cuts* balanced_cuts(std::int64_t extent, int parts);

struct Tiling {
  int ndim = 0;
  int grid = 0;  // the process grid of this many dimensions deals the tiles (0: a 0-d store, on every rank)
  std::array<const Cuts*, kMaxDims> cuts{};         // nullptr: dimension d is not cut (balanced_cuts)
  std::array<std::int8_t, kMaxDims> axis{0, 1, 2};  // the grid axis that cuts dimension d
  Index3 offset{0, 0, 0};                           // cut coordinate of element 0
  Index3 step{1, 1, 1};                             // cut coordinates from one element to the next
  Index3 extent{1, 1, 1};                           // shape covered
  Index3 fixed{-1, -1, -1};                         // per grid axis: the only coordinate whose ranks hold data, or -1

  // The part of [0, extent) held by the rank at these grid coordinates (may be empty).
  Box tile(const Index3& grid_coords) const;
  // Whether the rank at these grid coordinates holds any data (it is on every fixed coordinate).
  bool holds(const Index3& grid_coords) const;
  // The tiling induced on a box view [view_lo, view_lo + view_extent) of this tiling.
  Tiling restricted(const Index3& view_lo, const Index3& view_extent) const;
  // Same grid, cuts, axes, steps and fixed coordinates (offsets and extents may differ).
  bool same_cuts(const Tiling& other) const;
  // Placed alike: same grid, extents and fixed coordinates; per dimension, whole on every rank
  // in both (uncut, or cut into one part), or the same cuts, axis, step and offset.
  bool aligned(const Tiling& other) const;
  // same_cuts, and the same offsets and extents: aligned on a grid of any size. For what must not
  // depend on the rank count (errors), and for readers that address a store from its first
  // element rather than through a view (an image exchange).
  bool matches(const Tiling& other) const;
  // Bit g: grid axis g holds copies (it cuts no dimension and fixes no coordinate).
  unsigned replicated_axes(int grid_ndim) const;
  // Whether the rank at these coordinates holds the copy that counts (gathers and checkpoints read
  // it): coordinate 0 along every axis that holds copies.
  bool primary(const Index3& grid_coords, int grid_ndim) const;
};

// The tiling without dimension `dim`: a reduction's result along it, a matvec's. The grid axis that
// cut it cuts nothing then, and holds copies.
Tiling dropped(const Tiling& t, int dim);

// The balanced tiling of a shape over the process grid of its dimensionality.
Tiling balanced(const std::vector<std::int64_t>& shape, const std::array<int, kMaxDims>& grid_dims);

}  // namespace tessera::detail
