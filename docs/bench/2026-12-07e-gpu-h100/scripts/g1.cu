// tessera fused kernel: div log mul sqrt mul div add gt mul mul exp mul abs mul add div mul add mul add mul add mul add mul mul sub where mul mul exp mul mul sub gt mul mul exp mul abs mul add div mul add mul add mul add mul add mul mul sub where mul sub store mul sub mul sub mul sub store
// 1 element(s) per thread
#define KMAX_CONSTANTS 64
#define KMAX_ARGS 5

namespace std {
using int32_t = int;
using int64_t = long;
using uint64_t = unsigned long;
template <class T, class U> constexpr bool is_same_v = false;
template <class T> constexpr bool is_same_v<T, T> = true;
template <class T> constexpr bool is_integral_v = is_same_v<T, bool> || is_same_v<T, int> || is_same_v<T, long> ||
                                                  is_same_v<T, unsigned> || is_same_v<T, unsigned long>;
template <class T> constexpr bool is_floating_point_v = is_same_v<T, float> || is_same_v<T, double>;
template <class T> struct make_unsigned;
template <> struct make_unsigned<int> { using type = unsigned; };
template <> struct make_unsigned<long> { using type = unsigned long; };
template <class T> using make_unsigned_t = typename make_unsigned<T>::type;
}  // namespace std
#define KOKKOS_FORCEINLINE_FUNCTION __device__ __forceinline__
namespace tessera_math {
__device__ __forceinline__ double fabs(double x) { return ::fabs(x); }
__device__ __forceinline__ float fabs(float x) { return ::fabsf(x); }
__device__ __forceinline__ double pow(double x, double y) { return ::pow(x, y); }
__device__ __forceinline__ float pow(float x, float y) { return ::powf(x, y); }
__device__ __forceinline__ double fmod(double x, double y) { return ::fmod(x, y); }
__device__ __forceinline__ float fmod(float x, float y) { return ::fmodf(x, y); }
}  // namespace tessera_math
#define TESSERA_KOKKOS_MATH tessera_math
// Scalar semantics of every instruction, shared by all fused-kernel backends so that they can
// never disagree. Integers wrap as NumPy's do (computed unsigned: signed overflow is undefined in
// C++); floating max/min propagate NaN as np.maximum/np.minimum do.



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

struct Accessor { char* ptr; long origin; long stride[3]; };
struct Domain { long n[3]; long global_origin[3]; long global_stride[3]; };
union Value { bool b; int i32; long i64; float f32; double f64; };
struct KernelParams {
  Domain domain;
  Value constants[KMAX_CONSTANTS];
  void* block_partials;
  void* partials;
  long nblocks;
  long count;
  long chunks;
  long row_threads;
  long finish_lanes;
  Accessor args[KMAX_ARGS];
};
namespace el = tessera::detail::element;

extern "C" __global__ void __launch_bounds__(256) tessera_fused(const KernelParams p) {
  const long n1 = p.domain.n[1], n2 = p.domain.n[2], rows = p.domain.n[0] * p.domain.n[1];
  const long j = static_cast<long>(blockIdx.x) * 256 + threadIdx.x;
  
  if (j < n2) {
    {
      const long i0 = 0, i1 = 0;
      const double v0 = *(reinterpret_cast<const double*>(p.args[0].ptr) + (p.args[0].origin + j));
      const double v1 = *(reinterpret_cast<const double*>(p.args[0].ptr) + (p.args[0].origin + j));
      const double v2 = *(reinterpret_cast<const double*>(p.args[1].ptr) + (p.args[1].origin + j));
      const double v6 = *(reinterpret_cast<const double*>(p.args[2].ptr) + (p.args[2].origin + j));
      const double v9 = *(reinterpret_cast<const double*>(p.args[2].ptr) + (p.args[2].origin + j));
      const double v48 = *(reinterpret_cast<const double*>(p.args[1].ptr) + (p.args[1].origin + j));
      const double v50 = *(reinterpret_cast<const double*>(p.args[2].ptr) + (p.args[2].origin + j));
      const double v93 = *(reinterpret_cast<const double*>(p.args[1].ptr) + (p.args[1].origin + j));
      const double v98 = *(reinterpret_cast<const double*>(p.args[0].ptr) + (p.args[0].origin + j));
      const double v3 = static_cast<double>(el::divide(static_cast<double>(v1), static_cast<double>(v2)));
      const double v4 = log(v3);
      const double v5 = p.constants[0].f64;
      const double v7 = static_cast<double>(el::wrap_mul(static_cast<double>(v5), static_cast<double>(v6)));
      const double v8 = p.constants[1].f64;
      const double v10 = sqrt(v9);
      const double v11 = static_cast<double>(el::wrap_mul(static_cast<double>(v8), static_cast<double>(v10)));
      const double v12 = static_cast<double>(el::divide(static_cast<double>(v7), static_cast<double>(v11)));
      const double v13 = static_cast<double>(el::wrap_add(static_cast<double>(v4), static_cast<double>(v12)));
      const double v14 = p.constants[2].f64;
      const bool v15 = (static_cast<double>(v13) > static_cast<double>(v14));
      const double v16 = p.constants[3].f64;
      const double v17 = p.constants[4].f64;
      const double v18 = p.constants[5].f64;
      const double v19 = static_cast<double>(el::wrap_mul(static_cast<double>(v18), static_cast<double>(v13)));
      const double v20 = static_cast<double>(el::wrap_mul(static_cast<double>(v19), static_cast<double>(v13)));
      const double v21 = exp(v20);
      const double v22 = static_cast<double>(el::wrap_mul(static_cast<double>(v17), static_cast<double>(v21)));
      const double v23 = p.constants[6].f64;
      const double v24 = p.constants[7].f64;
      const double v25 = p.constants[8].f64;
      const double v26 = static_cast<double>(el::abs(static_cast<double>(v13)));
      const double v27 = static_cast<double>(el::wrap_mul(static_cast<double>(v25), static_cast<double>(v26)));
      const double v28 = static_cast<double>(el::wrap_add(static_cast<double>(v24), static_cast<double>(v27)));
      const double v29 = static_cast<double>(el::divide(static_cast<double>(v23), static_cast<double>(v28)));
      const double v30 = p.constants[9].f64;
      const double v31 = p.constants[10].f64;
      const double v32 = p.constants[11].f64;
      const double v33 = p.constants[12].f64;
      const double v34 = p.constants[13].f64;
      const double v35 = static_cast<double>(el::wrap_mul(static_cast<double>(v29), static_cast<double>(v34)));
      const double v36 = static_cast<double>(el::wrap_add(static_cast<double>(v33), static_cast<double>(v35)));
      const double v37 = static_cast<double>(el::wrap_mul(static_cast<double>(v29), static_cast<double>(v36)));
      const double v38 = static_cast<double>(el::wrap_add(static_cast<double>(v32), static_cast<double>(v37)));
      const double v39 = static_cast<double>(el::wrap_mul(static_cast<double>(v29), static_cast<double>(v38)));
      const double v40 = static_cast<double>(el::wrap_add(static_cast<double>(v31), static_cast<double>(v39)));
      const double v41 = static_cast<double>(el::wrap_mul(static_cast<double>(v29), static_cast<double>(v40)));
      const double v42 = static_cast<double>(el::wrap_add(static_cast<double>(v30), static_cast<double>(v41)));
      const double v43 = static_cast<double>(el::wrap_mul(static_cast<double>(v29), static_cast<double>(v42)));
      const double v44 = static_cast<double>(el::wrap_mul(static_cast<double>(v22), static_cast<double>(v43)));
      const double v45 = static_cast<double>(el::wrap_sub(static_cast<double>(v16), static_cast<double>(v44)));
      const double v46 = v15 ? static_cast<double>(v45) : static_cast<double>(v44);
      const double v47 = static_cast<double>(el::wrap_mul(static_cast<double>(v0), static_cast<double>(v46)));
      const double v49 = p.constants[14].f64;
      const double v51 = static_cast<double>(el::wrap_mul(static_cast<double>(v49), static_cast<double>(v50)));
      const double v52 = exp(v51);
      const double v53 = static_cast<double>(el::wrap_mul(static_cast<double>(v48), static_cast<double>(v52)));
      const double v54 = p.constants[15].f64;
      const double v55 = static_cast<double>(el::wrap_mul(static_cast<double>(v54), static_cast<double>(v10)));
      const double v56 = static_cast<double>(el::wrap_sub(static_cast<double>(v13), static_cast<double>(v55)));
      const double v57 = p.constants[16].f64;
      const bool v58 = (static_cast<double>(v56) > static_cast<double>(v57));
      const double v59 = p.constants[17].f64;
      const double v60 = p.constants[18].f64;
      const double v61 = p.constants[19].f64;
      const double v62 = static_cast<double>(el::wrap_mul(static_cast<double>(v61), static_cast<double>(v56)));
      const double v63 = static_cast<double>(el::wrap_mul(static_cast<double>(v62), static_cast<double>(v56)));
      const double v64 = exp(v63);
      const double v65 = static_cast<double>(el::wrap_mul(static_cast<double>(v60), static_cast<double>(v64)));
      const double v66 = p.constants[20].f64;
      const double v67 = p.constants[21].f64;
      const double v68 = p.constants[22].f64;
      const double v69 = static_cast<double>(el::abs(static_cast<double>(v56)));
      const double v70 = static_cast<double>(el::wrap_mul(static_cast<double>(v68), static_cast<double>(v69)));
      const double v71 = static_cast<double>(el::wrap_add(static_cast<double>(v67), static_cast<double>(v70)));
      const double v72 = static_cast<double>(el::divide(static_cast<double>(v66), static_cast<double>(v71)));
      const double v73 = p.constants[23].f64;
      const double v74 = p.constants[24].f64;
      const double v75 = p.constants[25].f64;
      const double v76 = p.constants[26].f64;
      const double v77 = p.constants[27].f64;
      const double v78 = static_cast<double>(el::wrap_mul(static_cast<double>(v72), static_cast<double>(v77)));
      const double v79 = static_cast<double>(el::wrap_add(static_cast<double>(v76), static_cast<double>(v78)));
      const double v80 = static_cast<double>(el::wrap_mul(static_cast<double>(v72), static_cast<double>(v79)));
      const double v81 = static_cast<double>(el::wrap_add(static_cast<double>(v75), static_cast<double>(v80)));
      const double v82 = static_cast<double>(el::wrap_mul(static_cast<double>(v72), static_cast<double>(v81)));
      const double v83 = static_cast<double>(el::wrap_add(static_cast<double>(v74), static_cast<double>(v82)));
      const double v84 = static_cast<double>(el::wrap_mul(static_cast<double>(v72), static_cast<double>(v83)));
      const double v85 = static_cast<double>(el::wrap_add(static_cast<double>(v73), static_cast<double>(v84)));
      const double v86 = static_cast<double>(el::wrap_mul(static_cast<double>(v72), static_cast<double>(v85)));
      const double v87 = static_cast<double>(el::wrap_mul(static_cast<double>(v65), static_cast<double>(v86)));
      const double v88 = static_cast<double>(el::wrap_sub(static_cast<double>(v59), static_cast<double>(v87)));
      const double v89 = v58 ? static_cast<double>(v88) : static_cast<double>(v87);
      const double v90 = static_cast<double>(el::wrap_mul(static_cast<double>(v53), static_cast<double>(v89)));
      const double v91 = static_cast<double>(el::wrap_sub(static_cast<double>(v47), static_cast<double>(v90)));
      *(reinterpret_cast<double*>(p.args[3].ptr) + (p.args[3].origin + j)) = v91;
      const double v94 = static_cast<double>(el::wrap_mul(static_cast<double>(v93), static_cast<double>(v52)));
      const double v95 = p.constants[28].f64;
      const double v96 = static_cast<double>(el::wrap_sub(static_cast<double>(v95), static_cast<double>(v89)));
      const double v97 = static_cast<double>(el::wrap_mul(static_cast<double>(v94), static_cast<double>(v96)));
      const double v99 = p.constants[29].f64;
      const double v100 = static_cast<double>(el::wrap_sub(static_cast<double>(v99), static_cast<double>(v46)));
      const double v101 = static_cast<double>(el::wrap_mul(static_cast<double>(v98), static_cast<double>(v100)));
      const double v102 = static_cast<double>(el::wrap_sub(static_cast<double>(v97), static_cast<double>(v101)));
      *(reinterpret_cast<double*>(p.args[4].ptr) + (p.args[4].origin + j)) = v102;
    }
  }
}
