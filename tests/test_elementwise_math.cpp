// floor, ceil, tan, sign, square, isnan, isfinite, arctan2 and clip against serial host
// references, with fusion on and off: every element type each takes, uneven 1-D to 3-D shapes,
// scalars on either side, NaN, infinities and signed zeros, and NumPy's result types.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "support.hpp"

namespace {

const std::vector<ts::Shape> kShapes = {{10}, {7, 5}, {5, 3, 7}};

template <class T>
using value_t = typename T::value_type;

template <class R, class A, class F>
std::vector<R> host_map(const std::vector<A>& a, F f) {
  std::vector<R> out;
  for (const A& x : a) out.push_back(static_cast<R>(f(x)));
  return out;
}

template <class R>
double tol() {
  return std::is_same_v<R, float> ? 2e-6 : 1e-12;
}

// np.sign: -1, 0 or 1; NaN stays NaN; both zeros give +0.
template <class T>
T host_sign(T x) {
  if (x != x) return x;
  return x > T(0) ? T(1) : x < T(0) ? T(-1) : T(0);
}

// close() that also requires zeros to have the reference's sign (NaN matches NaN).
template <class T>
::testing::AssertionResult same_values(const std::vector<T>& got, const std::vector<T>& want, double rtol = 0.0) {
  ::testing::AssertionResult r = close(got, want, rtol);
  if (!r) return r;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (want[i] == T(0) && std::signbit(got[i]) != std::signbit(want[i]))
      return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << ", want " << want[i];
  return ::testing::AssertionSuccess();
}

template <class T>
class ElementwiseMath : public ::testing::Test {};
using AllTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(ElementwiseMath, AllTypes);

}  // namespace

TYPED_TEST(ElementwiseMath, FloorCeilTan) {
  using T = TypeParam;
  using R = std::conditional_t<std::is_same_v<T, bool>, float, std::conditional_t<std::is_integral_v<T>, double, T>>;
  fused_and_unfused([] {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      const auto h = test_values<T>(volume_of(shape), 3);
      auto a = ts::from_host<T>(shape, h);
      auto f = ts::floor(a);
      auto c = ts::ceil(a);
      auto t = ts::tan(a);
      static_assert(std::is_same_v<decltype(f), ts::Array<R>>, "integers floor to float64, bool to float32");
      static_assert(std::is_same_v<decltype(c), ts::Array<R>>);
      static_assert(std::is_same_v<decltype(t), ts::Array<R>>);
      EXPECT_EQ(f.shape(), shape);
      EXPECT_TRUE(same_values(f.to_host(), host_map<R>(h, [](T x) { return std::floor(static_cast<R>(x)); })));
      EXPECT_TRUE(same_values(c.to_host(), host_map<R>(h, [](T x) { return std::ceil(static_cast<R>(x)); })));
      EXPECT_TRUE(close(t.to_host(), host_map<R>(h, [](T x) { return std::tan(static_cast<R>(x)); }), tol<R>()));
    }
  });
}

TYPED_TEST(ElementwiseMath, SignSquare) {
  using T = TypeParam;
  using S = std::conditional_t<std::is_same_v<T, bool>, std::int32_t, T>;  // NumPy: bool squares in int8
  fused_and_unfused([] {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      const auto h = test_values<T>(volume_of(shape), 4);
      auto a = ts::from_host<T>(shape, h);
      auto sq = ts::square(a);
      static_assert(std::is_same_v<decltype(sq), ts::Array<S>>);
      EXPECT_TRUE(same_values(sq.to_host(), host_map<S>(h, [](T x) { return static_cast<S>(x) * static_cast<S>(x); })));
      if constexpr (!std::is_same_v<T, bool>) {  // sign(bool) does not compile (NumPy: TypeError)
        auto sg = ts::sign(a);
        static_assert(std::is_same_v<decltype(sg), ts::Array<T>>);
        EXPECT_TRUE(same_values(sg.to_host(), host_map<T>(h, [](T x) { return host_sign(x); })));
      }
    }
  });
}

TYPED_TEST(ElementwiseMath, IsNanIsFinite) {
  using T = TypeParam;
  fused_and_unfused([] {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      auto h = test_values<T>(volume_of(shape), 5);
      if constexpr (std::is_floating_point_v<T>) {  // NaN, +inf and -inf at uneven places
        for (std::size_t i = 0; i < h.size(); i += 3) h[i] = std::numeric_limits<T>::quiet_NaN();
        for (std::size_t i = 1; i < h.size(); i += 4) h[i] = std::numeric_limits<T>::infinity();
        for (std::size_t i = 2; i < h.size(); i += 7) h[i] = -std::numeric_limits<T>::infinity();
      }
      auto a = ts::from_host<T>(shape, h);
      auto nan = ts::isnan(a);
      auto finite = ts::isfinite(a);
      static_assert(std::is_same_v<decltype(nan), ts::Array<bool>>);
      static_assert(std::is_same_v<decltype(finite), ts::Array<bool>>);
      std::vector<bool> want_nan, want_finite;
      for (T x : h) {
        want_nan.push_back(std::isnan(static_cast<double>(x)));
        want_finite.push_back(std::isfinite(static_cast<double>(x)));
      }
      EXPECT_EQ(nan.to_host(), want_nan);
      EXPECT_EQ(finite.to_host(), want_finite);
      // A 0-d operand too: max propagates the NaN of element 0.
      EXPECT_EQ(ts::isnan(ts::max(a)).item(), std::is_floating_point_v<T>);
    }
  });
}

TYPED_TEST(ElementwiseMath, Arctan2WithArraysAndScalars) {
  using T = TypeParam;
  fused_and_unfused([] {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      const std::int64_t n = volume_of(shape);
      const auto hy = test_values<T>(n, 6), hx = test_values<T>(n, 7);
      auto y = ts::from_host<T>(shape, hy);
      auto x = ts::from_host<T>(shape, hx);
      auto both = ts::arctan2(y, x);
      auto by_int = ts::arctan2(y, 2);  // a C++ int takes an int array's type; bool becomes int64
      auto of_float = ts::arctan2(1.5, x);
      using R = value_t<decltype(both)>;
      using RI = value_t<decltype(by_int)>;
      using RF = value_t<decltype(of_float)>;
      static_assert(std::is_same_v<R, std::conditional_t<std::is_same_v<T, bool>, float,
                                                         std::conditional_t<std::is_integral_v<T>, double, T>>>);
      static_assert(std::is_same_v<RI, std::conditional_t<std::is_same_v<T, float>, float, double>>);
      static_assert(std::is_same_v<RF, RI>);
      std::vector<R> want;
      std::vector<RI> want_int;
      std::vector<RF> want_float;
      for (std::int64_t i = 0; i < n; ++i) {
        want.push_back(std::atan2(static_cast<R>(hy[i]), static_cast<R>(hx[i])));
        want_int.push_back(std::atan2(static_cast<RI>(hy[i]), RI(2)));
        want_float.push_back(std::atan2(RF(1.5), static_cast<RF>(hx[i])));
      }
      EXPECT_TRUE(close(both.to_host(), want, tol<R>()));
      EXPECT_TRUE(close(by_int.to_host(), want_int, tol<RI>()));
      EXPECT_TRUE(close(of_float.to_host(), want_float, tol<RF>()));
    }
  });
}

TYPED_TEST(ElementwiseMath, ClipWithArraysAndScalars) {
  using T = TypeParam;
  fused_and_unfused([] {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      const std::int64_t n = volume_of(shape);
      const auto h = test_values<T>(n, 8), hlo = test_values<T>(n, 9), hhi = test_values<T>(n, 10);
      auto a = ts::from_host<T>(shape, h);
      auto lo = ts::from_host<T>(shape, hlo);
      auto hi = ts::from_host<T>(shape, hhi);
      auto arrays = ts::clip(a, lo, hi);  // where lo > hi the result is hi, as NumPy
      auto scalars = ts::clip(a, false, true);
      static_assert(std::is_same_v<decltype(arrays), ts::Array<T>>);
      static_assert(std::is_same_v<decltype(scalars), ts::Array<T>>);
      std::vector<T> want, want_scalars;
      for (std::int64_t i = 0; i < n; ++i) {
        want.push_back(std::min(std::max(h[i], hlo[i]), hhi[i]));
        want_scalars.push_back(std::min(std::max(h[i], T(false)), T(true)));
      }
      EXPECT_TRUE(same_values(arrays.to_host(), want));
      EXPECT_TRUE(same_values(scalars.to_host(), want_scalars));
      if constexpr (!std::is_same_v<T, bool>) {
        auto ints = ts::clip(a, -2, 3);
        auto mixed = ts::clip(a, lo, 2.5);  // a float scalar makes integers float64, as NumPy
        using M = value_t<decltype(mixed)>;
        static_assert(std::is_same_v<decltype(ints), ts::Array<T>>);
        static_assert(std::is_same_v<M, std::conditional_t<std::is_integral_v<T>, double, T>>);
        std::vector<T> want_ints;
        std::vector<M> want_mixed;
        for (std::int64_t i = 0; i < n; ++i) {
          want_ints.push_back(std::min(std::max(h[i], T(-2)), T(3)));
          want_mixed.push_back(std::min(std::max(static_cast<M>(h[i]), static_cast<M>(hlo[i])), M(2.5)));
        }
        EXPECT_TRUE(same_values(ints.to_host(), want_ints));
        EXPECT_TRUE(same_values(mixed.to_host(), want_mixed));
      }
    }
  });
}

TEST(ElementwiseMathSpecial, FloatSpecialValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> h = {nan, inf, -inf, -0.0, 0.0, 0.5, -0.5, -2.5, 1e300, -1e-300};
  const std::vector<double> hx = {1.0, -inf, inf, -1.0, -0.0, nan, -2.0, 0.0, -0.0, inf};
  fused_and_unfused([&] {
    auto a = ts::from_host<double>({10}, h);
    auto x = ts::from_host<double>({10}, hx);
    EXPECT_TRUE(same_values((-a).to_host(), host_map<double>(h, [](double v) { return -v; })));  // -(0.0) is -0.0
    EXPECT_TRUE(same_values(ts::floor(a).to_host(), host_map<double>(h, [](double v) { return std::floor(v); })));
    EXPECT_TRUE(same_values(ts::ceil(a).to_host(), host_map<double>(h, [](double v) { return std::ceil(v); })));
    EXPECT_TRUE(same_values(ts::tan(a).to_host(), host_map<double>(h, [](double v) { return std::tan(v); }), 1e-12));
    EXPECT_TRUE(same_values(ts::sign(a).to_host(), host_map<double>(h, [](double v) { return host_sign(v); })));
    EXPECT_TRUE(same_values(ts::square(a).to_host(), host_map<double>(h, [](double v) { return v * v; })));
    std::vector<double> want_atan2;  // signed zeros pick the quadrant: atan2(0, -0) is pi
    for (std::size_t i = 0; i < h.size(); ++i) want_atan2.push_back(std::atan2(h[i], hx[i]));
    EXPECT_TRUE(same_values(ts::arctan2(a, x).to_host(), want_atan2, 1e-12));
    // NaN passes through clip, whichever bound it meets.
    std::vector<double> want_clip;
    for (double v : h) want_clip.push_back(std::isnan(v) ? v : std::min(std::max(v, -1.0), 0.25));
    EXPECT_TRUE(same_values(ts::clip(a, -1.0, 0.25).to_host(), want_clip));
    EXPECT_TRUE(std::isnan(ts::clip(x, -1.0, 0.25).to_host()[5]));
  });
  // float32: the same functions in single precision.
  fused_and_unfused([&] {
    std::vector<float> f(h.begin(), h.end());
    auto a = ts::from_host<float>({10}, f);
    EXPECT_TRUE(same_values((-a).to_host(), host_map<float>(f, [](float v) { return -v; })));
    EXPECT_TRUE(same_values(ts::floor(a).to_host(), host_map<float>(f, [](float v) { return std::floor(v); })));
    EXPECT_TRUE(same_values(ts::ceil(a).to_host(), host_map<float>(f, [](float v) { return std::ceil(v); })));
    EXPECT_TRUE(same_values(ts::sign(a).to_host(), host_map<float>(f, [](float v) { return host_sign(v); })));
    EXPECT_TRUE(same_values(ts::square(a).to_host(), host_map<float>(f, [](float v) { return v * v; })));
  });
}

TEST(ElementwiseMathSpecial, IntegerSquareWrapsAndSignOfExtremes) {
  const std::int32_t mn = std::numeric_limits<std::int32_t>::min(), mx = std::numeric_limits<std::int32_t>::max();
  const std::vector<std::int32_t> h = {mn, mx, 46341, -46341, 65536, -1, 0};
  fused_and_unfused([&] {
    auto a = ts::from_host<std::int32_t>({7}, h);
    std::vector<std::int32_t> want_square, want_sign;
    for (std::int32_t v : h) {
      const auto u = static_cast<std::uint32_t>(v);
      want_square.push_back(static_cast<std::int32_t>(u * u));  // NumPy wraps around
      want_sign.push_back(host_sign(v));
    }
    EXPECT_EQ(ts::square(a).to_host(), want_square);
    EXPECT_EQ(ts::sign(a).to_host(), want_sign);
  });
}

TEST(ElementwiseMathSpecial, MixedTypesPromoteAsNumPy) {
  const ts::Shape shape{5, 3, 7};
  const std::int64_t n = volume_of(shape);
  const auto hi = test_values<std::int32_t>(n, 11);
  const auto hf = test_values<float>(n, 12);
  fused_and_unfused([&] {
    auto i = ts::from_host<std::int32_t>(shape, hi);
    auto f = ts::from_host<float>(shape, hf);
    auto angle = ts::arctan2(i, f);  // int32 with float32: float64
    auto bounded = ts::clip(f, i, 3);
    static_assert(std::is_same_v<decltype(angle), ts::Array<double>>);
    static_assert(std::is_same_v<decltype(bounded), ts::Array<double>>);
    std::vector<double> want_angle, want_bounded;
    for (std::int64_t k = 0; k < n; ++k) {
      want_angle.push_back(std::atan2(static_cast<double>(hi[k]), static_cast<double>(hf[k])));
      want_bounded.push_back(std::min(std::max(static_cast<double>(hf[k]), static_cast<double>(hi[k])), 3.0));
    }
    EXPECT_TRUE(close(angle.to_host(), want_angle));
    EXPECT_TRUE(same_values(bounded.to_host(), want_bounded));
  });
}

// The new instructions in one fused kernel (fusion on) or one after the other (off), over views.
TEST(ElementwiseMathSpecial, LongExpressionOverViews) {
  const ts::Shape shape{7, 5};
  const auto h = test_values<double>(35, 13);
  fused_and_unfused([&] {
    auto a = ts::from_host<double>(shape, h);
    auto left = a(ts::all, ts::slice(0, -1)), right = a(ts::all, ts::slice(1, ts::end));
    auto e = ts::clip(ts::square(ts::floor(left)) - ts::arctan2(right, ts::ceil(left)), -3.0, 9.0) *
                 ts::sign(ts::tan(right)) +
             ts::where(ts::isfinite(left / right), 1.0, -1.0);
    std::vector<double> want;
    for (int r = 0; r < 7; ++r)
      for (int c = 0; c < 4; ++c) {
        const double x = h[r * 5 + c], y = h[r * 5 + c + 1];
        const double core = std::min(std::max(std::floor(x) * std::floor(x) - std::atan2(y, std::ceil(x)), -3.0), 9.0);
        want.push_back(core * host_sign(std::tan(y)) + (std::isfinite(x / y) ? 1.0 : -1.0));
      }
    EXPECT_TRUE(close(e.to_host(), want));
  });
}
