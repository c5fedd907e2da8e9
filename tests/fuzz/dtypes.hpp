#pragma once
// The fuzzer's element types and NumPy's promotion rules between them: the emulator's own,
// written from NumPy's behaviour rather than taken from tessera (so the two can disagree).

#include <cstdint>
#include <type_traits>

namespace fuzz {

constexpr double kEps32 = 1.1920928955078125e-07;
constexpr double kEps64 = 2.220446049250313e-16;

enum class DT : int { B = 0, I32 = 1, I64 = 2, F32 = 3, F64 = 4 };

inline const char* cpp_name(DT t) {
  switch (t) {
    case DT::B: return "bool";
    case DT::I32: return "int32_t";
    case DT::I64: return "int64_t";
    case DT::F32: return "float";
    default: return "double";
  }
}
inline const char* np_name(DT t) {
  switch (t) {
    case DT::B: return "bool";
    case DT::I32: return "int32";
    case DT::I64: return "int64";
    case DT::F32: return "float32";
    default: return "float64";
  }
}
inline int kind(DT t) { return t == DT::B ? 0 : (t == DT::I32 || t == DT::I64) ? 1 : 2; }
inline bool is_f(DT t) { return kind(t) == 2; }
inline double eps_of(DT t) { return t == DT::F32 ? kEps32 : kEps64; }

// np.promote_types over the five types.
inline DT promote(DT a, DT b) {
  if (a == b) return a;
  if (a == DT::B) return b;
  if (b == DT::B) return a;
  if (kind(a) == kind(b)) return kind(a) == 1 ? DT::I64 : DT::F64;
  return DT::F64;  // integer with float: float64 (float32 cannot hold every int32)
}
// The type a Python scalar of this kind gets when the array's kind is lower.
inline DT default_of(int k) { return k == 0 ? DT::B : k == 1 ? DT::I64 : DT::F64; }

// NEP 50: a weak (C++/Python) scalar takes the array's type unless its kind is higher.
inline DT result_of(DT a, bool a_weak, DT b, bool b_weak) {
  if (!a_weak && !b_weak) return promote(a, b);
  if (!a_weak) return kind(a) >= kind(b) ? a : default_of(kind(b));
  if (!b_weak) return kind(b) >= kind(a) ? b : default_of(kind(a));
  return promote(a, b);
}
inline DT float_result(DT t) { return is_f(t) ? t : t == DT::B ? DT::F32 : DT::F64; }  // tessera: bool -> float32
inline DT sum_result(DT t) { return is_f(t) ? t : DT::I64; }
inline DT mean_result(DT t) { return t == DT::F32 ? DT::F32 : DT::F64; }

template <class T>
constexpr DT dt_of() {
  if constexpr (std::is_same_v<T, bool>)
    return DT::B;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return DT::I32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return DT::I64;
  else if constexpr (std::is_same_v<T, float>)
    return DT::F32;
  else
    return DT::F64;
}
template <class T>
struct Tag {
  using type = T;
};
template <class F>
decltype(auto) with_type(DT t, F&& f) {
  switch (t) {
    case DT::B: return f(Tag<bool>{});
    case DT::I32: return f(Tag<std::int32_t>{});
    case DT::I64: return f(Tag<std::int64_t>{});
    case DT::F32: return f(Tag<float>{});
    default: return f(Tag<double>{});
  }
}

}  // namespace fuzz
