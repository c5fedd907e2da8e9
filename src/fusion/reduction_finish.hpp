#pragma once
// Completing a launch's reductions, on the device. A kernel leaves this rank's partial results in
// ReductionTarget's layout (per slot, `count` values and then `count` indices). They are folded
// with those of the ranks that computed other parts of the same outputs (`across`: all ranks for
// a full reduction over a distributed domain, the ranks of one process-grid slice for a reduction
// along a dimension cut over that grid axis, none when every output was computed here), then
// finalized into the result stores: the mean's division, norm's square root, the index for the
// arg kinds, and the cast to the result's type.
//
// Sums and products (and integer max/min) are allreduced. Floating max/min, which propagate NaN
// as NumPy's do, and the arg kinds, which carry an index, are gathered from every rank of the
// slice and folded in rank order: the same bits on every rank, whatever the backend.

#include <cstdint>

#include "tessera/comm/communicator.hpp"
#include "tessera/fusion/task.hpp"

namespace tessera::detail {

// `counted`: whether this rank's partials count. Where the launch tiling holds copies (a full
// reduction of a matrix's row sums on a 2 x 2 grid), only the primary copy's do: the others
// contribute identities, so that each element is reduced once.
void finish_reductions(const Launch& launch, Value* partials, std::int64_t count, Communicator* across, bool counted);

}  // namespace tessera::detail
