#pragma once
// Reductions to 0-d arrays. The result stays on the device; item() brings it to the host.
//
//   auto alpha = ts::vdot(r, r) / ts::vdot(p, q);   // no host synchronization
//   double rnorm = ts::norm(r).item();
//
// Result types follow NumPy: sum/prod of bool and integers are int64, mean of integers float64,
// vdot is the full contraction sum(a * b) (np.vdot) in the promoted type, norm is the 2-norm.

#include "tessera/array/array.hpp"

namespace tessera {

template <class T>
Array<cpp_type_t<sum_result(dtype_v<T>)>> sum(const Array<T>& a) {
  constexpr DType r = sum_result(dtype_v<T>);
  return Array<cpp_type_t<r>>(
      detail::reduce("sum", detail::ReduceKind::Sum, a.impl(), nullptr, dtype_v<T>, r, detail::Finalize::None, false));
}

template <class T>
Array<cpp_type_t<sum_result(dtype_v<T>)>> prod(const Array<T>& a) {
  constexpr DType r = sum_result(dtype_v<T>);
  return Array<cpp_type_t<r>>(detail::reduce("prod", detail::ReduceKind::Prod, a.impl(), nullptr, dtype_v<T>, r,
                                             detail::Finalize::None, false));
}

template <class T>
Array<T> min(const Array<T>& a) {
  return Array<T>(detail::reduce("min", detail::ReduceKind::Min, a.impl(), nullptr, dtype_v<T>, dtype_v<T>,
                                 detail::Finalize::None, false));
}

template <class T>
Array<T> max(const Array<T>& a) {
  return Array<T>(detail::reduce("max", detail::ReduceKind::Max, a.impl(), nullptr, dtype_v<T>, dtype_v<T>,
                                 detail::Finalize::None, false));
}

template <class T>
Array<cpp_type_t<mean_result(dtype_v<T>)>> mean(const Array<T>& a) {
  constexpr DType r = mean_result(dtype_v<T>);
  return Array<cpp_type_t<r>>(
      detail::reduce("mean", detail::ReduceKind::Sum, a.impl(), nullptr, dtype_v<T>, r, detail::Finalize::Mean, false));
}

namespace detail {
// sum(a * b) over every element of two arrays of one shape, in their promoted type.
template <class A, class B>
Array<cpp_type_t<promote(dtype_v<A>, dtype_v<B>)>> inner_product(const char* what, const Array<A>& a,
                                                                 const Array<B>& b) {
  constexpr DType t = promote(dtype_v<A>, dtype_v<B>);
  return Array<cpp_type_t<t>>(reduce(what, ReduceKind::Sum, a.impl(), &b.impl(), t, t, Finalize::None, false));
}
}  // namespace detail

// NumPy's vdot: the inner product of two arrays of one shape, whatever their dimensions.
template <class A, class B>
Array<cpp_type_t<promote(dtype_v<A>, dtype_v<B>)>> vdot(const Array<A>& a, const Array<B>& b) {
  return detail::inner_product("vdot", a, b);
}

// Today the same as vdot (NumPy's dot of 1-D arrays); DESIGN.md part two gives dot of 2-D
// operands matmul's meaning, which it will get.
template <class A, class B>
Array<cpp_type_t<promote(dtype_v<A>, dtype_v<B>)>> dot(const Array<A>& a, const Array<B>& b) {
  return detail::inner_product("dot", a, b);
}

template <class T>
Array<cpp_type_t<mean_result(dtype_v<T>)>> norm(const Array<T>& a) {
  constexpr DType r = mean_result(dtype_v<T>);
  return Array<cpp_type_t<r>>(
      detail::reduce("norm", detail::ReduceKind::Sum, a.impl(), nullptr, r, r, detail::Finalize::Sqrt, true));
}

}  // namespace tessera
