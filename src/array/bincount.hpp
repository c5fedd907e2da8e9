#pragma once
// NumPy's bincount: how often each value 0, 1, ..., L-1 occurs in a 1-D array of non-negative
// integers (int64), or the sums of the weights at those elements (float64), with
// L = max(max(x) + 1, minlength).
//
//   auto counts = ts::bincount(labels, k);                 // (k,) int64, if labels < k
//   auto sums = ts::bincount(labels, data(ts::all, d), k); // (k,) float64: column d summed per label
//
// L depends on the values, so a call reads max(x) back to the host (one synchronization, as in
// NumPy and cuPyNumeric), unless x's values are known to lie below minlength: x computed by
// argmin or argmax (indices below the reduced extent) and not written since, or bool x. Then L
// is minlength and nothing is read back. The counting itself is one reduction over (n, L), x[i]
// compared with each bin j, sum(x[:, None] == arange(L)[None, :], 0), which fuses with what
// produces x and the weights and stores nothing of size n × L. Its work grows with n × L: it is
// meant for few bins (clusters, classes, histograms of up to a few thousand bins), not for L
// near n. The errors are NumPy's: x not 1-D, negative values, weights of another shape, a
// negative minlength.

#include <algorithm>
#include <cstdint>
#include <limits>

#include "tessera/array/array.hpp"
#include "tessera/array/creation.hpp"
#include "tessera/array/operators.hpp"
#include "tessera/array/reductions.hpp"

namespace tessera {
namespace detail {

// NumPy's checks of bincount's arguments (x 1-D, weights of its shape, minlength >= 0).
void check_bincount(const ArrayRef& x, const ArrayRef* weights, std::int64_t minlength);
// NumPy's error for a negative element (`smallest`), or for max(x) = the largest int64.
[[noreturn]] void raise_bincount_range(std::int64_t smallest);

template <class T>
std::int64_t bincount_length(const Array<T>& x, const ArrayRef* weights, std::int64_t minlength) {
  static_assert(std::is_integral_v<T>,
                "tessera::bincount: x must hold integers or bools (NumPy cannot cast floats to int64 safely)");
  check_bincount(x.impl(), weights, minlength);
  if (x.size() == 0) return minlength;
  // Values known to lie in [0, minlength) (argmin's results, bools) give minlength unread.
  const auto& known = x.impl().store->known_bounds();
  const std::int64_t hi = std::is_same_v<T, bool> ? 1 : known && known->lo >= 0 ? known->hi : minlength;
  if (hi < minlength) return minlength;
  // One reduction for both bounds: a negative element reads as the largest int64.
  constexpr std::int64_t flag = std::numeric_limits<std::int64_t>::max();
  const auto values = [&x] { return x.template astype<std::int64_t>(); };  // no handle: nothing stored
  const std::int64_t largest = max(where(values() < 0, flag, values())).item();
  if (largest == flag) raise_bincount_range(min(values()).item());
  return std::max(minlength, largest + 1);
}

}  // namespace detail

template <class T>
Array<std::int64_t> bincount(const Array<T>& x, std::int64_t minlength = 0) {
  const std::int64_t length = detail::bincount_length(x, nullptr, minlength);
  if (x.size() == 0 || length == 0) return zeros<std::int64_t>({length});
  return Array<std::int64_t>(detail::bincount_reduce(x.impl(), nullptr, length));
}

template <class T, class W>
Array<double> bincount(const Array<T>& x, const Array<W>& weights, std::int64_t minlength = 0) {
  const std::int64_t length = detail::bincount_length(x, &weights.impl(), minlength);
  if (x.size() == 0 || length == 0) return zeros<double>({length});
  return Array<double>(detail::bincount_reduce(x.impl(), &weights.impl(), length));
}

}  // namespace tessera
