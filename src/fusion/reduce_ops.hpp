#pragma once
// The scalar side of reductions, shared by the interpreter and the kernels that complete
// reductions across ranks (fusion/reduction_finish.cpp): identities, and folding one partial
// result (a value, and an index for the arg kinds) into another.

#include <Kokkos_NumericTraits.hpp>

#include "tessera/fusion/element_ops.hpp"
#include "tessera/fusion/interpreter.hpp"

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

// dst's slot k folds in src's, for each of the n reductions.
KOKKOS_INLINE_FUNCTION void join_accumulators(Accumulators& dst, const Accumulators& src, const ReduceSlot* slots,
                                              int n) {
  for (int k = 0; k < n; ++k) fold_value(slots[k], dst.slot[k].v, dst.slot[k].index, src.slot[k].v, src.slot[k].index);
}

// The reductions of `program` as the kernels see them; returns how many.
inline int reduce_slots(const Program& program, ReduceSlot* slots) {
  const int n = static_cast<int>(program.reduce_kinds.size());
  for (int k = 0; k < n; ++k) slots[k] = {program.reduce_kinds[k], program.reduce_float[k]};
  return n;
}

}  // namespace tessera::detail
