// tessera fused kernel: add add add add add add add add add add add add add add add add add add add add add add add add
// add add mul store marching through planes in tiles of 64 x 8, views staged
#define KMAX_CONSTANTS 64
#define KMAX_ARGS 28

namespace std {
using int32_t = int;
using int64_t = long;
using uint64_t = unsigned long;
template <class T, class U>
constexpr bool is_same_v = false;
template <class T>
constexpr bool is_same_v<T, T> = true;
template <class T>
constexpr bool is_integral_v = is_same_v<T, bool> || is_same_v<T, int> || is_same_v<T, long> ||
                               is_same_v<T, unsigned> || is_same_v<T, unsigned long>;
template <class T>
constexpr bool is_floating_point_v = is_same_v<T, float> || is_same_v<T, double>;
template <class T>
struct make_unsigned;
template <>
struct make_unsigned<int> {
  using type = unsigned;
};
template <>
struct make_unsigned<long> {
  using type = unsigned long;
};
template <class T>
using make_unsigned_t = typename make_unsigned<T>::type;
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

struct Accessor {
  char* ptr;
  long origin;
  long stride[3];
};
struct Domain {
  long n[3];
  long global_origin[3];
  long global_stride[3];
};
union Value {
  bool b;
  int i32;
  long i64;
  float f32;
  double f64;
};
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

extern "C" __global__ void __launch_bounds__(256, 6) tessera_fused(const KernelParams p) {
  const long n0 = p.domain.n[0], n1 = p.domain.n[1], n2 = p.domain.n[2];
  const long tiles = (n2 + 63) / 64;
  const long tile1 = blockIdx.x / tiles, tile2 = blockIdx.x - tile1 * tiles;
  const long t1 = tile1 * 8, t2 = tile2 * 64;
  const long i1 = t1 + threadIdx.x / 32 < n1 ? t1 + threadIdx.x / 32 : n1 - 1;
  const long jr = t2 + threadIdx.x % 32, j = jr < n2 ? jr : n2 - 1;
  const bool inside = t1 + threadIdx.x / 32 < n1 && jr < n2;
  const long band = (n0 + gridDim.y - 1) / gridDim.y, first = blockIdx.y * band;
  const long last = first + band < n0 ? first + band : n0;
  const long j_1 = jr + 32 < n2 ? jr + 32 : n2 - 1;
  double c34_0 = 0;
  double c34_1 = 0;
  double c52_0 = 0;
  double c52_1 = 0;
  __shared__ double tile0[2][660];
  if (first >= last) return;  // the same for the whole block
  const long rows0 = (n1 - t1 < 8 ? n1 - t1 : 8) + 2, columns0 = (n2 - t2 < 64 ? n2 - t2 : 64) + 2;
  const int o0_0 =
      threadIdx.x + 0 < 660 && (threadIdx.x + 0) / 66 < rows0 && (threadIdx.x + 0) % 66 < columns0
          ? static_cast<int>((t1 + (threadIdx.x + 0) / 66) * p.args[18].stride[1] + t2 + (threadIdx.x + 0) % 66)
          : -1;
  const int o0_1 =
      threadIdx.x + 256 < 660 && (threadIdx.x + 256) / 66 < rows0 && (threadIdx.x + 256) % 66 < columns0
          ? static_cast<int>((t1 + (threadIdx.x + 256) / 66) * p.args[18].stride[1] + t2 + (threadIdx.x + 256) % 66)
          : -1;
  const int o0_2 =
      threadIdx.x + 512 < 660 && (threadIdx.x + 512) / 66 < rows0 && (threadIdx.x + 512) % 66 < columns0
          ? static_cast<int>((t1 + (threadIdx.x + 512) / 66) * p.args[18].stride[1] + t2 + (threadIdx.x + 512) % 66)
          : -1;
  int buf = 0;
  {
    const double* const plane0 =
        reinterpret_cast<const double*>(p.args[18].ptr) + p.args[18].origin + first * p.args[18].stride[0];
    const double pf0_0 = o0_0 >= 0 ? plane0[o0_0] : double(0);
    const double pf0_1 = o0_1 >= 0 ? plane0[o0_1] : double(0);
    const double pf0_2 = o0_2 >= 0 ? plane0[o0_2] : double(0);
    tile0[0][threadIdx.x + 0] = pf0_0;
    tile0[0][threadIdx.x + 256] = pf0_1;
    if (threadIdx.x + 512 < 660) tile0[0][threadIdx.x + 512] = pf0_2;
  }
  __syncthreads();
  {
    const long i0 = first;
    const long r0 = i0 * p.args[0].stride[0] + i1 * p.args[0].stride[1];
    const double v1_0 = *(reinterpret_cast<const double*>(p.args[0].ptr) + (p.args[0].origin + r0 + j));
    const double v1_1 = *(reinterpret_cast<const double*>(p.args[0].ptr) + (p.args[0].origin + r0 + j_1));
    const double v2_0 = *(reinterpret_cast<const double*>(p.args[0].ptr) + (p.args[0].origin + r0 + j) + 1);
    const double v2_1 = *(reinterpret_cast<const double*>(p.args[0].ptr) + (p.args[0].origin + r0 + j_1) + 1);
    const double v3_0 = static_cast<double>(el::wrap_add(static_cast<double>(v1_0), static_cast<double>(v2_0)));
    const double v3_1 = static_cast<double>(el::wrap_add(static_cast<double>(v1_1), static_cast<double>(v2_1)));
    const double v4_0 = *(reinterpret_cast<const double*>(p.args[0].ptr) + (p.args[0].origin + r0 + j) + 2);
    const double v4_1 = *(reinterpret_cast<const double*>(p.args[0].ptr) + (p.args[0].origin + r0 + j_1) + 2);
    const double v5_0 = static_cast<double>(el::wrap_add(static_cast<double>(v3_0), static_cast<double>(v4_0)));
    const double v5_1 = static_cast<double>(el::wrap_add(static_cast<double>(v3_1), static_cast<double>(v4_1)));
    const double v6_0 = *(reinterpret_cast<const double*>(p.args[3].ptr) + (p.args[3].origin + r0 + j));
    const double v6_1 = *(reinterpret_cast<const double*>(p.args[3].ptr) + (p.args[3].origin + r0 + j_1));
    const double v7_0 = *(reinterpret_cast<const double*>(p.args[3].ptr) + (p.args[3].origin + r0 + j) + 1);
    const double v7_1 = *(reinterpret_cast<const double*>(p.args[3].ptr) + (p.args[3].origin + r0 + j_1) + 1);
    const double v8_0 = static_cast<double>(el::wrap_add(static_cast<double>(v6_0), static_cast<double>(v7_0)));
    const double v8_1 = static_cast<double>(el::wrap_add(static_cast<double>(v6_1), static_cast<double>(v7_1)));
    const double v9_0 = *(reinterpret_cast<const double*>(p.args[3].ptr) + (p.args[3].origin + r0 + j) + 2);
    const double v9_1 = *(reinterpret_cast<const double*>(p.args[3].ptr) + (p.args[3].origin + r0 + j_1) + 2);
    const double v10_0 = static_cast<double>(el::wrap_add(static_cast<double>(v8_0), static_cast<double>(v9_0)));
    const double v10_1 = static_cast<double>(el::wrap_add(static_cast<double>(v8_1), static_cast<double>(v9_1)));
    const double v11_0 = static_cast<double>(el::wrap_add(static_cast<double>(v5_0), static_cast<double>(v10_0)));
    const double v11_1 = static_cast<double>(el::wrap_add(static_cast<double>(v5_1), static_cast<double>(v10_1)));
    const double v12_0 = *(reinterpret_cast<const double*>(p.args[6].ptr) + (p.args[6].origin + r0 + j));
    const double v12_1 = *(reinterpret_cast<const double*>(p.args[6].ptr) + (p.args[6].origin + r0 + j_1));
    const double v13_0 = *(reinterpret_cast<const double*>(p.args[6].ptr) + (p.args[6].origin + r0 + j) + 1);
    const double v13_1 = *(reinterpret_cast<const double*>(p.args[6].ptr) + (p.args[6].origin + r0 + j_1) + 1);
    const double v14_0 = static_cast<double>(el::wrap_add(static_cast<double>(v12_0), static_cast<double>(v13_0)));
    const double v14_1 = static_cast<double>(el::wrap_add(static_cast<double>(v12_1), static_cast<double>(v13_1)));
    const double v15_0 = *(reinterpret_cast<const double*>(p.args[6].ptr) + (p.args[6].origin + r0 + j) + 2);
    const double v15_1 = *(reinterpret_cast<const double*>(p.args[6].ptr) + (p.args[6].origin + r0 + j_1) + 2);
    const double v16_0 = static_cast<double>(el::wrap_add(static_cast<double>(v14_0), static_cast<double>(v15_0)));
    const double v16_1 = static_cast<double>(el::wrap_add(static_cast<double>(v14_1), static_cast<double>(v15_1)));
    const double v17_0 = static_cast<double>(el::wrap_add(static_cast<double>(v11_0), static_cast<double>(v16_0)));
    const double v17_1 = static_cast<double>(el::wrap_add(static_cast<double>(v11_1), static_cast<double>(v16_1)));
    const double v18_0 = *(reinterpret_cast<const double*>(p.args[9].ptr) + (p.args[9].origin + r0 + j));
    const double v18_1 = *(reinterpret_cast<const double*>(p.args[9].ptr) + (p.args[9].origin + r0 + j_1));
    const double v19_0 = *(reinterpret_cast<const double*>(p.args[9].ptr) + (p.args[9].origin + r0 + j) + 1);
    const double v19_1 = *(reinterpret_cast<const double*>(p.args[9].ptr) + (p.args[9].origin + r0 + j_1) + 1);
    const double v20_0 = static_cast<double>(el::wrap_add(static_cast<double>(v18_0), static_cast<double>(v19_0)));
    const double v20_1 = static_cast<double>(el::wrap_add(static_cast<double>(v18_1), static_cast<double>(v19_1)));
    const double v21_0 = *(reinterpret_cast<const double*>(p.args[9].ptr) + (p.args[9].origin + r0 + j) + 2);
    const double v21_1 = *(reinterpret_cast<const double*>(p.args[9].ptr) + (p.args[9].origin + r0 + j_1) + 2);
    const double v22_0 = static_cast<double>(el::wrap_add(static_cast<double>(v20_0), static_cast<double>(v21_0)));
    const double v22_1 = static_cast<double>(el::wrap_add(static_cast<double>(v20_1), static_cast<double>(v21_1)));
    const double v23_0 = *(reinterpret_cast<const double*>(p.args[12].ptr) + (p.args[12].origin + r0 + j));
    const double v23_1 = *(reinterpret_cast<const double*>(p.args[12].ptr) + (p.args[12].origin + r0 + j_1));
    const double v24_0 = *(reinterpret_cast<const double*>(p.args[12].ptr) + (p.args[12].origin + r0 + j) + 1);
    const double v24_1 = *(reinterpret_cast<const double*>(p.args[12].ptr) + (p.args[12].origin + r0 + j_1) + 1);
    const double v25_0 = static_cast<double>(el::wrap_add(static_cast<double>(v23_0), static_cast<double>(v24_0)));
    const double v25_1 = static_cast<double>(el::wrap_add(static_cast<double>(v23_1), static_cast<double>(v24_1)));
    const double v26_0 = *(reinterpret_cast<const double*>(p.args[12].ptr) + (p.args[12].origin + r0 + j) + 2);
    const double v26_1 = *(reinterpret_cast<const double*>(p.args[12].ptr) + (p.args[12].origin + r0 + j_1) + 2);
    const double v27_0 = static_cast<double>(el::wrap_add(static_cast<double>(v25_0), static_cast<double>(v26_0)));
    const double v27_1 = static_cast<double>(el::wrap_add(static_cast<double>(v25_1), static_cast<double>(v26_1)));
    const double v28_0 = static_cast<double>(el::wrap_add(static_cast<double>(v22_0), static_cast<double>(v27_0)));
    const double v28_1 = static_cast<double>(el::wrap_add(static_cast<double>(v22_1), static_cast<double>(v27_1)));
    const double v29_0 = *(reinterpret_cast<const double*>(p.args[15].ptr) + (p.args[15].origin + r0 + j));
    const double v29_1 = *(reinterpret_cast<const double*>(p.args[15].ptr) + (p.args[15].origin + r0 + j_1));
    const double v30_0 = *(reinterpret_cast<const double*>(p.args[15].ptr) + (p.args[15].origin + r0 + j) + 1);
    const double v30_1 = *(reinterpret_cast<const double*>(p.args[15].ptr) + (p.args[15].origin + r0 + j_1) + 1);
    const double v31_0 = static_cast<double>(el::wrap_add(static_cast<double>(v29_0), static_cast<double>(v30_0)));
    const double v31_1 = static_cast<double>(el::wrap_add(static_cast<double>(v29_1), static_cast<double>(v30_1)));
    const double v32_0 = *(reinterpret_cast<const double*>(p.args[15].ptr) + (p.args[15].origin + r0 + j) + 2);
    const double v32_1 = *(reinterpret_cast<const double*>(p.args[15].ptr) + (p.args[15].origin + r0 + j_1) + 2);
    const double v33_0 = static_cast<double>(el::wrap_add(static_cast<double>(v31_0), static_cast<double>(v32_0)));
    const double v33_1 = static_cast<double>(el::wrap_add(static_cast<double>(v31_1), static_cast<double>(v32_1)));
    const double v34_0 = static_cast<double>(el::wrap_add(static_cast<double>(v28_0), static_cast<double>(v33_0)));
    const double v34_1 = static_cast<double>(el::wrap_add(static_cast<double>(v28_1), static_cast<double>(v33_1)));
    c34_0 = v17_0;
    c34_1 = v17_1;
    c52_0 = v34_0;
    c52_1 = v34_1;
  }
  for (long i0 = first; i0 < last; ++i0) {
    const long r0 = i0 * p.args[0].stride[0] + i1 * p.args[0].stride[1];
    const bool more = i0 + 1 < last;
    double pf0_0;
    double pf0_1;
    double pf0_2;
    if (more) {
      const double* const plane0 =
          reinterpret_cast<const double*>(p.args[18].ptr) + p.args[18].origin + (i0 + 1) * p.args[18].stride[0];
      pf0_0 = o0_0 >= 0 ? plane0[o0_0] : double(0);
      pf0_1 = o0_1 >= 0 ? plane0[o0_1] : double(0);
      pf0_2 = o0_2 >= 0 ? plane0[o0_2] : double(0);
    }
    const double* const tl0 = &tile0[buf][threadIdx.x / 32 * 66 + threadIdx.x % 32];
    const double v0_0 = p.constants[0].f64;
    const double v0_1 = p.constants[0].f64;
    const double v17_0 = c34_0;
    const double v17_1 = c34_1;
    const double v34_0 = c52_0;
    const double v34_1 = c52_1;
    const double v35_0 = static_cast<double>(el::wrap_add(static_cast<double>(v17_0), static_cast<double>(v34_0)));
    const double v35_1 = static_cast<double>(el::wrap_add(static_cast<double>(v17_1), static_cast<double>(v34_1)));
    const double v36_0 = tl0[0];
    const double v36_1 = tl0[32];
    const double v37_0 = tl0[1];
    const double v37_1 = tl0[33];
    const double v38_0 = static_cast<double>(el::wrap_add(static_cast<double>(v36_0), static_cast<double>(v37_0)));
    const double v38_1 = static_cast<double>(el::wrap_add(static_cast<double>(v36_1), static_cast<double>(v37_1)));
    const double v39_0 = tl0[2];
    const double v39_1 = tl0[34];
    const double v40_0 = static_cast<double>(el::wrap_add(static_cast<double>(v38_0), static_cast<double>(v39_0)));
    const double v40_1 = static_cast<double>(el::wrap_add(static_cast<double>(v38_1), static_cast<double>(v39_1)));
    const double v41_0 = tl0[66];
    const double v41_1 = tl0[98];
    const double v42_0 = tl0[67];
    const double v42_1 = tl0[99];
    const double v43_0 = static_cast<double>(el::wrap_add(static_cast<double>(v41_0), static_cast<double>(v42_0)));
    const double v43_1 = static_cast<double>(el::wrap_add(static_cast<double>(v41_1), static_cast<double>(v42_1)));
    const double v44_0 = tl0[68];
    const double v44_1 = tl0[100];
    const double v45_0 = static_cast<double>(el::wrap_add(static_cast<double>(v43_0), static_cast<double>(v44_0)));
    const double v45_1 = static_cast<double>(el::wrap_add(static_cast<double>(v43_1), static_cast<double>(v44_1)));
    const double v46_0 = static_cast<double>(el::wrap_add(static_cast<double>(v40_0), static_cast<double>(v45_0)));
    const double v46_1 = static_cast<double>(el::wrap_add(static_cast<double>(v40_1), static_cast<double>(v45_1)));
    const double v47_0 = tl0[132];
    const double v47_1 = tl0[164];
    const double v48_0 = tl0[133];
    const double v48_1 = tl0[165];
    const double v49_0 = static_cast<double>(el::wrap_add(static_cast<double>(v47_0), static_cast<double>(v48_0)));
    const double v49_1 = static_cast<double>(el::wrap_add(static_cast<double>(v47_1), static_cast<double>(v48_1)));
    const double v50_0 = tl0[134];
    const double v50_1 = tl0[166];
    const double v51_0 = static_cast<double>(el::wrap_add(static_cast<double>(v49_0), static_cast<double>(v50_0)));
    const double v51_1 = static_cast<double>(el::wrap_add(static_cast<double>(v49_1), static_cast<double>(v50_1)));
    const double v52_0 = static_cast<double>(el::wrap_add(static_cast<double>(v46_0), static_cast<double>(v51_0)));
    const double v52_1 = static_cast<double>(el::wrap_add(static_cast<double>(v46_1), static_cast<double>(v51_1)));
    const double v53_0 = static_cast<double>(el::wrap_add(static_cast<double>(v35_0), static_cast<double>(v52_0)));
    const double v53_1 = static_cast<double>(el::wrap_add(static_cast<double>(v35_1), static_cast<double>(v52_1)));
    const double v54_0 = static_cast<double>(el::wrap_mul(static_cast<double>(v0_0), static_cast<double>(v53_0)));
    const double v54_1 = static_cast<double>(el::wrap_mul(static_cast<double>(v0_1), static_cast<double>(v53_1)));
    if (inside) *(reinterpret_cast<double*>(p.args[27].ptr) + (p.args[27].origin + r0 + j)) = v54_0;
    if (inside && jr + 32 < n2) *(reinterpret_cast<double*>(p.args[27].ptr) + (p.args[27].origin + r0 + j_1)) = v54_1;
    c34_0 = v34_0;
    c34_1 = v34_1;
    c52_0 = v52_0;
    c52_1 = v52_1;
    if (more) {
      tile0[buf ^ 1][threadIdx.x + 0] = pf0_0;
      tile0[buf ^ 1][threadIdx.x + 256] = pf0_1;
      if (threadIdx.x + 512 < 660) tile0[buf ^ 1][threadIdx.x + 512] = pf0_2;
    }
    __syncthreads();
    buf ^= 1;
  }
}
