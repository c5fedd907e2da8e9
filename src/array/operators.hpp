#pragma once
// Elementwise operators and math functions. A C++ scalar can stand wherever an array can and
// takes the array's type (NumPy's rule for Python scalars): float_array * 2.0 stays float32.
//
//   auto d = ts::where(c > 0.0, ts::exp(c), -c);
//   auto e = ts::maximum(d, 0.0) + ts::pow(a, 2);

#include "tessera/array/array.hpp"

namespace tessera {
namespace detail {

template <class A, class B>
inline constexpr bool binary_operands_v = (is_array_v<A> || is_array_v<B>)&&is_operand_v<A>&& is_operand_v<B>;

template <class A, class B>
using arithmetic_result_t = Array<cpp_type_t<binary_dtype<A, B>()>>;

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

#define TESSERA_ARITHMETIC(OPERATOR, WHAT, CODE)                                    \
  template <class A, class B, detail::enable_binary_t<A, B> = 0>                    \
  detail::arithmetic_result_t<A, B> OPERATOR(const A& a, const B& b) {              \
    return detail::arithmetic_result_t<A, B>(detail::arithmetic(WHAT, CODE, a, b)); \
  }
TESSERA_ARITHMETIC(operator+, "add", detail::OpCode::Add)
TESSERA_ARITHMETIC(operator-, "subtract", detail::OpCode::Sub)
TESSERA_ARITHMETIC(operator*, "multiply", detail::OpCode::Mul)
TESSERA_ARITHMETIC(pow, "power", detail::OpCode::Pow)
TESSERA_ARITHMETIC(maximum, "maximum", detail::OpCode::Max)
TESSERA_ARITHMETIC(minimum, "minimum", detail::OpCode::Min)
#undef TESSERA_ARITHMETIC

// True division: integers divide as float64, as NumPy's `/`.
template <class A, class B, detail::enable_binary_t<A, B> = 0>
Array<cpp_type_t<divide_result(detail::binary_dtype<A, B>())>> operator/(const A& a, const B& b) {
  return Array<cpp_type_t<divide_result(detail::binary_dtype<A, B>())>>(
      detail::arithmetic("divide", detail::OpCode::Div, a, b));
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

// sqrt, exp, ...: integers compute in float64; floats keep their width.
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
TESSERA_FLOAT_FUNCTION(tanh, Tanh)
TESSERA_FLOAT_FUNCTION(erf, Erf)
#undef TESSERA_FLOAT_FUNCTION

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
