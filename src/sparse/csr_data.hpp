#pragma once
// What a CsrMatrix holds on each rank: its tile of rows as two CSR blocks, PETSc's MPIAIJ layout.
// The owned block has the columns whose entries of x this rank owns (indices into its tile of x);
// the ghost block the others, renumbered into the image's ghost buffer (tasks/image.hpp), whose
// plan it keeps. Built once (sparse/csr.cpp), immutable, read by the SpMV task (sparse/spmv.cpp).

#include <cstdint>
#include <memory>

#include "tessera/core/kokkos_compat.hpp"
#include "tessera/tasks/image.hpp"

namespace tessera::detail {

struct CsrBlock {
  Kokkos::View<std::int64_t*, MemSpace> ptr;  // local rows + 1
  Kokkos::View<std::int64_t*, MemSpace> col;
  Kokkos::View<char*, MemSpace> val;  // entries of the matrix's type
};

struct CsrData {
  DType type = DType::Float64;
  std::int64_t rows = 0, cols = 0, nnz = 0;
  Tiling row_tiling;  // of y = A x: a balanced 1-D tiling of `rows`
  Tiling col_tiling;  // of x: a balanced 1-D tiling of `cols`, which the image was computed against
  std::int64_t local_rows = 0;
  CsrBlock owned, ghost;
  Kokkos::View<char*, MemSpace> diagonal;  // A[i, i] of this rank's rows (0 where absent)
  std::shared_ptr<const ImagePlan> image;
};

}  // namespace tessera::detail
