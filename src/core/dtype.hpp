#pragma once
// The five element types and NumPy's promotion rules between them.
//
//   promote(int32, float32) == float64      (as np.promote_types)
//   promote_weak(float32, ScalarKind::Float) == float32   (a C++ scalar takes the array's type,
//                                                          as NumPy's Python scalars do, NEP 50)

#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {

enum class DType : std::uint8_t { Bool, Int32, Int64, Float32, Float64 };

// The kind of a C++ scalar operand: it only decides the result kind, never the width.
enum class ScalarKind : std::uint8_t { Bool, Int, Float };

template <class T>
struct dtype_of;
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::Bool;
};
template <>
struct dtype_of<std::int32_t> {
  static constexpr DType value = DType::Int32;
};
template <>
struct dtype_of<std::int64_t> {
  static constexpr DType value = DType::Int64;
};
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::Float32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::Float64;
};
template <class T>
inline constexpr DType dtype_v = dtype_of<T>::value;

template <DType D>
struct cpp_type;
template <>
struct cpp_type<DType::Bool> {
  using type = bool;
};
template <>
struct cpp_type<DType::Int32> {
  using type = std::int32_t;
};
template <>
struct cpp_type<DType::Int64> {
  using type = std::int64_t;
};
template <>
struct cpp_type<DType::Float32> {
  using type = float;
};
template <>
struct cpp_type<DType::Float64> {
  using type = double;
};
template <DType D>
using cpp_type_t = typename cpp_type<D>::type;

template <class T>
inline constexpr bool is_element_type_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

constexpr bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64; }
constexpr bool is_integral(DType t) { return t == DType::Int32 || t == DType::Int64; }

constexpr int size_of(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::Int32: return 4;
    case DType::Float32: return 4;
    default: return 8;
  }
}

const char* name(DType t);

constexpr ScalarKind kind_of(DType t) {
  return t == DType::Bool ? ScalarKind::Bool : is_integral(t) ? ScalarKind::Int : ScalarKind::Float;
}

// np.promote_types restricted to the five types.
constexpr DType promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_float(a) && is_float(b)) return DType::Float64;
  if (is_integral(a) && is_integral(b)) return DType::Int64;
  // one integer, one float: float32 cannot hold every int32/int64 value
  return DType::Float64;
}

// The default type NumPy gives a Python scalar of this kind when the array's kind is lower.
constexpr DType default_dtype(ScalarKind k) {
  return k == ScalarKind::Bool ? DType::Bool : k == ScalarKind::Int ? DType::Int64 : DType::Float64;
}

constexpr DType promote_weak(DType array, ScalarKind scalar) {
  return static_cast<int>(kind_of(array)) >= static_cast<int>(scalar) ? array : default_dtype(scalar);
}

// Result of exp, sqrt, ...: floats keep their width, integers become float64. NumPy gives bool
// float16, which tessera does not have; it gives float32.
constexpr DType float_result(DType t) { return is_float(t) ? t : t == DType::Bool ? DType::Float32 : DType::Float64; }

// Accumulator/result type of sum and prod: NumPy widens booleans and small integers to int64.
constexpr DType sum_result(DType t) { return is_float(t) ? t : DType::Int64; }

// Result of mean: float64 for bool and integers, as NumPy.
constexpr DType mean_result(DType t) { return t == DType::Float32 ? DType::Float32 : DType::Float64; }

// Results of true division.
constexpr DType divide_result(DType t) { return is_float(t) ? t : DType::Float64; }

// Results of square and %: the operand type, except that NumPy computes booleans in int8, which
// tessera does not have; it gives int32.
constexpr DType bool_as_integer(DType t) { return t == DType::Bool ? DType::Int32 : t; }

template <class S>
constexpr ScalarKind scalar_kind() {
  static_assert(std::is_arithmetic_v<S>, "tessera: scalar operands must be arithmetic types");
  return std::is_same_v<S, bool> ? ScalarKind::Bool : std::is_integral_v<S> ? ScalarKind::Int : ScalarKind::Float;
}

}  // namespace tessera
