#include "tessera/sparse/cusparse_spmv.hpp"

#include <cusparse.h>

#include <string>

#include "tessera/core/error.hpp"

namespace tessera::detail {
namespace {

void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) fatal(std::string(what) + " failed: " + cusparseGetErrorString(s));
}

cusparseHandle_t handle() {
  static cusparseHandle_t h = [] {
    cusparseHandle_t made = nullptr;
    check(cusparseCreate(&made), "cusparseCreate");
    return made;
  }();
  check(cusparseSetStream(h, ExecSpace().cuda_stream()), "cusparseSetStream");
  return h;
}

// cuSPARSE's work area, grown to the largest any SpMV asked for and kept for the process (the
// CSR algorithm asks for none or a few bytes; an allocation per call would cost more than the
// product).
void* work_area(std::size_t bytes) {
  static void* area = nullptr;
  static std::size_t size = 0;
  if (bytes > size) {
    if (area) cudaFree(area);
    if (cudaMalloc(&area, bytes) != cudaSuccess) fatal("cudaMalloc of cuSPARSE's SpMV work area failed");
    size = bytes;
  }
  return area;
}

}  // namespace

bool cusparse_spmv(DType type, const CsrBlock& b, std::int64_t cols, const void* x, void* y) {
  const std::int64_t rows = b.stored_rows(), nnz = static_cast<std::int64_t>(b.val.extent(0) / size_of(type));
  if (b.compressed || b.row_width != b.width || rows <= 0 || cols <= 0 || nnz == 0) return false;
  const bool wide = b.width == IndexWidth::Int64;
  const cusparseIndexType_t index = wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  const cudaDataType value = type == DType::Float32 ? CUDA_R_32F : CUDA_R_64F;
  void* ptr = wide ? static_cast<void*>(b.ptr64.data()) : static_cast<void*>(b.ptr32.data());
  void* col = wide ? static_cast<void*>(b.col64.data()) : static_cast<void*>(b.col32.data());
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnVecDescr_t X = nullptr, Y = nullptr;
  check(cusparseCreateCsr(&A, rows, cols, nnz, ptr, col, const_cast<char*>(b.val.data()), index, index,
                          CUSPARSE_INDEX_BASE_ZERO, value),
        "cusparseCreateCsr");
  check(cusparseCreateDnVec(&X, cols, const_cast<void*>(x), value), "cusparseCreateDnVec");
  check(cusparseCreateDnVec(&Y, rows, y, value), "cusparseCreateDnVec");
  const double one = 1, zero = 0;
  const float one_f = 1, zero_f = 0;
  const void* alpha = type == DType::Float32 ? static_cast<const void*>(&one_f) : &one;
  const void* beta = type == DType::Float32 ? static_cast<const void*>(&zero_f) : &zero;
  const cusparseHandle_t h = handle();
  std::size_t bytes = 0;
  check(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, X, beta, Y, value,
                                CUSPARSE_SPMV_CSR_ALG1, &bytes),
        "cusparseSpMV_bufferSize");
  check(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, X, beta, Y, value, CUSPARSE_SPMV_CSR_ALG1,
                     work_area(bytes)),
        "cusparseSpMV");
  cusparseDestroyDnVec(Y);
  cusparseDestroyDnVec(X);
  cusparseDestroySpMat(A);
  return true;
}

}  // namespace tessera::detail
