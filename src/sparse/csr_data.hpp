#pragma once
// What a CsrMatrix holds on each rank: its tile of rows as two CSR blocks, PETSc's MPIAIJ layout.
// The owned block has the columns whose entries of x this rank owns (indices into its tile of x);
// the ghost block the others, renumbered into the image's ghost buffer (tasks/image.hpp), whose
// plan it keeps. Built once (sparse/csr.cpp), immutable, read by the SpMV task (sparse/spmv.cpp).
//
// Column indices are local (into the tile of x, or into the ghost buffer), so a block stores them
// as int32 whenever its local column space has at most 2^31 entries, which is always the case in
// practice; int64 is the fallback beyond (a rank holding 2^31 entries of x). Row pointers are
// int32 likewise while the block has fewer than 2^31 nonzeros, and int64 beyond (26 GB of float64
// nonzeros on one rank: a large GPU holds that). An SpMV of float64 then reads 12 bytes of matrix
// per nonzero and 4 per row (docs/LINALG.md), as PETSc's and cuSPARSE's 32-bit CSR do.
//
// The ghost block keeps only its rows that have entries (PETSc's compressed rows): few rows of a
// tile reference other ranks' columns (a grid row's worth for the 2-D Poisson matrix), and a
// kernel over every row would read all row pointers and y to add nothing to most of them; with
// one rank the ghost block is empty and its kernel does not run.

#include <cstdint>
#include <memory>

#include "tessera/core/dtype.hpp"
#include "tessera/core/kokkos_compat.hpp"
#include "tessera/tasks/image.hpp"

namespace tessera::detail {

enum class IndexWidth { Int32, Int64 };

// The narrowest width that holds every index of a local column space of `extent` columns
// (indices 0 .. extent - 1).
constexpr IndexWidth column_index_width(std::int64_t extent) {
  return extent <= (std::int64_t(1) << 31) ? IndexWidth::Int32 : IndexWidth::Int64;
}

struct CsrBlock {
  IndexWidth row_width = IndexWidth::Int32;     // which of ptr32 and ptr64 holds the row pointers
  Kokkos::View<std::int32_t*, MemSpace> ptr32;  // stored rows + 1
  Kokkos::View<std::int64_t*, MemSpace> ptr64;  // empty unless row_width is Int64
  // Compressed: the local row of each stored row (ascending); otherwise every local row is stored,
  // in order, and `rows` is empty.
  bool compressed = false;
  Kokkos::View<std::int64_t*, MemSpace> rows;
  IndexWidth width = IndexWidth::Int32;  // which of col32 and col64 holds the column indices
  Kokkos::View<std::int32_t*, MemSpace> col32;
  Kokkos::View<std::int64_t*, MemSpace> col64;  // empty unless width is Int64
  Kokkos::View<char*, MemSpace> val;            // entries of the matrix's type
  std::int64_t stored_rows() const {
    return static_cast<std::int64_t>(row_width == IndexWidth::Int32 ? ptr32.extent(0) : ptr64.extent(0)) - 1;
  }
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

// The same matrix with int64 row pointers (`rows`) and/or column indices (`columns`) in both blocks,
// sharing everything else: the fallbacks' kernels under test without a matrix of 2^31 nonzeros or
// columns per rank (tests/test_sparse.cpp).
std::shared_ptr<const CsrData> csr_with_int64_indices(const CsrData& a, bool rows, bool columns);

}  // namespace tessera::detail
