#pragma once
// Reductions fused with what reads their results, in one kernel over the reduction's domain.
//
// Nested reductions: the geometry of an outer reduction along an axis of an inner reduction's
// result (Program::nested).
//
//   argmin(sum(square(P[:, None, :] - C[None, :, :]), 2), 1)     P (n, d), C (k, d)
//   inner domain (n, k, d); the sum reduces dimension 2, the argmin dimension 1 of the inner
//   domain (axis 1 of the (n, k) result); one output per point: the result (n,).
//
// The launch domain is the result store seen from the inner domain's coordinates: the two reduced
// dimensions are stretched (stride 0), so they are cut on no rank, and each rank computes the
// outputs its tile of the result holds. The planner (planner_groups.cpp) decides when to nest.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/fusion/task.hpp"

namespace tessera::detail {

struct Nesting {
  int inner_dim = -1;     // what the inner reduction reduces, padded inner-domain dimension
  int outer_dim = -1;     // what the outer one reduces, in the same coordinates
  int coord_map[3] = {};  // the outer op's padded dimensions -> padded inner-domain dimensions
  View domain;            // inner-domain coordinates -> the result store
};

// `inner` reduces its key view along an axis into `inner_result` (its one reduction's store);
// `outer` reduces that store along an axis into `result`. nullopt where nesting cannot express
// it: the outer reduction reduces the inner's kept length-1 axis, or either is not along an axis.
std::optional<Nesting> nesting(const Task& inner, const Store& inner_result, const Task& outer, const Store& result);

// Nesting must not move data that stays in place without it: an operand split along a reduced
// dimension exactly as the group's launch domain splits it is read where it lies by the inner
// kernel, but the nested kernel's domain cuts neither reduced dimension, so it would be gathered.
// Returns why (naming the store) or "". Operands on another grid, or tiled otherwise, are moved
// (or read in place) either way.
std::string gathered_operand(const Nesting& nesting, const Tiling& launch,
                             const std::vector<std::pair<const Store*, View>>& operands);

// Epilogues (Program::epilogue): elementwise ops over the result of reductions along the last
// dimension, run once per row after the row is folded.
//
//   x = (b - ts::sum(R * x(ts::newaxis, ts::all), 1)) / d       R (n, k); b, d (n,)
//   the reduction's domain (n, k); the subtraction and the division run per row i, reading row
//   i's sum from registers, b[i] and d[i] through views stretched along k.
//
// The view that lifts an epilogue op's coordinates into the reduction's domain: `domain` (n
// dimensions, the reduction's key view) reduces its last dimension; the op runs over the result's
// shape (n - 1 dimensions, or n with keepdims, the last of length 1), `op_extent`. Its views
// composed with the lift read each row's element at every position along the reduced dimension.
// nullopt where the op's shape is not the result's.
std::optional<View> epilogue_lift(const View& domain, int op_ndim, const Index3& op_extent);

// Whether every rank's part of tiling a is the same box as its part of tiling b (on their own
// process grids): a kernel launched over one reads operands tiled like the other in place.
bool same_parts(const Tiling& a, const Tiling& b);
// Whether the same ranks hold a part of tiling a as of tiling b: a lifted domain stretches the
// result's kept length-1 axis, which its own tiling may cut (the ranks off it hold nothing).
bool same_holders(const Tiling& a, const Tiling& b);

}  // namespace tessera::detail
