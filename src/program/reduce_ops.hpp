#pragma once
// The scalar side of reductions, shared by the interpreter and the kernels that complete
// reductions across ranks (fusion/reduction_finish.cpp): identities, and folding one partial
// result (a value, and an index for the arg kinds) into another.

#include <Kokkos_NumericTraits.hpp>

#include "tessera/program/element_ops.hpp"
#include "tessera/program/interpreter.hpp"

namespace tessera::detail {

struct ReduceSlot {
  ReduceKind kind;
  bool is_float;
};

KOKKOS_INLINE_FUNCTION void reduce_identity(Value& v, Value& index, ReduceSlot s) {
  // Arg kinds start from the worst value at no index: any element, even an infinity, beats it.
  const bool low = s.kind == ReduceKind::Min || s.kind == ReduceKind::ArgMin;  // the identity is +inf
  index.i64 = Kokkos::Experimental::finite_max<std::int64_t>::value;
  if (s.is_float) {
    v.f64 = s.kind == ReduceKind::Sum    ? 0.0
            : s.kind == ReduceKind::Prod ? 1.0
            : low                        ? Kokkos::Experimental::infinity<double>::value
                                         : -Kokkos::Experimental::infinity<double>::value;
  } else {
    v.i64 = s.kind == ReduceKind::Sum    ? 0
            : s.kind == ReduceKind::Prod ? 1
            : low                        ? Kokkos::Experimental::finite_max<std::int64_t>::value
                                         : Kokkos::Experimental::finite_min<std::int64_t>::value;
  }
}

template <class T>
KOKKOS_INLINE_FUNCTION T combine(ReduceKind k, T a, T b) {
  switch (k) {
    case ReduceKind::Sum: return element::wrap_add(a, b);
    case ReduceKind::Prod: return element::wrap_mul(a, b);
    case ReduceKind::Min: return element::minimum(a, b);
    default: return element::maximum(a, b);
  }
}

// Folds (x, x_index) into the accumulator (v, index) of slot s; x is already the accumulator type.
template <class T>
KOKKOS_INLINE_FUNCTION void fold(ReduceSlot s, T& v, std::int64_t& index, T x, std::int64_t x_index) {
  if (is_arg(s.kind)) {
    if (element::arg_better(s.kind == ReduceKind::ArgMax, x, x_index, v, index)) v = x, index = x_index;
  } else {
    v = combine(s.kind, v, x);
  }
}

KOKKOS_INLINE_FUNCTION void fold_value(ReduceSlot s, Value& v, Value& index, const Value& x, const Value& x_index) {
  if (s.is_float)
    fold(s, v.f64, index.i64, x.f64, x_index.i64);
  else
    fold(s, v.i64, index.i64, x.i64, x_index.i64);
}

// A reduction's result as its store holds it: the value (the index for the arg kinds), finalized
// (the mean's division by n, norm's root) and converted to the store's type `out`. The kernels
// that finish reductions and the inner reductions of nested ones (NestedResult) share it, so a
// fused nested reduction sees the very values the unfused one would have stored.
KOKKOS_INLINE_FUNCTION Value finalize_value(ReduceSlot s, const Value& v, const Value& index, Finalize fin, double n,
                                            DType out) {
  const bool exact_int = is_arg(s.kind) || (!s.is_float && fin == Finalize::None);
  const std::int64_t i = is_arg(s.kind) ? index.i64 : v.i64;
  double f = s.is_float ? v.f64 : static_cast<double>(v.i64);
  if (fin == Finalize::Mean) f = f / n;
  if (fin == Finalize::Sqrt) f = TESSERA_KOKKOS_MATH::sqrt(f);
  Value r;
  r.i64 = 0;
  switch (out) {
    case DType::Bool: r.b = exact_int ? i != 0 : f != 0.0; break;
    case DType::Int32: r.i32 = exact_int ? static_cast<std::int32_t>(i) : static_cast<std::int32_t>(f); break;
    case DType::Int64: r.i64 = exact_int ? i : static_cast<std::int64_t>(f); break;
    case DType::Float32: r.f32 = static_cast<float>(f); break;
    default: r.f64 = f; break;
  }
  return r;
}

// dst's slot k folds in src's, for each of the n reductions.
KOKKOS_INLINE_FUNCTION void join_accumulators(Accumulators& dst, const Accumulators& src, const ReduceSlot* slots,
                                              int n) {
  for (int k = 0; k < n; ++k) fold_value(slots[k], dst.slot[k].v, dst.slot[k].index, src.slot[k].v, src.slot[k].index);
}
KOKKOS_INLINE_FUNCTION void init_accumulators(Accumulators& acc, const ReduceSlot* slots, int n) {
  for (int k = 0; k < n; ++k) reduce_identity(acc.slot[k].v, acc.slot[k].index, slots[k]);
}
#ifdef TESSERA_KOKKOS_VOLATILE_JOIN
// Kokkos 3's volatile join: through plain copies (Value has no volatile assignment).
KOKKOS_INLINE_FUNCTION void join_accumulators(volatile Accumulators& dst, const volatile Accumulators& src,
                                              const ReduceSlot* slots, int n) {
  Accumulators d, s;
  for (int k = 0; k < n; ++k) {
    d.slot[k].v.i64 = dst.slot[k].v.i64, d.slot[k].index.i64 = dst.slot[k].index.i64;
    s.slot[k].v.i64 = src.slot[k].v.i64, s.slot[k].index.i64 = src.slot[k].index.i64;
  }
  join_accumulators(d, s, slots, n);
  for (int k = 0; k < n; ++k) dst.slot[k].v.i64 = d.slot[k].v.i64, dst.slot[k].index.i64 = d.slot[k].index.i64;
}
#endif

// The reductions of `program` as the kernels see them; returns how many.
inline int reduce_slots(const Program& program, ReduceSlot* slots) {
  const int n = static_cast<int>(program.reduce_kinds.size());
  for (int k = 0; k < n; ++k) slots[k] = {program.reduce_kinds[k], program.reduce_float[k]};
  return n;
}

}  // namespace tessera::detail
