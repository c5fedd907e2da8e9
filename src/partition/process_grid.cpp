#include "tessera/partition/process_grid.hpp"

#include <mpi.h>

#include "tessera/core/error.hpp"

namespace tessera::detail {

ProcessGrid::ProcessGrid(int ndim, int nranks, const std::vector<int>& requested) : ndim_(ndim), nranks_(nranks) {
  if (ndim == 0) return;
  if (static_cast<int>(requested.size()) == ndim) {
    long product = 1;
    for (int g : requested) product *= g;
    if (product != nranks) {
      std::string text;
      for (int g : requested) text += (text.empty() ? "" : "x") + std::to_string(g);
      raise("TESSERA_GRID=", text, " has ", product, " ranks but the job has ", nranks);
    }
    for (int d = 0; d < ndim; ++d) dims_[d] = requested[d];
    return;
  }
  int dims[kMaxDims] = {0, 0, 0};
  MPI_Dims_create(nranks, ndim, dims);
  for (int d = 0; d < ndim; ++d) dims_[d] = dims[d];
}

Index3 ProcessGrid::coords(int rank) const {
  Index3 c{0, 0, 0};
  for (int d = ndim_ - 1; d >= 0; --d) {
    c[d] = rank % dims_[d];
    rank /= dims_[d];
  }
  return c;
}

int ProcessGrid::rank_of(const Index3& coords) const {
  int rank = 0;
  for (int d = 0; d < ndim_; ++d) rank = rank * dims_[d] + static_cast<int>(coords[d]);
  return rank;
}

}  // namespace tessera::detail
