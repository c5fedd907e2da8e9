#pragma once
// Dense products, as NumPy's matmul and dot for 1-D and 2-D operands.
//
//   auto y = ts::matmul(A, x);   // (n, k) @ (k,)   -> (n,)
//   auto z = ts::matmul(x, A);   // (k,)   @ (k, m) -> (m,)
//   auto C = ts::matmul(A, B);   // (n, k) @ (k, m) -> (n, m)
//   auto s = ts::dot(x, x);      // 1-D . 1-D: the inner product, 0-d; 2-D operands as matmul
//   auto t = ts::vdot(A, A);     // the full inner product of two arrays of one shape (reductions.hpp)
//
// Operands promote as NumPy's do and are float32 or float64 (the products are BLAS's: cuBLAS on
// GPUs, a CPU BLAS on host backends); 1-D . 1-D takes any type. A matrix keeps its tiling over the
// 2-D process grid: a matvec is a GEMV on each rank's tile plus a sum across the grid row (x is
// broadcast along the grid columns), a matrix product SUMMA panels (docs/LINALG.md).
// CHANGED from part one: dot of two 2-D or 3-D arrays of one shape was their full inner product;
// that is ts::vdot now.

#include "tessera/array/operators.hpp"
#include "tessera/array/reductions.hpp"

namespace tessera {
namespace detail {
ArrayRef matmul_arrays(const char* what, const ArrayRef& a, const ArrayRef& b, DType result);
}  // namespace detail

template <class A, class B>
Array<cpp_type_t<promote(dtype_v<A>, dtype_v<B>)>> matmul(const Array<A>& a, const Array<B>& b) {
  constexpr DType r = promote(dtype_v<A>, dtype_v<B>);
  return Array<cpp_type_t<r>>(detail::matmul_arrays("matmul", a.impl(), b.impl(), r));
}

// NumPy's dot for arrays of up to 2 dimensions: 1-D . 1-D the inner product (0-d), a 0-d operand a
// product by a scalar, otherwise matmul.
template <class A, class B>
Array<cpp_type_t<promote(dtype_v<A>, dtype_v<B>)>> dot(const Array<A>& a, const Array<B>& b) {
  constexpr DType r = promote(dtype_v<A>, dtype_v<B>);
  if (a.ndim() == 1 && b.ndim() == 1) return detail::inner_product("dot", a, b);
  if (a.ndim() == 0 || b.ndim() == 0) return a * b;
  return Array<cpp_type_t<r>>(detail::matmul_arrays("dot", a.impl(), b.impl(), r));
}

}  // namespace tessera
