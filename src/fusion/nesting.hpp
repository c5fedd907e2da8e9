#pragma once
// Nested reductions: the geometry of an outer reduction along an axis of an inner reduction's
// result, both in one kernel over the inner reduction's domain (Program::nested).
//
//   argmin(sum(square(P[:, None, :] - C[None, :, :]), 2), 1)     P (n, d), C (k, d)
//   inner domain (n, k, d); the sum reduces dimension 2, the argmin dimension 1 of the inner
//   domain (axis 1 of the (n, k) result); one output per point: the result (n,).
//
// The launch domain is the result store seen from the inner domain's coordinates: the two reduced
// dimensions are stretched (stride 0), so they are cut on no rank, and each rank computes the
// outputs its tile of the result holds. The planner (planner.cpp) decides when to nest.

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

}  // namespace tessera::detail
