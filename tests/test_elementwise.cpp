// Elementwise operators and math functions checked against serial host references: arithmetic
// with arrays and scalars on either side, unary functions, maximum/minimum with NaN, comparisons,
// where, integer wraparound, true division of integers and bool arithmetic (or/and).

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "support.hpp"

namespace {

const std::vector<ts::Shape> kShapes = {{10}, {7, 5}, {5, 3, 7}, {2, 9}, {1, 5}, {2}};

template <class T>
using value_t = typename T::value_type;

// NumPy's result of `x op y` computed in R: integers wrap (computed unsigned), floats as C++.
template <class R>
R host_op(char op, R x, R y) {
  if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) {
    using U = std::make_unsigned_t<R>;
    switch (op) {
      case '+': return static_cast<R>(static_cast<U>(x) + static_cast<U>(y));
      case '-': return static_cast<R>(static_cast<U>(x) - static_cast<U>(y));
      case '*': return static_cast<R>(static_cast<U>(x) * static_cast<U>(y));
      default: ADD_FAILURE() << "bad op"; return R{};
    }
  } else {
    switch (op) {
      case '+': return x + y;
      case '-': return x - y;
      case '*': return x * y;
      case '/': return x / y;
      default: ADD_FAILURE() << "bad op"; return R{};
    }
  }
}

template <class R, class A, class B>
std::vector<R> host_binary(char op, const std::vector<A>& a, const std::vector<B>& b) {
  std::vector<R> out;
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(host_op<R>(op, static_cast<R>(a[i]), static_cast<R>(b[i])));
  return out;
}

template <class R, class A, class S>
std::vector<R> host_binary_scalar(char op, const std::vector<A>& a, S s, bool scalar_first) {
  std::vector<R> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(scalar_first ? host_op<R>(op, static_cast<R>(s), static_cast<R>(a[i]))
                               : host_op<R>(op, static_cast<R>(a[i]), static_cast<R>(s)));
  return out;
}

template <class R, class A, class F>
std::vector<R> host_map(const std::vector<A>& a, F f) {
  std::vector<R> out;
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(static_cast<R>(f(a[i])));
  return out;
}

template <class R>
double tol() {
  return std::is_same_v<R, float> ? 2e-6 : 1e-12;
}

template <class T>
T wrap_pow(T a, T b) {
  T r = 1;
  for (T k = 0; k < b; ++k) r = host_op<T>('*', r, a);
  return r;
}

template <class T>
class Elementwise : public TesseraTest {};
using NumericTypes = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(Elementwise, NumericTypes);

template <class T>
class ElementwiseFloat : public TesseraTest {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ElementwiseFloat, FloatTypes);

}  // namespace

TYPED_TEST(Elementwise, ArithmeticArrayArray) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 1), hb = test_values<T>(n, 2, true);
    auto a = ts::from_host<T>(shape, ha);
    auto b = ts::from_host<T>(shape, hb);
    auto add = a + b;
    auto sub = a - b;
    auto mul = a * b;
    auto div = a / b;
    static_assert(std::is_same_v<decltype(add), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(mul), ts::Array<T>>);
    using D = value_t<decltype(div)>;
    static_assert(std::is_same_v<D, std::conditional_t<std::is_integral_v<T>, double, T>>);
    EXPECT_EQ(add.shape(), shape);
    EXPECT_TRUE(close(add.to_host(), host_binary<T>('+', ha, hb), tol<T>()));
    EXPECT_TRUE(close(sub.to_host(), host_binary<T>('-', ha, hb), tol<T>()));
    EXPECT_TRUE(close(mul.to_host(), host_binary<T>('*', ha, hb), tol<T>()));
    EXPECT_TRUE(close(div.to_host(), host_binary<D>('/', ha, hb), tol<D>()));
    // A compound expression: a * b - a / b + b
    auto e = a * b - a / b + b;
    std::vector<D> want;
    for (std::int64_t i = 0; i < n; ++i)
      want.push_back(static_cast<D>(host_op<T>('*', ha[i], hb[i])) - static_cast<D>(ha[i]) / static_cast<D>(hb[i]) +
                     static_cast<D>(hb[i]));
    EXPECT_TRUE(close(e.to_host(), want, tol<D>()));
  }
}

TYPED_TEST(Elementwise, ArithmeticWithScalars) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 4, true);
    auto a = ts::from_host<T>(shape, ha);

    // Integer scalars take the array's type on either side.
    auto r1 = a + 3;
    auto r2 = 3 - a;
    auto r3 = a * 2;
    auto r4 = 5 * a;
    auto r5 = a - 7;
    static_assert(std::is_same_v<decltype(r1), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(r2), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(r4), ts::Array<T>>);
    EXPECT_TRUE(close(r1.to_host(), host_binary_scalar<T>('+', ha, 3, false), tol<T>()));
    EXPECT_TRUE(close(r2.to_host(), host_binary_scalar<T>('-', ha, 3, true), tol<T>()));
    EXPECT_TRUE(close(r3.to_host(), host_binary_scalar<T>('*', ha, 2, false), tol<T>()));
    EXPECT_TRUE(close(r4.to_host(), host_binary_scalar<T>('*', ha, 5, true), tol<T>()));
    EXPECT_TRUE(close(r5.to_host(), host_binary_scalar<T>('-', ha, 7, false), tol<T>()));

    // Float scalars: float arrays keep their type, integer arrays become float64.
    auto f1 = a + 1.5;
    auto f2 = 2.5 * a;
    auto f3 = 1.0 - a;
    auto f4 = a / 4.0;
    auto f5 = 7.0 / a;
    auto f6 = 7 / a;
    using F = value_t<decltype(f1)>;
    using Dv = value_t<decltype(f6)>;
    static_assert(std::is_same_v<F, std::conditional_t<std::is_integral_v<T>, double, T>>);
    static_assert(std::is_same_v<value_t<decltype(f5)>, F>);
    static_assert(std::is_same_v<Dv, F>);
    EXPECT_TRUE(close(f1.to_host(), host_binary_scalar<F>('+', ha, 1.5, false), tol<F>()));
    EXPECT_TRUE(close(f2.to_host(), host_binary_scalar<F>('*', ha, 2.5, true), tol<F>()));
    EXPECT_TRUE(close(f3.to_host(), host_binary_scalar<F>('-', ha, 1.0, true), tol<F>()));
    EXPECT_TRUE(close(f4.to_host(), host_binary_scalar<F>('/', ha, 4.0, false), tol<F>()));
    EXPECT_TRUE(close(f5.to_host(), host_binary_scalar<F>('/', ha, 7.0, true), tol<F>()));
    EXPECT_TRUE(close(f6.to_host(), host_binary_scalar<F>('/', ha, 7, true), tol<F>()));
  }
}

TYPED_TEST(Elementwise, UnaryMinusAndAbs) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 5);
    auto a = ts::from_host<T>(shape, ha);
    auto neg = -a;
    auto ab = ts::abs(a);
    static_assert(std::is_same_v<decltype(neg), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(ab), ts::Array<T>>);
    EXPECT_TRUE(close(neg.to_host(), host_map<T>(ha, [](T x) { return host_op<T>('-', T(0), x); }), 0.0));
    EXPECT_TRUE(close(ab.to_host(), host_map<T>(ha, [](T x) { return x < 0 ? host_op<T>('-', T(0), x) : x; }), 0.0));
    EXPECT_TRUE(close((-(-a)).to_host(), ha, 0.0));
  }
}

TEST_F(TesseraTest, UnaryMinusAndAbsWrapAtIntMin) {
  // NumPy: -INT_MIN and abs(INT_MIN) wrap to INT_MIN.
  const std::int32_t lo = std::numeric_limits<std::int32_t>::min();
  const std::vector<std::int32_t> h = {lo, -1, 0, 1, std::numeric_limits<std::int32_t>::max()};
  auto a = ts::from_host<std::int32_t>({5}, h);
  EXPECT_EQ((-a).to_host(), (std::vector<std::int32_t>{lo, 1, 0, -1, -std::numeric_limits<std::int32_t>::max()}));
  EXPECT_EQ(ts::abs(a).to_host(), (std::vector<std::int32_t>{lo, 1, 0, 1, std::numeric_limits<std::int32_t>::max()}));
  const std::int64_t lo64 = std::numeric_limits<std::int64_t>::min();
  auto b = ts::from_host<std::int64_t>({2}, {lo64, -5});
  EXPECT_EQ((-b).to_host(), (std::vector<std::int64_t>{lo64, 5}));
  EXPECT_EQ(ts::abs(b).to_host(), (std::vector<std::int64_t>{lo64, 5}));
}

TYPED_TEST(Elementwise, FloatFunctions) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 6);
    std::vector<T> hp;  // strictly positive, for sqrt and log
    for (T v : ha) hp.push_back(v < 0 ? static_cast<T>(-v + 1) : static_cast<T>(v + 1));
    auto a = ts::from_host<T>(shape, ha);
    auto p = ts::from_host<T>(shape, hp);
    using R = value_t<decltype(ts::sqrt(a))>;
    static_assert(std::is_same_v<R, std::conditional_t<std::is_integral_v<T>, double, T>>);
    static_assert(std::is_same_v<value_t<decltype(ts::erf(a))>, R>);
    auto small = ts::from_host<T>(shape, host_map<T>(ha, [](T x) { return x / T(4); }));
    std::vector<T> hsmall = host_map<T>(ha, [](T x) { return x / T(4); });
    const double t = tol<R>() * 2;
    EXPECT_TRUE(close(ts::sqrt(p).to_host(), host_map<R>(hp, [](T x) { return std::sqrt(static_cast<R>(x)); }), t));
    EXPECT_TRUE(close(ts::log(p).to_host(), host_map<R>(hp, [](T x) { return std::log(static_cast<R>(x)); }), t));
    EXPECT_TRUE(
        close(ts::exp(small).to_host(), host_map<R>(hsmall, [](T x) { return std::exp(static_cast<R>(x)); }), t));
    EXPECT_TRUE(close(ts::sin(a).to_host(), host_map<R>(ha, [](T x) { return std::sin(static_cast<R>(x)); }), t));
    EXPECT_TRUE(close(ts::cos(a).to_host(), host_map<R>(ha, [](T x) { return std::cos(static_cast<R>(x)); }), t));
    EXPECT_TRUE(
        close(ts::tanh(small).to_host(), host_map<R>(hsmall, [](T x) { return std::tanh(static_cast<R>(x)); }), t));
    EXPECT_TRUE(
        close(ts::erf(small).to_host(), host_map<R>(hsmall, [](T x) { return std::erf(static_cast<R>(x)); }), t));
  }
}

TEST_F(TesseraTest, FloatFunctionsSpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> h = {-1.0, 0.0, -0.0, inf, -inf, 1e-300};
  auto a = ts::from_host<double>({6}, h);
  EXPECT_TRUE(close(ts::sqrt(a).to_host(), host_map<double>(h, [](double x) { return std::sqrt(x); })));
  EXPECT_TRUE(close(ts::log(a).to_host(), host_map<double>(h, [](double x) { return std::log(x); })));
  EXPECT_TRUE(close(ts::exp(a).to_host(), host_map<double>(h, [](double x) { return std::exp(x); })));
  EXPECT_TRUE(close(ts::tanh(a).to_host(), host_map<double>(h, [](double x) { return std::tanh(x); })));
  EXPECT_TRUE(close(ts::erf(a).to_host(), host_map<double>(h, [](double x) { return std::erf(x); })));
  // bool inputs compute in float32 (tessera has no float16; documented in dtype.hpp)
  auto b = ts::from_host<bool>({3}, {true, false, true});
  static_assert(std::is_same_v<decltype(ts::exp(b)), ts::Array<float>>);
  EXPECT_TRUE(close(ts::exp(b).to_host(), std::vector<float>{std::exp(1.0f), 1.0f, std::exp(1.0f)}, 1e-6));
}

TYPED_TEST(Elementwise, Pow) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 7);
    std::vector<T> he;  // small non-negative exponents
    for (std::int64_t i = 0; i < n; ++i) he.push_back(static_cast<T>((i * 3 + 1) % 5));
    auto a = ts::from_host<T>(shape, ha);
    auto e = ts::from_host<T>(shape, he);
    auto p = ts::pow(a, e);
    auto sq = ts::pow(a, 2);
    static_assert(std::is_same_v<decltype(p), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(sq), ts::Array<T>>);
    std::vector<T> want_p, want_sq;
    for (std::int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<T>) {
        want_p.push_back(wrap_pow<T>(ha[i], he[i]));
        want_sq.push_back(wrap_pow<T>(ha[i], 2));
      } else {
        want_p.push_back(std::pow(ha[i], he[i]));
        want_sq.push_back(std::pow(ha[i], T(2)));
      }
    }
    EXPECT_TRUE(close(p.to_host(), want_p, tol<T>()));
    EXPECT_TRUE(close(sq.to_host(), want_sq, tol<T>()));
    // A scalar base: 2 ** e
    auto b = ts::pow(2, e);
    static_assert(std::is_same_v<decltype(b), ts::Array<T>>);
    std::vector<T> want_b;
    for (T x : he) want_b.push_back(std::is_integral_v<T> ? wrap_pow<T>(2, x) : static_cast<T>(std::pow(T(2), x)));
    EXPECT_TRUE(close(b.to_host(), want_b, tol<T>()));
  }
}

TEST_F(TesseraTest, PowFloatAndIntegerOverflow) {
  const std::vector<double> h = {0.5, 1.5, 2.0, 9.0, 0.0};
  const std::vector<double> e = {-1.5, 0.5, 10.0, 0.5, 0.0};
  auto a = ts::from_host<double>({5}, h);
  auto x = ts::from_host<double>({5}, e);
  std::vector<double> want;
  for (int i = 0; i < 5; ++i) want.push_back(std::pow(h[i], e[i]));
  EXPECT_TRUE(close(ts::pow(a, x).to_host(), want));
  // Integer pow wraps as NumPy's does.
  auto big = ts::from_host<std::int32_t>({3}, {1000, 3, -7});
  EXPECT_EQ(ts::pow(big, 4).to_host(),
            (std::vector<std::int32_t>{wrap_pow<std::int32_t>(1000, 4), 81, wrap_pow<std::int32_t>(-7, 4)}));
  EXPECT_EQ(ts::pow(big, 12).to_host(),
            (std::vector<std::int32_t>{wrap_pow<std::int32_t>(1000, 12), wrap_pow<std::int32_t>(3, 12),
                                       wrap_pow<std::int32_t>(-7, 12)}));
}

TYPED_TEST(Elementwise, MaximumMinimum) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 8), hb = test_values<T>(n, 9);
    auto a = ts::from_host<T>(shape, ha);
    auto b = ts::from_host<T>(shape, hb);
    std::vector<T> mx, mn, relu, cap;
    for (std::int64_t i = 0; i < n; ++i) {
      mx.push_back(std::max(ha[i], hb[i]));
      mn.push_back(std::min(ha[i], hb[i]));
      relu.push_back(std::max(ha[i], T(0)));
      cap.push_back(std::min(T(3), ha[i]));
    }
    auto m1 = ts::maximum(a, b);
    auto m3 = ts::maximum(a, 0);
    static_assert(std::is_same_v<decltype(m1), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(m3), ts::Array<T>>);
    EXPECT_TRUE(close(m1.to_host(), mx, 0.0));
    EXPECT_TRUE(close(ts::minimum(a, b).to_host(), mn, 0.0));
    EXPECT_TRUE(close(m3.to_host(), relu, 0.0));
    EXPECT_TRUE(close(ts::minimum(3, a).to_host(), cap, 0.0));
  }
}

TYPED_TEST(ElementwiseFloat, MaximumMinimumPropagateNaN) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  const std::vector<T> ha = {nan, 1, nan, -inf, 2, 5};
  const std::vector<T> hb = {1, nan, nan, 3, inf, -1};
  auto a = ts::from_host<T>({6}, ha);
  auto b = ts::from_host<T>({6}, hb);
  const auto mx = ts::maximum(a, b).to_host();
  const auto mn = ts::minimum(a, b).to_host();
  // np.maximum / np.minimum: NaN if either is NaN.
  for (int i = 0; i < 6; ++i) {
    if (std::isnan(ha[i]) || std::isnan(hb[i])) {
      EXPECT_TRUE(std::isnan(mx[i])) << i;
      EXPECT_TRUE(std::isnan(mn[i])) << i;
    } else {
      EXPECT_EQ(mx[i], std::max(ha[i], hb[i])) << i;
      EXPECT_EQ(mn[i], std::min(ha[i], hb[i])) << i;
    }
  }
  const auto ms = ts::maximum(a, 0.0).to_host();
  const auto ms2 = ts::minimum(0.0, a).to_host();
  for (int i = 0; i < 6; ++i) {
    if (std::isnan(ha[i])) {
      EXPECT_TRUE(std::isnan(ms[i])) << i;
      EXPECT_TRUE(std::isnan(ms2[i])) << i;
    } else {
      EXPECT_EQ(ms[i], std::max(ha[i], T(0))) << i;
      EXPECT_EQ(ms2[i], std::min(T(0), ha[i])) << i;
    }
  }
}

TYPED_TEST(Elementwise, Comparisons) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 10);
    auto hb = test_values<T>(n, 11);
    for (std::int64_t i = 0; i < n; i += 3) hb[i] = ha[i];  // some equal elements
    auto a = ts::from_host<T>(shape, ha);
    auto b = ts::from_host<T>(shape, hb);
    auto lt = a < b;
    static_assert(std::is_same_v<decltype(lt), ts::Array<bool>>);
    static_assert(std::is_same_v<decltype(a == 1.5), ts::Array<bool>>);
    std::vector<bool> want_lt, want_le, want_gt, want_ge, want_eq, want_ne, want_s1, want_s2, want_s3;
    using C = value_t<decltype(a + 0.75)>;  // the type a comparison with 0.75 computes in
    for (std::int64_t i = 0; i < n; ++i) {
      want_lt.push_back(ha[i] < hb[i]);
      want_le.push_back(ha[i] <= hb[i]);
      want_gt.push_back(ha[i] > hb[i]);
      want_ge.push_back(ha[i] >= hb[i]);
      want_eq.push_back(ha[i] == hb[i]);
      want_ne.push_back(ha[i] != hb[i]);
      want_s1.push_back(static_cast<C>(ha[i]) < static_cast<C>(0.75));
      want_s2.push_back(static_cast<C>(0.75) <= static_cast<C>(ha[i]));  // scalar on the left
      want_s3.push_back(ha[i] == T(2));
    }
    EXPECT_EQ(lt.to_host(), want_lt);
    EXPECT_EQ((a <= b).to_host(), want_le);
    EXPECT_EQ((a > b).to_host(), want_gt);
    EXPECT_EQ((a >= b).to_host(), want_ge);
    EXPECT_EQ((a == b).to_host(), want_eq);
    EXPECT_EQ((a != b).to_host(), want_ne);
    EXPECT_EQ((a < 0.75).to_host(), want_s1);
    EXPECT_EQ((0.75 <= a).to_host(), want_s2);
    EXPECT_EQ((a == 2).to_host(), want_s3);
  }
}

TEST_F(TesseraTest, ComparisonsPromoteAndNaN) {
  // int32 vs float32 compares in float64: 16777217 > 16777216.0f (equal if compared in float32).
  auto i = ts::from_host<std::int32_t>({3}, {16777217, 5, -3});
  auto f = ts::from_host<float>({3}, {16777216.0f, 5.0f, -2.5f});
  EXPECT_EQ((i > f).to_host(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ((i == f).to_host(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ((i < f).to_host(), (std::vector<bool>{false, false, true}));
  // NaN compares false except !=.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto d = ts::from_host<double>({3}, {nan, 1.0, nan});
  auto e = ts::from_host<double>({3}, {nan, nan, 2.0});
  EXPECT_EQ((d == e).to_host(), (std::vector<bool>{false, false, false}));
  EXPECT_EQ((d != e).to_host(), (std::vector<bool>{true, true, true}));
  EXPECT_EQ((d < e).to_host(), (std::vector<bool>{false, false, false}));
  EXPECT_EQ((d >= e).to_host(), (std::vector<bool>{false, false, false}));
  EXPECT_EQ((d == d).to_host(), (std::vector<bool>{false, true, false}));
  // bool arrays compare as 0/1
  auto p = ts::from_host<bool>({4}, {true, false, true, false});
  auto q = ts::from_host<bool>({4}, {true, true, false, false});
  EXPECT_EQ((p < q).to_host(), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ((p == q).to_host(), (std::vector<bool>{true, false, false, true}));
}

TYPED_TEST(Elementwise, Where) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 12), hb = test_values<T>(n, 13);
    const auto hm = test_values<bool>(n, 14);
    auto a = ts::from_host<T>(shape, ha);
    auto b = ts::from_host<T>(shape, hb);
    auto m = ts::from_host<bool>(shape, hm);
    auto w1 = ts::where(m, a, b);
    auto w2 = ts::where(m, 1, a);
    auto w3 = ts::where(m, a, 0.5);
    auto w4 = ts::where(a > b, a, -b);
    auto w5 = ts::where(a, 7, 9);  // any condition type: nonzero
    static_assert(std::is_same_v<decltype(w1), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(w2), ts::Array<T>>);
    using F = value_t<decltype(w3)>;
    static_assert(std::is_same_v<F, std::conditional_t<std::is_integral_v<T>, double, T>>);
    static_assert(std::is_same_v<decltype(w5), ts::Array<std::int64_t>>);
    std::vector<T> want1, want2, want4;
    std::vector<F> want3;
    std::vector<std::int64_t> want5;
    for (std::int64_t i = 0; i < n; ++i) {
      want1.push_back(hm[i] ? ha[i] : hb[i]);
      want2.push_back(hm[i] ? T(1) : ha[i]);
      want3.push_back(hm[i] ? static_cast<F>(ha[i]) : static_cast<F>(0.5));
      want4.push_back(ha[i] > hb[i] ? ha[i] : host_op<T>('-', T(0), hb[i]));
      want5.push_back(ha[i] != T(0) ? 7 : 9);
    }
    EXPECT_TRUE(close(w1.to_host(), want1, 0.0));
    EXPECT_TRUE(close(w2.to_host(), want2, 0.0));
    EXPECT_TRUE(close(w3.to_host(), want3, 0.0));
    EXPECT_TRUE(close(w4.to_host(), want4, 0.0));
    EXPECT_TRUE(close(w5.to_host(), want5, 0.0));
  }
}

TEST_F(TesseraTest, WhereMixedTypesAndDesignExample) {
  const ts::Shape shape{7, 5};
  const auto hi = test_values<std::int32_t>(35, 1);
  const auto hf = test_values<float>(35, 2);
  const auto hc = test_values<double>(35, 3);
  auto i = ts::from_host<std::int32_t>(shape, hi);
  auto f = ts::from_host<float>(shape, hf);
  auto c = ts::from_host<double>(shape, hc);
  auto w = ts::where(i > 0, i, f);  // int32 and float32 promote to float64
  static_assert(std::is_same_v<decltype(w), ts::Array<double>>);
  auto d = ts::where(c > 0.0, ts::exp(c), -c);
  std::vector<double> want_w, want_d;
  for (int k = 0; k < 35; ++k) {
    want_w.push_back(hi[k] > 0 ? static_cast<double>(hi[k]) : static_cast<double>(hf[k]));
    want_d.push_back(hc[k] > 0.0 ? std::exp(hc[k]) : -hc[k]);
  }
  EXPECT_TRUE(close(w.to_host(), want_w));
  EXPECT_TRUE(close(d.to_host(), want_d));
}

TEST_F(TesseraTest, IntegerWraparound) {
  const std::int32_t mx = std::numeric_limits<std::int32_t>::max(), mn = std::numeric_limits<std::int32_t>::min();
  const std::vector<std::int32_t> ha = {mx, mn, 65536, 46341, -1, mx};
  const std::vector<std::int32_t> hb = {1, -1, 65536, 46341, mn, mx};
  auto a = ts::from_host<std::int32_t>({6}, ha);
  auto b = ts::from_host<std::int32_t>({6}, hb);
  EXPECT_EQ((a + b).to_host(), host_binary<std::int32_t>('+', ha, hb));
  EXPECT_EQ((a - b).to_host(), host_binary<std::int32_t>('-', ha, hb));
  EXPECT_EQ((a * b).to_host(), host_binary<std::int32_t>('*', ha, hb));
  EXPECT_EQ((a + 1).to_host(), host_binary_scalar<std::int32_t>('+', ha, 1, false));
  EXPECT_EQ((a * 65536).to_host(), host_binary_scalar<std::int32_t>('*', ha, 65536, false));
  // Spot values, independent of host_op: INT32_MAX + 1 == INT32_MIN, 65536 * 65536 == 0.
  const auto sum = (a + b).to_host();
  const auto prod = (a * b).to_host();
  EXPECT_EQ(sum[0], mn);
  EXPECT_EQ(prod[2], 0);
  const std::int64_t mx64 = std::numeric_limits<std::int64_t>::max();
  auto c = ts::from_host<std::int64_t>({3}, {mx64, 4294967296LL, -mx64});
  const std::vector<std::int64_t> hc = {mx64, 4294967296LL, -mx64};
  EXPECT_EQ((c + 1).to_host(), host_binary_scalar<std::int64_t>('+', hc, 1, false));
  EXPECT_EQ((c * c).to_host(), host_binary<std::int64_t>('*', hc, hc));
  EXPECT_EQ((c - 2).to_host(), host_binary_scalar<std::int64_t>('-', hc, 2, false));
}

TEST_F(TesseraTest, IntegerTrueDivisionIsFloat64) {
  const std::vector<std::int32_t> ha = {7, -7, 1, 0, -1, 9, 1 << 30};
  const std::vector<std::int32_t> hb = {2, 2, 0, 0, 0, -3, 3};
  auto a = ts::from_host<std::int32_t>({7}, ha);
  auto b = ts::from_host<std::int32_t>({7}, hb);
  auto q = a / b;
  static_assert(std::is_same_v<decltype(q), ts::Array<double>>);
  std::vector<double> want;
  for (int i = 0; i < 7; ++i) want.push_back(static_cast<double>(ha[i]) / static_cast<double>(hb[i]));
  EXPECT_TRUE(close(q.to_host(), want));  // includes inf, -inf and nan
  auto r = a / 2;
  static_assert(std::is_same_v<decltype(r), ts::Array<double>>);
  EXPECT_TRUE(close(r.to_host(), host_binary_scalar<double>('/', ha, 2, false)));
  auto l = ts::from_host<std::int64_t>({7}, std::vector<std::int64_t>(ha.begin(), ha.end()));
  auto s = l / b;
  static_assert(std::is_same_v<decltype(s), ts::Array<double>>);
  EXPECT_TRUE(close(s.to_host(), want));
}

TEST_F(TesseraTest, BoolArithmetic) {
  for (const auto& shape : kShapes) {
    const std::int64_t n = volume_of(shape);
    const auto hp = test_values<bool>(n, 1), hq = test_values<bool>(n, 2);
    auto p = ts::from_host<bool>(shape, hp);
    auto q = ts::from_host<bool>(shape, hq);
    auto s = p + q;
    auto m = p * q;
    auto t = p + true;
    auto i = p + 1;  // a Python int on a bool array gives int64
    static_assert(std::is_same_v<decltype(s), ts::Array<bool>>);
    static_assert(std::is_same_v<decltype(m), ts::Array<bool>>);
    static_assert(std::is_same_v<decltype(t), ts::Array<bool>>);
    static_assert(std::is_same_v<decltype(i), ts::Array<std::int64_t>>);
    std::vector<bool> want_or, want_and, want_t;
    std::vector<std::int64_t> want_i;
    for (std::int64_t k = 0; k < n; ++k) {
      want_or.push_back(hp[k] || hq[k]);
      want_and.push_back(hp[k] && hq[k]);
      want_t.push_back(true);
      want_i.push_back(static_cast<std::int64_t>(hp[k]) + 1);
    }
    EXPECT_EQ(s.to_host(), want_or);
    EXPECT_EQ(m.to_host(), want_and);
    EXPECT_EQ(t.to_host(), want_t);
    EXPECT_EQ(i.to_host(), want_i);
    EXPECT_EQ((p * false).to_host(), std::vector<bool>(n, false));
    // np.maximum / np.minimum have bool loops: logical or / and.
    auto mx = ts::maximum(p, q);
    auto mn = ts::minimum(p, q);
    static_assert(std::is_same_v<decltype(mx), ts::Array<bool>>);
    static_assert(std::is_same_v<decltype(mn), ts::Array<bool>>);
    EXPECT_EQ(mx.to_host(), want_or);
    EXPECT_EQ(mn.to_host(), want_and);
    EXPECT_EQ(ts::minimum(p, true).to_host(), hp);
    EXPECT_EQ(ts::maximum(false, p).to_host(), hp);
  }
  // NumPy raises for bool subtraction and negation.
  auto p = ts::from_host<bool>({3}, {true, false, true});
  EXPECT_THROW(p - p, ts::Error);
  EXPECT_THROW(-p, ts::Error);
  // True division of bools is float64.
  auto d = p / ts::from_host<bool>({3}, {true, true, false});
  static_assert(std::is_same_v<decltype(d), ts::Array<double>>);
  EXPECT_TRUE(close(d.to_host(), std::vector<double>{1.0, 0.0, std::numeric_limits<double>::infinity()}));
}

TEST_F(TesseraTest, ShapeMismatchThrows) {
  auto a = ts::zeros<double>({7, 5});
  auto b = ts::zeros<double>({5, 7});
  auto c = ts::zeros<double>({35});
  EXPECT_THROW(a + b, ts::Error);
  EXPECT_THROW(a * c, ts::Error);
  EXPECT_THROW(ts::where(a > 0.0, a, b), ts::Error);
  EXPECT_THROW(ts::maximum(a(ts::slice(1, ts::end)), a), ts::Error);
}
