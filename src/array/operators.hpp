#pragma once
// Elementwise operators and math functions. A C++ scalar can stand wherever an array can and
// takes the array's type (NumPy's rule for Python scalars): float_array * 2.0 stays float32.
//
//   auto d = ts::where(c > 0.0, ts::exp(c), -c);
//   auto e = ts::maximum(d, 0.0) + ts::pow(a, 2);
//   auto r = i % 3;                            // NumPy's remainder: -7 % 3 == 2, 7 % -3 == -2
//   auto m = ((i & 1) == 0) | ~mask;           // & | ^ ~ on bool (logical) and integer arrays
//   auto t = ts::arctan2(y, x);                // also floor ceil sign square tan isnan isfinite
//   auto k = ts::clip(a, 0.0, 1.0);            // minimum(maximum(a, 0.0), 1.0)

#include "tessera/array/array.hpp"

namespace tessera {
namespace detail {

template <class A, class B>
inline constexpr bool binary_operands_v = (is_array_v<A> || is_array_v<B>)&&is_operand_v<A>&& is_operand_v<B>;

template <class A, class B>
using enable_binary_t = std::enable_if_t<binary_operands_v<A, B>, int>;

template <class A, class B>
Array<bool> compare(const char* what, OpCode op, const A& a, const B& b) {
  constexpr DType t = binary_dtype<A, B>();
  return Array<bool>(apply(what, op, {to_operand(a), to_operand(b)}, {t, t}, t, DType::Bool));
}

template <class T>
ArrayRef unary(const char* what, OpCode op, const Array<T>& a, DType type) {
  return apply(what, op, {Operand::of(a.impl())}, {type}, type, type);
}

}  // namespace detail

// The result type is that of compute_dtype (array.hpp): true division and arctan2 of integers are
// floating (float64), % of booleans int32 (NumPy: int8, which tessera does not have).
#define TESSERA_ARITHMETIC(OPERATOR, WHAT, CODE)                                      \
  template <class A, class B, detail::enable_binary_t<A, B> = 0>                      \
  detail::binary_result_t<CODE, A, B> OPERATOR(const A& a, const B& b) {              \
    return detail::binary_result_t<CODE, A, B>(detail::arithmetic(WHAT, CODE, a, b)); \
  }
TESSERA_ARITHMETIC(operator+, "add", detail::OpCode::Add)
TESSERA_ARITHMETIC(operator-, "subtract", detail::OpCode::Sub)
TESSERA_ARITHMETIC(operator*, "multiply", detail::OpCode::Mul)
TESSERA_ARITHMETIC(operator/, "divide", detail::OpCode::Div)
TESSERA_ARITHMETIC(operator%, "remainder", detail::OpCode::Mod)
TESSERA_ARITHMETIC(pow, "power", detail::OpCode::Pow)
TESSERA_ARITHMETIC(maximum, "maximum", detail::OpCode::Max)
TESSERA_ARITHMETIC(minimum, "minimum", detail::OpCode::Min)
TESSERA_ARITHMETIC(arctan2, "arctan2", detail::OpCode::Atan2)
#undef TESSERA_ARITHMETIC

// Bitwise on integers, logical on bools; floating operands do not compile (NumPy: TypeError).
#define TESSERA_BITWISE(OPERATOR, WHAT, CODE)                                         \
  template <class A, class B, detail::enable_binary_t<A, B> = 0>                      \
  detail::binary_result_t<CODE, A, B> OPERATOR(const A& a, const B& b) {              \
    detail::require_bitwise<A, B>();                                                  \
    return detail::binary_result_t<CODE, A, B>(detail::arithmetic(WHAT, CODE, a, b)); \
  }
TESSERA_BITWISE(operator&, "bitwise_and", detail::OpCode::BitAnd)
TESSERA_BITWISE(operator|, "bitwise_or", detail::OpCode::BitOr)
TESSERA_BITWISE(operator^, "bitwise_xor", detail::OpCode::BitXor)
#undef TESSERA_BITWISE

template <class T>
Array<T> operator~(const Array<T>& a) {
  detail::require_bitwise<Array<T>, Array<T>>();
  return Array<T>(detail::unary("invert", detail::OpCode::BitNot, a, dtype_v<T>));
}

#define TESSERA_COMPARISON(OPERATOR, WHAT, CODE)                 \
  template <class A, class B, detail::enable_binary_t<A, B> = 0> \
  Array<bool> OPERATOR(const A& a, const B& b) {                 \
    return detail::compare(WHAT, CODE, a, b);                    \
  }
TESSERA_COMPARISON(operator==, "equal", detail::OpCode::Eq)
TESSERA_COMPARISON(operator!=, "not_equal", detail::OpCode::Ne)
TESSERA_COMPARISON(operator<, "less", detail::OpCode::Lt)
TESSERA_COMPARISON(operator<=, "less_equal", detail::OpCode::Le)
TESSERA_COMPARISON(operator>, "greater", detail::OpCode::Gt)
TESSERA_COMPARISON(operator>=, "greater_equal", detail::OpCode::Ge)
#undef TESSERA_COMPARISON

template <class T>
Array<T> operator-(const Array<T>& a) {
  if constexpr (std::is_same_v<T, bool>)
    detail::raise("negative: not supported for bool arrays (NumPy raises too); use astype<int32_t>() first");
  return Array<T>(detail::unary("negative", detail::OpCode::Neg, a, dtype_v<T>));
}

template <class T>
Array<T> abs(const Array<T>& a) {
  return Array<T>(detail::unary("abs", detail::OpCode::Abs, a, dtype_v<T>));
}

// -1, 0 or 1 in a's type (NaN stays NaN). bool arrays do not compile (NumPy: TypeError).
template <class T>
Array<T> sign(const Array<T>& a) {
  static_assert(!std::is_same_v<T, bool>,
                "tessera::sign: bool arrays have no sign (NumPy raises TypeError); use astype<int32_t>() first");
  return Array<T>(detail::unary("sign", detail::OpCode::Sign, a, dtype_v<T>));
}

// a * a in a's type (integers wrap); bool squares in int32 (NumPy: int8).
template <class T>
Array<cpp_type_t<bool_as_integer(dtype_v<T>)>> square(const Array<T>& a) {
  return Array<cpp_type_t<bool_as_integer(dtype_v<T>)>>(
      detail::unary("square", detail::OpCode::Square, a, bool_as_integer(dtype_v<T>)));
}

// sqrt, exp, floor, ...: integers compute in float64 (floor(3) == 3.0, as NumPy); floats keep
// their width; bool gives float32 (NumPy: float16).
#define TESSERA_FLOAT_FUNCTION(NAME, CODE)                                        \
  template <class T>                                                              \
  Array<cpp_type_t<float_result(dtype_v<T>)>> NAME(const Array<T>& a) {           \
    return Array<cpp_type_t<float_result(dtype_v<T>)>>(                           \
        detail::unary(#NAME, detail::OpCode::CODE, a, float_result(dtype_v<T>))); \
  }
TESSERA_FLOAT_FUNCTION(sqrt, Sqrt)
TESSERA_FLOAT_FUNCTION(exp, Exp)
TESSERA_FLOAT_FUNCTION(log, Log)
TESSERA_FLOAT_FUNCTION(sin, Sin)
TESSERA_FLOAT_FUNCTION(cos, Cos)
TESSERA_FLOAT_FUNCTION(tan, Tan)
TESSERA_FLOAT_FUNCTION(tanh, Tanh)
TESSERA_FLOAT_FUNCTION(erf, Erf)
TESSERA_FLOAT_FUNCTION(floor, Floor)
TESSERA_FLOAT_FUNCTION(ceil, Ceil)
#undef TESSERA_FLOAT_FUNCTION

// isnan, isfinite: Array<bool>; integer and bool elements are never NaN and always finite.
#define TESSERA_PREDICATE(NAME, CODE)                                                              \
  template <class T>                                                                               \
  Array<bool> NAME(const Array<T>& a) {                                                            \
    return Array<bool>(detail::apply(#NAME, detail::OpCode::CODE, {detail::Operand::of(a.impl())}, \
                                     std::vector<DType>{dtype_v<T>}, dtype_v<T>, DType::Bool));    \
  }
TESSERA_PREDICATE(isnan, IsNan)
TESSERA_PREDICATE(isfinite, IsFinite)
#undef TESSERA_PREDICATE

// clip(a, lo, hi) = minimum(maximum(a, lo), hi); lo and hi are arrays or scalars (which take the
// array's type, so clip(int_array, 0.5, 2) is float64, as NumPy). NaN stays NaN; where lo > hi
// the result is hi.
template <class T, class Lo, class Hi, class = std::enable_if_t<detail::is_operand_v<Lo> && detail::is_operand_v<Hi>>>
detail::binary_result_t<detail::OpCode::Min, detail::binary_result_t<detail::OpCode::Max, Array<T>, Lo>, Hi> clip(
    const Array<T>& a, const Lo& lo, const Hi& hi) {
  using Low = detail::binary_result_t<detail::OpCode::Max, Array<T>, Lo>;
  const Low low(detail::arithmetic("clip", detail::OpCode::Max, a, lo));
  return detail::binary_result_t<detail::OpCode::Min, Low, Hi>(
      detail::arithmetic("clip", detail::OpCode::Min, low, hi));
}

// where(condition, x, y): x where the condition holds, else y. Any condition type is tested for
// nonzero; x and y promote as in arithmetic.
template <class C, class X, class Y, class = std::enable_if_t<detail::is_operand_v<X> && detail::is_operand_v<Y>>>
Array<cpp_type_t<detail::binary_dtype<X, Y>()>> where(const Array<C>& condition, const X& x, const Y& y) {
  constexpr DType t = detail::binary_dtype<X, Y>();
  return Array<cpp_type_t<t>>(
      detail::apply("where", detail::OpCode::Where,
                    {detail::Operand::of(condition.impl()), detail::to_operand(x), detail::to_operand(y)},
                    {DType::Bool, t, t}, t, t));
}

template <class T>
Array<T> copy(const Array<T>& a) {
  detail::check_runtime(a.impl(), "copy");
  return Array<T>(detail::apply("copy", detail::OpCode::Load, {detail::Operand::of(a.impl())},
                                std::vector<DType>{dtype_v<T>}, dtype_v<T>, dtype_v<T>));
}

}  // namespace tessera
