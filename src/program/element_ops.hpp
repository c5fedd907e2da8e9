#pragma once
// Scalar semantics of every instruction, shared by all fused-kernel backends so that they can
// never disagree. Integers wrap as NumPy's do (computed unsigned: signed overflow is undefined in
// C++); floating max/min propagate NaN as np.maximum/np.minimum do.

#include <cstdint>
#include <type_traits>

#include "tessera/core/kokkos_compat.hpp"

namespace tessera::detail::element {

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;  // NumPy: the product of booleans is their conjunction
  } else {
    return a * b;
  }
}
// Floats negate the sign bit: -(0.0) is -0.0 in NumPy, where 0.0 - 0.0 would be +0.0.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T neg(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return -a;
  else
    return wrap_sub(T(0), a);
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T abs(T a) {
  if constexpr (std::is_same_v<T, bool>)
    return a;
  else if constexpr (std::is_integral_v<T>)
    return a < 0 ? neg(a) : a;
  else
    return TESSERA_KOKKOS_MATH::fabs(a);
}
// Only floating division is ever emitted (true division casts integers first); integers are
// guarded anyway because a zero divisor would trap the whole process.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T divide(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a / b;
  else
    return b == T(0) ? T(0) : static_cast<T>(a / b);
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T power(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return TESSERA_KOKKOS_MATH::pow(a, b);
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || !b;
  } else {
    // NumPy rejects negative integer exponents; a kernel cannot raise, so follow C's truncation.
    if (b < 0) return a == 1 ? T(1) : a == -1 ? ((b & 1) ? T(-1) : T(1)) : T(0);
    T result = 1;
    while (b) {
      if (b & 1) result = wrap_mul(result, a);
      a = wrap_mul(a, a);
      b >>= 1;
    }
    return result;
  }
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T maximum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T minimum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

// NumPy's remainder (Python's %): the result has the divisor's sign. Floats: fmod (exact), moved
// by one divisor when the signs differ, a zero result signed like the divisor, NaN for a zero
// divisor (fmod's). Integers: 0 for a zero divisor, as NumPy; x % -1 is 0 without dividing
// (INT_MIN % -1 traps in C++).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T remainder(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const T mod = TESSERA_KOKKOS_MATH::fmod(a, b);
    if (b == T(0)) return mod;
    if (mod == T(0)) return b < T(0) ? -T(0) : T(0);
    return (b < T(0)) != (mod < T(0)) ? mod + b : mod;
  } else {
    if (b == T(0) || b == T(-1)) return T(0);
    const T mod = static_cast<T>(a % b);
    return mod != T(0) && (mod < T(0)) != (b < T(0)) ? static_cast<T>(mod + b) : mod;
  }
}
// -1, 0 or 1 in a's type; NaN stays NaN and -0.0 gives 0.0, as np.sign.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T sign(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return a > T(0) ? T(1) : a < T(0) ? T(-1) : a == T(0) ? T(0) : a;
  else
    return static_cast<T>((a > T(0)) - (a < T(0)));
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T square(T a) {
  return wrap_mul(a, a);
}
// ~ of an integer; of a bool its negation (~True is False in NumPy, not the int ~1).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T bit_not(T a) {
  if constexpr (std::is_same_v<T, bool>)
    return !a;
  else
    return static_cast<T>(~a);
}
// Integers and bools are never NaN and always finite. inf - inf and NaN - NaN are NaN.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION bool is_nan(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return a != a;
  else
    return false;
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION bool is_finite(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return a - a == T(0);
  else
    return true;
}

// Counter-based generator (SplitMix64 finalizer applied twice): the value of element i depends
// only on (seed, i), so random() gives the same global array for any number of ranks.
KOKKOS_FORCEINLINE_FUNCTION std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T uniform(std::uint64_t seed, std::uint64_t counter) {
  std::uint64_t h = mix(mix(seed + 0x9e3779b97f4a7c15ULL) ^ (counter * 0x9e3779b97f4a7c15ULL + 1));
  if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
  else
    return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

// Whether (a, ia) beats (b, ib) in an argmax (is_max) or argmin: NaN first (NumPy returns the
// first NaN), then the larger (smaller) value, then the lower index (the first occurrence).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION bool arg_better(bool is_max, T a, std::int64_t ia, T b, std::int64_t ib) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool na = a != a, nb = b != b;
    if (na || nb) return na && (!nb || ia < ib);
  }
  if (a != b) return is_max ? a > b : a < b;
  return ia < ib;
}

}  // namespace tessera::detail::element
