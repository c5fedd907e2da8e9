#pragma once
// Sparse matrices in CSR form, distributed by rows, with SciPy's csr_matrix semantics.
//
//   // the 1-D Laplacian, whole on every rank (int64 indptr and column indices)
//   ts::CsrMatrix<double> A = ts::csr_from_host<double>({n, n}, indptr, indices, values);
//   // or each rank gives a block of rows: a local indptr (starting at 0), global column indices
//   ts::CsrMatrix<double> B = ts::csr_from_rows<double>({n, n}, first_row, my_indptr, my_indices, my_values);
//   auto y = ts::matmul(A, x);   // SpMV, x 1-D of length A.shape()[1]
//   auto d = ts::diag(A);        // the diagonal, 1-D of length min(rows, cols)
//
// The rows are tiled like any 1-D array of that length (balanced; csr_from_rows moves rows to
// their tile at construction), so y = A x is aligned with the vectors of the same length. At
// construction each rank also computes, once, the entries of x that its rows reference beyond its
// own tile of x (the image of its column indices) and who sends them; every SpMV then exchanges
// exactly those entries, one message per peer, and runs the local product split as PETSc's
// MatMult_MPIAIJ does: the columns the rank owns while the others travel, the rest after
// (docs/LINALG.md). Column indices within a row must be sorted and unique; bad input is a
// tessera::Error naming the row or the ranks, on every rank. A CsrMatrix is immutable, a handle
// (copies share it), and must not outlive the Runtime it was made under. T is float or double.

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "tessera/array/array.hpp"

namespace tessera {
namespace detail {

struct CsrData;  // sparse/csr_data.hpp

std::shared_ptr<const CsrData> csr_from_host_bytes(DType type, const Shape& shape,
                                                   const std::vector<std::int64_t>& indptr,
                                                   const std::vector<std::int64_t>& indices, const char* values,
                                                   std::size_t count);
std::shared_ptr<const CsrData> csr_from_rows_bytes(DType type, const Shape& shape, std::int64_t first_row,
                                                   const std::vector<std::int64_t>& indptr,
                                                   const std::vector<std::int64_t>& indices, const char* values,
                                                   std::size_t count);
Shape csr_shape(const CsrData& a);
std::int64_t csr_nnz(const CsrData& a);
// The tasks hold the matrix: they may run after the last handle to it is gone.
ArrayRef csr_matvec(const std::shared_ptr<const CsrData>& a, const ArrayRef& x);
ArrayRef csr_diagonal(const std::shared_ptr<const CsrData>& a);

}  // namespace detail

template <class T>
class CsrMatrix {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "tessera::CsrMatrix<T>: T is float or double");

 public:
  using value_type = T;
  CsrMatrix() = default;
  explicit CsrMatrix(std::shared_ptr<const detail::CsrData> data) : data_(std::move(data)) {}

  Shape shape() const { return data_ ? detail::csr_shape(*data_) : Shape{0, 0}; }
  std::int64_t nnz() const { return data_ ? detail::csr_nnz(*data_) : 0; }
  const std::shared_ptr<const detail::CsrData>& impl() const {
    if (!data_) detail::raise("the CsrMatrix is empty (default-constructed and never assigned)");
    return data_;
  }

 private:
  std::shared_ptr<const detail::CsrData> data_;
};

// The whole matrix, the same on every rank: indptr has rows + 1 entries, indices and values nnz.
template <class T>
CsrMatrix<T> csr_from_host(const Shape& shape, const std::vector<std::int64_t>& indptr,
                           const std::vector<std::int64_t>& indices, const std::vector<T>& values) {
  return CsrMatrix<T>(detail::csr_from_host_bytes(dtype_v<T>, shape, indptr, indices,
                                                  reinterpret_cast<const char*>(values.data()), values.size()));
}

// This rank's rows [first_row, first_row + indptr.size() - 1); the blocks of the ranks cover every
// row once, in rank order.
template <class T>
CsrMatrix<T> csr_from_rows(const Shape& shape, std::int64_t first_row, const std::vector<std::int64_t>& indptr,
                           const std::vector<std::int64_t>& indices, const std::vector<T>& values) {
  return CsrMatrix<T>(detail::csr_from_rows_bytes(dtype_v<T>, shape, first_row, indptr, indices,
                                                  reinterpret_cast<const char*>(values.data()), values.size()));
}

// y = A x.
template <class T>
Array<T> matmul(const CsrMatrix<T>& a, const Array<T>& x) {
  return Array<T>(detail::csr_matvec(a.impl(), x.impl()));
}

template <class T>
Array<T> diag(const CsrMatrix<T>& a) {
  return Array<T>(detail::csr_diagonal(a.impl()));
}

}  // namespace tessera
