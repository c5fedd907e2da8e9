#pragma once
// ProcessGrid: the ranks factored over an array's dimensions, row-major (rank = c0*d1*d2 + c1*d2 + c2).
//
//   4 ranks, 2-D arrays  ->  dims {2, 2};  rank 3 sits at coordinates {1, 1}
//
// The factorization is MPI_Dims_create's balanced one unless TESSERA_GRID / Config::grid names a
// grid of the same number of dimensions.

#include <vector>

#include "tessera/partition/box.hpp"

namespace tessera::detail {

class ProcessGrid {
 public:
  ProcessGrid() = default;
  ProcessGrid(int ndim, int nranks, const std::vector<int>& requested);

  int ndim() const { return ndim_; }
  int size() const { return nranks_; }
  int dim(int d) const { return dims_[d]; }
  Index3 coords(int rank) const;
  int rank_of(const Index3& coords) const;

 private:
  int ndim_ = 0;
  int nranks_ = 1;
  std::array<int, kMaxDims> dims_{1, 1, 1};
};

}  // namespace tessera::detail
