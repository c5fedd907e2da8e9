#pragma once
// The platform's BLAS on buffers of the runtime's memory space: cuBLAS on CUDA builds (ordered on
// the Kokkos stream), CBLAS on host backends (Debian's OpenBLAS). A matrix is given by its extents
// and the element strides of its rows and columns, whichever is unit (row- or column-major, or a
// transposed view of either); the wrappers pick the BLAS layout and leading dimension. float32 and
// float64.
//
//   y = A x:    gemv(DType::Float64, false, rows, cols, {a, lda, 1}, x, 1, 0.0, y, 1)
//   C += A B:   gemm(DType::Float64, m, n, k, {a, lda, 1}, {b, ldb, 1}, 1.0, {c, ldc, 1})

#include <cstdint>

#include "tessera/core/dtype.hpp"

namespace tessera::detail {

struct Strided {
  const void* data = nullptr;
  std::int64_t row_stride = 0, col_stride = 0;  // elements
};

// y = op(A) x + beta y, op(A) = A (rows x cols) or its transpose. A side of extent 0 is allowed.
void gemv(DType type, bool transpose, std::int64_t rows, std::int64_t cols, Strided a, const void* x, std::int64_t incx,
          double beta, void* y, std::int64_t incy);

// C = A B + beta C, A m x k, B k x n, C m x n.
void gemm(DType type, std::int64_t m, std::int64_t n, std::int64_t k, Strided a, Strided b, double beta, void* c,
          std::int64_t c_row_stride, std::int64_t c_col_stride);

// Whether a matrix of these extents and strides can be handed to BLAS (one unit stride).
bool blas_layout(std::int64_t rows, std::int64_t cols, std::int64_t row_stride, std::int64_t col_stride);

}  // namespace tessera::detail
