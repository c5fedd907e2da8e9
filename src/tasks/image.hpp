#pragma once
// ImagePlan: which entries of a 1-D distributed array each rank needs beyond what it owns, and
// who sends them: the *image* of a set of indices (PETSc's VecScatter, Legate Sparse's image
// partition). It is computed once, where the indices are known (a CSR matrix's column indices, at
// construction: sparse/csr.cpp), and every launch that reads the array through an image()
// constraint exchanges exactly those entries, one message per peer, grouped like a halo
// (comm/image_exchange.cpp).
//
//   rank 1 of 3 owns x[4:7) and its rows reference columns {0, 4, 5, 9}: it receives x[0] from
//   rank 0 and x[9] from rank 2 into a ghost buffer [x0, x9]; column 0 is ghost 0, column 9 ghost 1.

#include <cstdint>
#include <utility>
#include <vector>

#include "tessera/core/kokkos_compat.hpp"
#include "tessera/partition/tiling.hpp"

namespace tessera::detail {

struct ImagePlan {
  Tiling tiling;  // of the array whose entries it gathers: reads must be aligned with it
  // (peer, entries) this rank receives, in the order they fill the ghost buffer (ascending global
  // index: peers in rank order, each peer's entries sorted).
  std::vector<std::pair<int, std::int64_t>> receives;
  std::int64_t ghosts = 0;  // the ghost buffer's length: the sum of `receives`
  // (peer, entries) this rank sends, and the positions in its owned tile of what it sends, peer by
  // peer in that order.
  std::vector<std::pair<int, std::int64_t>> sends;
  Kokkos::View<const std::int64_t*, MemSpace> send_index;
  std::int64_t total_ghosts = 0;  // over all ranks (for logs)
};

}  // namespace tessera::detail
