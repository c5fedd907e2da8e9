#pragma once
// An untyped 8-byte scalar: the register and constant format of fused programs and the carrier of
// C++ scalar operands. Which member is live is given by a DType kept beside it.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "tessera/core/dtype.hpp"

namespace tessera::detail {

union Value {
  bool b;
  std::int32_t i32;
  std::int64_t i64;
  float f32;
  double f64;
};

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T& as(Value& v) {
  if constexpr (std::is_same_v<T, bool>)
    return v.b;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return v.i32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return v.i64;
  else if constexpr (std::is_same_v<T, float>)
    return v.f32;
  else
    return v.f64;
}

template <class T>
KOKKOS_FORCEINLINE_FUNCTION const T& as(const Value& v) {
  return as<T>(const_cast<Value&>(v));
}

template <class T>
Value make_value(T x) {
  Value v{};
  v.i64 = 0;
  as<T>(v) = x;
  return v;
}

// Converts a C++ scalar to the element type `to` (C++ conversion rules, as NumPy's astype).
template <class S>
Value convert_scalar(S x, DType to) {
  switch (to) {
    case DType::Bool: return make_value<bool>(x != S(0));
    case DType::Int32: return make_value<std::int32_t>(static_cast<std::int32_t>(x));
    case DType::Int64: return make_value<std::int64_t>(static_cast<std::int64_t>(x));
    case DType::Float32: return make_value<float>(static_cast<float>(x));
    default: return make_value<double>(static_cast<double>(x));
  }
}

// Calls f with a value-initialized object of the C++ type of t (a tag for dispatch).
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f(bool{});
    case DType::Int32: return f(std::int32_t{});
    case DType::Int64: return f(std::int64_t{});
    case DType::Float32: return f(float{});
    default: return f(double{});
  }
}

}  // namespace tessera::detail
