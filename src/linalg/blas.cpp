#include "tessera/linalg/blas.hpp"

#include <algorithm>
#include <climits>

#include "tessera/core/error.hpp"
#include "tessera/core/kokkos_compat.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cublas_v2.h>
#else
#include <cblas.h>
#endif

namespace tessera::detail {
namespace {

// A matrix as column-major BLAS sees it: stored as it is (rows unit-strided, ld the column stride)
// or as the transpose of a column-major matrix (columns unit-strided, ld the row stride). An
// extent of 1 makes the stride along it irrelevant.
struct ColumnMajor {
  bool ok = false;
  bool transposed = false;
  std::int64_t ld = 1;
};

ColumnMajor column_major(std::int64_t rows, std::int64_t cols, std::int64_t rs, std::int64_t cs) {
  if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= std::max<std::int64_t>(1, rows)))
    return {true, false, cols <= 1 ? std::max<std::int64_t>(1, rows) : cs};
  if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= std::max<std::int64_t>(1, cols)))
    return {true, true, rows <= 1 ? std::max<std::int64_t>(1, cols) : rs};
  return {};
}

int blas_int(std::int64_t n) {
  if (n > INT_MAX) raise("a matrix extent or stride of ", n, " is more than BLAS's 32-bit integers hold");
  return static_cast<int>(n);
}

// y = beta y over n strided elements, where the product has nothing to add (BLAS returns early
// without scaling when the inner extent is 0).
template <class T>
void scale(T* y, std::int64_t n, std::int64_t m, std::int64_t rs, std::int64_t cs, double beta) {
  if (n * m == 0 || beta == 1.0) return;
  const T b = static_cast<T>(beta);
  Kokkos::parallel_for(
      "tessera::blas[scale]", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, n * m),
      KOKKOS_LAMBDA(std::int64_t e) {
        T& v = y[(e / m) * rs + (e % m) * cs];
        v = b == T(0) ? T(0) : b * v;
      });
}

#ifdef KOKKOS_ENABLE_CUDA
cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t made = nullptr;
    if (cublasCreate(&made) != CUBLAS_STATUS_SUCCESS) fatal("cublasCreate failed");
    return made;
  }();
  cublasSetStream(h, ExecSpace().cuda_stream());
  return h;
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) fatal(std::string(what) + " failed with cuBLAS status " + std::to_string(int(s)));
}
cublasOperation_t op(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }
#else
CBLAS_TRANSPOSE op(bool t) { return t ? CblasTrans : CblasNoTrans; }
#endif

template <class T>
void gemv_typed(bool transpose, std::int64_t rows, std::int64_t cols, Strided a, const T* x, std::int64_t incx,
                double beta, T* y, std::int64_t incy) {
  const std::int64_t out = transpose ? cols : rows, inner = transpose ? rows : cols;
  if (out == 0) return;
  if (inner == 0) return scale(y, out, 1, incy, 1, beta);
  const ColumnMajor s = column_major(rows, cols, a.row_stride, a.col_stride);
  if (!s.ok) raise("internal: gemv of a matrix with strides ", a.row_stride, " and ", a.col_stride);
  // Stored transposed: the stored matrix is cols x rows, and the operation flips.
  const int m = blas_int(s.transposed ? cols : rows), n = blas_int(s.transposed ? rows : cols);
  const bool t = transpose != s.transposed;
  const T one = 1, b = static_cast<T>(beta);
  const T* A = static_cast<const T*>(a.data);
  const int lda = blas_int(s.ld), ix = blas_int(std::max<std::int64_t>(1, incx)), iy = blas_int(incy);
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<T, float>)
    check(cublasSgemv(handle(), op(t), m, n, &one, A, lda, x, ix, &b, y, iy), "cublasSgemv");
  else
    check(cublasDgemv(handle(), op(t), m, n, &one, A, lda, x, ix, &b, y, iy), "cublasDgemv");
#else
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemv(CblasColMajor, op(t), m, n, one, A, lda, x, ix, b, y, iy);
  else
    cblas_dgemv(CblasColMajor, op(t), m, n, one, A, lda, x, ix, b, y, iy);
#endif
}

template <class T>
void gemm_typed(std::int64_t m, std::int64_t n, std::int64_t k, Strided a, Strided b, double beta, T* c,
                std::int64_t crs, std::int64_t ccs) {
  if (m * n == 0) return;
  if (k == 0) return scale(c, m, n, crs, ccs, beta);
  ColumnMajor sc = column_major(m, n, crs, ccs);
  if (!sc.ok) raise("internal: gemm into a matrix with strides ", crs, " and ", ccs);
  if (sc.transposed) {
    // C is row-major: compute C^T = B^T A^T, whose result is column-major.
    std::swap(m, n);
    std::swap(a, b);
    std::swap(a.row_stride, a.col_stride);
    std::swap(b.row_stride, b.col_stride);
    sc = column_major(m, n, ccs, crs);
  }
  const ColumnMajor sa = column_major(m, k, a.row_stride, a.col_stride);
  const ColumnMajor sb = column_major(k, n, b.row_stride, b.col_stride);
  if (!sa.ok || !sb.ok) raise("internal: gemm of matrices whose strides BLAS cannot take");
  const T one = 1, be = static_cast<T>(beta);
  const T* A = static_cast<const T*>(a.data);
  const T* B = static_cast<const T*>(b.data);
  const int M = blas_int(m), N = blas_int(n), K = blas_int(k);
  const int lda = blas_int(sa.ld), ldb = blas_int(sb.ld), ldc = blas_int(sc.ld);
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<T, float>)
    check(cublasSgemm(handle(), op(sa.transposed), op(sb.transposed), M, N, K, &one, A, lda, B, ldb, &be, c, ldc),
          "cublasSgemm");
  else
    check(cublasDgemm(handle(), op(sa.transposed), op(sb.transposed), M, N, K, &one, A, lda, B, ldb, &be, c, ldc),
          "cublasDgemm");
#else
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasColMajor, op(sa.transposed), op(sb.transposed), M, N, K, one, A, lda, B, ldb, be, c, ldc);
  else
    cblas_dgemm(CblasColMajor, op(sa.transposed), op(sb.transposed), M, N, K, one, A, lda, B, ldb, be, c, ldc);
#endif
}

}  // namespace

bool blas_layout(std::int64_t rows, std::int64_t cols, std::int64_t row_stride, std::int64_t col_stride) {
  return column_major(rows, cols, row_stride, col_stride).ok;
}

void gemv(DType type, bool transpose, std::int64_t rows, std::int64_t cols, Strided a, const void* x, std::int64_t incx,
          double beta, void* y, std::int64_t incy) {
  if (type == DType::Float32)
    gemv_typed(transpose, rows, cols, a, static_cast<const float*>(x), incx, beta, static_cast<float*>(y), incy);
  else
    gemv_typed(transpose, rows, cols, a, static_cast<const double*>(x), incx, beta, static_cast<double*>(y), incy);
}

void gemm(DType type, std::int64_t m, std::int64_t n, std::int64_t k, Strided a, Strided b, double beta, void* c,
          std::int64_t c_row_stride, std::int64_t c_col_stride) {
  if (type == DType::Float32)
    gemm_typed(m, n, k, a, b, beta, static_cast<float*>(c), c_row_stride, c_col_stride);
  else
    gemm_typed(m, n, k, a, b, beta, static_cast<double*>(c), c_row_stride, c_col_stride);
}

}  // namespace tessera::detail
