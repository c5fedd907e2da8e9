#pragma once
// Reductions, over the whole array (a 0-d array) or along one axis. Results stay on the device;
// item() brings a 0-d one to the host.
//
//   auto alpha = ts::vdot(r, r) / ts::vdot(p, q);   // no host synchronization
//   double rnorm = ts::norm(r).item();
//   auto row_sums = ts::sum(A, 1);                  // shape (n,) of an (n, m) A
//   auto centered = A - ts::mean(A, 0, true);       // (n, m) - (1, m): broadcast, nothing copied
//   ts::Array<std::int64_t> nearest = ts::argmin(d2, 1);
//
// Axes count from the end when negative; keepdims keeps the reduced axis with extent 1. Result
// types follow NumPy: sum/prod of bool and integers are int64, mean of integers float64,
// argmin/argmax/count_nonzero int64; vdot is the full contraction sum(a * b) (np.vdot) in the
// promoted type; norm is the 2-norm. argmin/argmax take the first occurrence, NaN first, as NumPy;
// without an axis they give the flat (row-major) index. min, max, argmin and argmax of nothing
// are errors, as in NumPy. Along an axis the result is tiled like the other axes, so it feeds
// later operations over them without moving (docs/FUSION.md).

#include <optional>

#include "tessera/array/array.hpp"

namespace tessera {
namespace detail {

template <class R, class T>
Array<R> reduction(const char* what, ReduceKind kind, const Array<T>& a, DType compute, Finalize finalize,
                   std::optional<int> axis, bool keepdims, ReduceMap map = ReduceMap::Identity) {
  return Array<R>(reduce(ReduceSpec{what, kind, compute, dtype_v<R>, finalize, map, axis, keepdims}, a.impl()));
}

}  // namespace detail

#define TESSERA_REDUCTION(NAME, KIND, RESULT, COMPUTE, FINALIZE)                              \
  template <class T>                                                                          \
  Array<RESULT> NAME(const Array<T>& a) {                                                     \
    return detail::reduction<RESULT>(#NAME, KIND, a, COMPUTE, FINALIZE, std::nullopt, false); \
  }                                                                                           \
  template <class T>                                                                          \
  Array<RESULT> NAME(const Array<T>& a, int axis, bool keepdims = false) {                    \
    return detail::reduction<RESULT>(#NAME, KIND, a, COMPUTE, FINALIZE, axis, keepdims);      \
  }
TESSERA_REDUCTION(sum, detail::ReduceKind::Sum, cpp_type_t<sum_result(dtype_v<T>)>, dtype_v<T>, detail::Finalize::None)
TESSERA_REDUCTION(prod, detail::ReduceKind::Prod, cpp_type_t<sum_result(dtype_v<T>)>, dtype_v<T>,
                  detail::Finalize::None)
TESSERA_REDUCTION(min, detail::ReduceKind::Min, T, dtype_v<T>, detail::Finalize::None)
TESSERA_REDUCTION(max, detail::ReduceKind::Max, T, dtype_v<T>, detail::Finalize::None)
TESSERA_REDUCTION(mean, detail::ReduceKind::Sum, cpp_type_t<mean_result(dtype_v<T>)>, dtype_v<T>,
                  detail::Finalize::Mean)
TESSERA_REDUCTION(argmin, detail::ReduceKind::ArgMin, std::int64_t, dtype_v<T>, detail::Finalize::None)
TESSERA_REDUCTION(argmax, detail::ReduceKind::ArgMax, std::int64_t, dtype_v<T>, detail::Finalize::None)
#undef TESSERA_REDUCTION

// The number of nonzero (true) elements, as int64: over the whole array or along an axis.
template <class T>
Array<std::int64_t> count_nonzero(const Array<T>& a) {
  return detail::reduction<std::int64_t>("count_nonzero", detail::ReduceKind::Sum, a, dtype_v<T>,
                                         detail::Finalize::None, std::nullopt, false, detail::ReduceMap::Nonzero);
}
template <class T>
Array<std::int64_t> count_nonzero(const Array<T>& a, int axis, bool keepdims = false) {
  return detail::reduction<std::int64_t>("count_nonzero", detail::ReduceKind::Sum, a, dtype_v<T>,
                                         detail::Finalize::None, axis, keepdims, detail::ReduceMap::Nonzero);
}

namespace detail {
// sum(a * b) over every element of two arrays of one shape, in their promoted type.
template <class A, class B>
Array<cpp_type_t<promote(dtype_v<A>, dtype_v<B>)>> inner_product(const char* what, const Array<A>& a,
                                                                 const Array<B>& b) {
  constexpr DType t = promote(dtype_v<A>, dtype_v<B>);
  return Array<cpp_type_t<t>>(
      reduce(ReduceSpec{what, ReduceKind::Sum, t, t, Finalize::None, ReduceMap::Identity, std::nullopt, false},
             a.impl(), &b.impl()));
}
}  // namespace detail

// NumPy's vdot: the inner product of two arrays of one shape, whatever their dimensions.
template <class A, class B>
Array<cpp_type_t<promote(dtype_v<A>, dtype_v<B>)>> vdot(const Array<A>& a, const Array<B>& b) {
  return detail::inner_product("vdot", a, b);
}

// ts::dot (NumPy's dot: the inner product of 1-D arrays, matmul of 2-D ones) is in linalg/matmul.hpp.

template <class T>
Array<cpp_type_t<mean_result(dtype_v<T>)>> norm(const Array<T>& a) {
  constexpr DType r = mean_result(dtype_v<T>);
  return Array<cpp_type_t<r>>(
      detail::reduce(detail::ReduceSpec{"norm", detail::ReduceKind::Sum, r, r, detail::Finalize::Sqrt,
                                        detail::ReduceMap::Square, std::nullopt, false},
                     a.impl()));
}

}  // namespace tessera
