#pragma once
// Shape operations and diagonals, as NumPy's; each returns a new array (no writable views).
//
//   auto flat = ts::reshape(A, {n * m});          // row-major order; ts::reshape(A, {-1}) too:
//                                                 // one extent may be -1, inferred from the size
//   auto At = ts::transpose(A);                   // reversed axes; ts::transpose(B, {1, 0, 2})
//   auto AB = ts::concatenate({A, B}, 0);         // also ts::hstack({a, b}), ts::vstack({a, b})
//   auto shifted = ts::roll(u, -1, 1);            // periodic: shifted[:, j] = u[:, j + 1 mod m]
//   auto D = ts::diag(d);                         // 1-D -> diagonal matrix; ts::diag(A) -> its diagonal
//
// Axes may be negative. concatenate takes arrays of one element type and ndim (convert with
// astype first). roll of a tiled axis moves only the elements that cross a tile boundary or wrap
// around; reshape runs at once (it flushes the op window) as one redistribution.

#include <initializer_list>
#include <vector>

#include "tessera/array/array.hpp"

namespace tessera {
namespace detail {
ArrayRef reshape_array(const ArrayRef& a, const Shape& shape);
ArrayRef transpose_array(const ArrayRef& a, const std::vector<int>& axes);
ArrayRef concatenate_arrays(const char* what, const std::vector<ArrayRef>& arrays, int axis);
ArrayRef roll_array(const ArrayRef& a, std::int64_t shift, int axis);
ArrayRef diag_array(const ArrayRef& a);

template <class T>
std::vector<ArrayRef> refs(const std::vector<Array<T>>& arrays) {
  std::vector<ArrayRef> out;
  for (const Array<T>& a : arrays) out.push_back(a.impl());
  return out;
}
}  // namespace detail

template <class T>
Array<T> reshape(const Array<T>& a, const Shape& shape) {
  return Array<T>(detail::reshape_array(a.impl(), shape));
}

template <class T>
Array<T> transpose(const Array<T>& a, const std::vector<int>& axes = {}) {
  return Array<T>(detail::transpose_array(a.impl(), axes));
}

template <class T>
Array<T> concatenate(const std::vector<Array<T>>& arrays, int axis = 0) {
  return Array<T>(detail::concatenate_arrays("concatenate", detail::refs(arrays), axis));
}
template <class T>
Array<T> concatenate(std::initializer_list<Array<T>> arrays, int axis = 0) {
  return concatenate(std::vector<Array<T>>(arrays), axis);
}

// Along the second axis, or the first for 1-D arrays (np.hstack).
template <class T>
Array<T> hstack(const std::vector<Array<T>>& arrays) {
  const int axis = !arrays.empty() && arrays.front().ndim() == 1 ? 0 : 1;
  return Array<T>(detail::concatenate_arrays("hstack", detail::refs(arrays), axis));
}
template <class T>
Array<T> hstack(std::initializer_list<Array<T>> arrays) {
  return hstack(std::vector<Array<T>>(arrays));
}

// Along the first axis, 1-D arrays as rows (np.vstack).
template <class T>
Array<T> vstack(const std::vector<Array<T>>& arrays) {
  std::vector<detail::ArrayRef> rows;
  for (const Array<T>& a : arrays) rows.push_back(a.ndim() == 1 ? a(newaxis, all).impl() : a.impl());
  return Array<T>(detail::concatenate_arrays("vstack", rows, 0));
}
template <class T>
Array<T> vstack(std::initializer_list<Array<T>> arrays) {
  return vstack(std::vector<Array<T>>(arrays));
}

template <class T>
Array<T> roll(const Array<T>& a, std::int64_t shift, int axis) {
  return Array<T>(detail::roll_array(a.impl(), shift, axis));
}

template <class T>
Array<T> diag(const Array<T>& a) {
  return Array<T>(detail::diag_array(a.impl()));
}

}  // namespace tessera
