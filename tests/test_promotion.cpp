// Type promotion: compile-time result types (static_assert on decltype) and values for
// array-array operations (np.promote_types), array-scalar operations (NEP 50: a C++ scalar takes
// the array's type unless its kind is higher), 0-d arrays (strong, as NumPy's), in-place casting
// (same_kind) and astype between all five element types.

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "support.hpp"

namespace {

using std::int32_t;
using std::int64_t;

// np.promote_types on the five types, written out as a table (independent of src/core/dtype.hpp).
template <class A, class B>
struct np_promote;
#define NP_PROMOTE(A, B, R) \
  template <>               \
  struct np_promote<A, B> { \
    using type = R;         \
  };
NP_PROMOTE(bool, bool, bool)
NP_PROMOTE(bool, int32_t, int32_t)
NP_PROMOTE(bool, int64_t, int64_t)
NP_PROMOTE(bool, float, float)
NP_PROMOTE(bool, double, double)
NP_PROMOTE(int32_t, bool, int32_t)
NP_PROMOTE(int32_t, int32_t, int32_t)
NP_PROMOTE(int32_t, int64_t, int64_t)
NP_PROMOTE(int32_t, float, double)
NP_PROMOTE(int32_t, double, double)
NP_PROMOTE(int64_t, bool, int64_t)
NP_PROMOTE(int64_t, int32_t, int64_t)
NP_PROMOTE(int64_t, int64_t, int64_t)
NP_PROMOTE(int64_t, float, double)
NP_PROMOTE(int64_t, double, double)
NP_PROMOTE(float, bool, float)
NP_PROMOTE(float, int32_t, double)
NP_PROMOTE(float, int64_t, double)
NP_PROMOTE(float, float, float)
NP_PROMOTE(float, double, double)
NP_PROMOTE(double, bool, double)
NP_PROMOTE(double, int32_t, double)
NP_PROMOTE(double, int64_t, double)
NP_PROMOTE(double, float, double)
NP_PROMOTE(double, double, double)
#undef NP_PROMOTE
template <class A, class B>
using np_promote_t = typename np_promote<A, B>::type;

// NEP 50 with Python-scalar kinds: bool < int < float. A scalar of a higher kind than the array
// gives NumPy's default type of that kind (int64, float64).
template <class A, class S>
using np_weak_t = std::conditional_t<
    std::is_floating_point_v<S>, std::conditional_t<std::is_floating_point_v<A>, A, double>,
    std::conditional_t<std::is_same_v<S, bool>, A, std::conditional_t<std::is_same_v<A, bool>, int64_t, A>>>;

template <class R>
using true_div_t = std::conditional_t<std::is_floating_point_v<R>, R, double>;

template <class A, class B>
using add_t = typename decltype(std::declval<ts::Array<A>>() + std::declval<B>())::value_type;
template <class A, class B>
using mul_t = typename decltype(std::declval<A>() * std::declval<ts::Array<B>>())::value_type;
template <class A, class B>
using quot_t = typename decltype(std::declval<ts::Array<A>>() / std::declval<B>())::value_type;

// The cases the brief names, spelled out.
static_assert(
    std::is_same_v<decltype(std::declval<ts::Array<int32_t>>() + std::declval<ts::Array<float>>()), ts::Array<double>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<int32_t>>() + std::declval<ts::Array<int64_t>>()),
                             ts::Array<int64_t>>);
static_assert(
    std::is_same_v<decltype(std::declval<ts::Array<bool>>() + std::declval<ts::Array<int32_t>>()), ts::Array<int32_t>>);
static_assert(
    std::is_same_v<decltype(std::declval<ts::Array<float>>() + std::declval<ts::Array<double>>()), ts::Array<double>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<float>>() * 2.0), ts::Array<float>>);
static_assert(std::is_same_v<decltype(2.0 * std::declval<ts::Array<float>>()), ts::Array<float>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<int32_t>>() + 1), ts::Array<int32_t>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<int32_t>>() * 0.5), ts::Array<double>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<bool>>() + 1), ts::Array<int64_t>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<int32_t>>() / std::declval<ts::Array<int32_t>>()),
                             ts::Array<double>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<float>>() / 2), ts::Array<float>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<float>>() + 2.0f), ts::Array<float>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<int64_t>>() + 1.5f), ts::Array<double>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<int32_t>>() + true), ts::Array<int32_t>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<int32_t>>() + int64_t{5}), ts::Array<int32_t>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<float>>() < 0.5), ts::Array<bool>>);
// 0-d arrays are arrays (strong), not weak scalars: float32 * (0-d float64) is float64.
static_assert(std::is_same_v<decltype(std::declval<ts::Array<float>>() * ts::sum(std::declval<ts::Array<double>>())),
                             ts::Array<double>>);
static_assert(std::is_same_v<decltype(std::declval<ts::Array<int32_t>>() * ts::sum(std::declval<ts::Array<int32_t>>())),
                             ts::Array<int64_t>>);

template <class P>
class PromotionPair : public TesseraTest {};
using Pairs =
    ::testing::Types<std::pair<bool, bool>, std::pair<bool, int32_t>, std::pair<bool, int64_t>, std::pair<bool, float>,
                     std::pair<bool, double>, std::pair<int32_t, bool>, std::pair<int32_t, int32_t>,
                     std::pair<int32_t, int64_t>, std::pair<int32_t, float>, std::pair<int32_t, double>,
                     std::pair<int64_t, bool>, std::pair<int64_t, int32_t>, std::pair<int64_t, int64_t>,
                     std::pair<int64_t, float>, std::pair<int64_t, double>, std::pair<float, bool>,
                     std::pair<float, int32_t>, std::pair<float, int64_t>, std::pair<float, float>,
                     std::pair<float, double>, std::pair<double, bool>, std::pair<double, int32_t>,
                     std::pair<double, int64_t>, std::pair<double, float>, std::pair<double, double>>;
TYPED_TEST_SUITE(PromotionPair, Pairs);

template <class T>
class PromotionType : public TesseraTest {};
using AllTypes = ::testing::Types<bool, int32_t, int64_t, float, double>;
TYPED_TEST_SUITE(PromotionType, AllTypes);

template <class R>
double tol() {
  return std::is_same_v<R, float> ? 1e-6 : 1e-12;
}

template <class R>
R host_add(R x, R y) {
  if constexpr (std::is_same_v<R, bool>)
    return x || y;
  else if constexpr (std::is_integral_v<R>)
    return static_cast<R>(static_cast<std::make_unsigned_t<R>>(x) + static_cast<std::make_unsigned_t<R>>(y));
  else
    return x + y;
}
template <class R>
R host_mul(R x, R y) {
  if constexpr (std::is_same_v<R, bool>)
    return x && y;
  else if constexpr (std::is_integral_v<R>)
    return static_cast<R>(static_cast<std::make_unsigned_t<R>>(x) * static_cast<std::make_unsigned_t<R>>(y));
  else
    return x * y;
}
template <class R>
R host_sub(R x, R y) {
  if constexpr (std::is_integral_v<R>)
    return static_cast<R>(static_cast<std::make_unsigned_t<R>>(x) - static_cast<std::make_unsigned_t<R>>(y));
  else
    return x - y;
}

// C++ conversion, as NumPy's astype for in-range values; astype(bool) is "nonzero".
template <class U, class S>
U host_cast(S v) {
  if constexpr (std::is_same_v<U, bool>)
    return v != S(0);
  else
    return static_cast<U>(v);
}

}  // namespace

TYPED_TEST(PromotionPair, ArrayArrayTypesAndValues) {
  using A = typename TypeParam::first_type;
  using B = typename TypeParam::second_type;
  using R = np_promote_t<A, B>;
  using D = true_div_t<R>;
  const ts::Shape shape{7, 5};
  const std::int64_t n = 35;
  const auto ha = test_values<A>(n, 1);
  const auto hb = test_values<B>(n, 2, true);
  auto a = ts::from_host<A>(shape, ha);
  auto b = ts::from_host<B>(shape, hb);
  auto sum = a + b;
  auto prod = b * a;
  auto quot = a / b;
  auto mx = ts::maximum(a, b);
  static_assert(std::is_same_v<decltype(sum), ts::Array<R>>);
  static_assert(std::is_same_v<decltype(prod), ts::Array<R>>);
  static_assert(std::is_same_v<decltype(quot), ts::Array<D>>);
  static_assert(std::is_same_v<decltype(mx), ts::Array<R>>);
  static_assert(std::is_same_v<decltype(ts::where(a > b, a, b)), ts::Array<R>>);
  static_assert(std::is_same_v<decltype(ts::dot(a, b)), ts::Array<R>>);
  std::vector<R> want_sum, want_prod, want_mx;
  std::vector<D> want_quot;
  std::vector<bool> want_lt;
  for (std::int64_t i = 0; i < n; ++i) {
    const R x = static_cast<R>(ha[i]), y = static_cast<R>(hb[i]);
    want_sum.push_back(host_add<R>(x, y));
    want_prod.push_back(host_mul<R>(y, x));
    want_mx.push_back(x > y ? x : y);
    want_quot.push_back(static_cast<D>(ha[i]) / static_cast<D>(hb[i]));
    want_lt.push_back(x < y);
  }
  EXPECT_TRUE(close(sum.to_host(), want_sum, tol<R>()));
  EXPECT_TRUE(close(prod.to_host(), want_prod, tol<R>()));
  EXPECT_TRUE(close(mx.to_host(), want_mx, tol<R>()));
  EXPECT_TRUE(close(quot.to_host(), want_quot, tol<D>()));
  EXPECT_EQ((a < b).to_host(), want_lt);
  if constexpr (!std::is_same_v<R, bool>) {
    auto diff = a - b;
    static_assert(std::is_same_v<decltype(diff), ts::Array<R>>);
    std::vector<R> want_diff;
    for (std::int64_t i = 0; i < n; ++i) want_diff.push_back(host_sub<R>(static_cast<R>(ha[i]), static_cast<R>(hb[i])));
    EXPECT_TRUE(close(diff.to_host(), want_diff, tol<R>()));
  }
}

TYPED_TEST(PromotionPair, Astype) {
  using A = typename TypeParam::first_type;
  using U = typename TypeParam::second_type;
  const std::vector<double> base = {-3.75, -1.0, 0.0, 0.5, 2.5, 100.25, 7.0, -0.25, 1e6, -2e6, 0.0, 1.0};
  std::vector<A> src;
  for (double v : base) src.push_back(host_cast<A>(v));
  for (const ts::Shape& shape : std::vector<ts::Shape>{{12}, {3, 4}, {2, 3, 2}, {1, 12}}) {
    auto a = ts::from_host<A>(shape, src);
    auto c = a.template astype<U>();
    static_assert(std::is_same_v<decltype(c), ts::Array<U>>);
    EXPECT_EQ(c.shape(), shape);
    std::vector<U> want;
    for (A v : src) want.push_back(host_cast<U>(v));
    EXPECT_TRUE(close(c.to_host(), want, 0.0));
    // astype makes a copy: writing it leaves the source alone.
    c.assign(0);
    EXPECT_TRUE(close(a.to_host(), src, 0.0));
  }
}

TYPED_TEST(PromotionType, ScalarOperandsAreWeak) {
  using A = TypeParam;
  const ts::Shape shape{2, 9};
  const std::int64_t n = 18;
  const auto ha = test_values<A>(n, 3);
  auto a = ts::from_host<A>(shape, ha);

  using RB = np_weak_t<A, bool>;
  using RI = np_weak_t<A, int>;
  using RF = np_weak_t<A, double>;
  static_assert(std::is_same_v<add_t<A, bool>, RB>);
  static_assert(std::is_same_v<add_t<A, int>, RI>);
  static_assert(std::is_same_v<add_t<A, int64_t>, RI>);
  static_assert(std::is_same_v<add_t<A, double>, RF>);
  static_assert(std::is_same_v<add_t<A, float>, RF>);
  static_assert(std::is_same_v<mul_t<int, A>, RI>);
  static_assert(std::is_same_v<mul_t<double, A>, RF>);
  static_assert(std::is_same_v<quot_t<A, int>, true_div_t<RI>>);
  static_assert(std::is_same_v<quot_t<A, double>, true_div_t<RF>>);

  auto b = a + true;
  auto i = a + 3;
  auto f = a + 0.5;
  auto g = 2 * a;
  auto h = 1.5 * a;
  std::vector<RB> want_b;
  std::vector<RI> want_i, want_g;
  std::vector<RF> want_f, want_h;
  for (A v : ha) {
    want_b.push_back(host_add<RB>(static_cast<RB>(v), static_cast<RB>(true)));
    want_i.push_back(host_add<RI>(static_cast<RI>(v), static_cast<RI>(3)));
    want_f.push_back(host_add<RF>(static_cast<RF>(v), static_cast<RF>(0.5)));
    want_g.push_back(host_mul<RI>(static_cast<RI>(2), static_cast<RI>(v)));
    want_h.push_back(host_mul<RF>(static_cast<RF>(1.5), static_cast<RF>(v)));
  }
  EXPECT_TRUE(close(b.to_host(), want_b, tol<RB>()));
  EXPECT_TRUE(close(i.to_host(), want_i, tol<RI>()));
  EXPECT_TRUE(close(f.to_host(), want_f, tol<RF>()));
  EXPECT_TRUE(close(g.to_host(), want_g, tol<RI>()));
  EXPECT_TRUE(close(h.to_host(), want_h, tol<RF>()));
}

TEST_F(TesseraTest, PromotionValuesNeedTheWideType) {
  // Each of these gives a different answer if computed in the narrower operand type.
  auto i32 = ts::from_host<int32_t>({3}, {16777217, 2000000000, -2000000000});
  auto f32 = ts::from_host<float>({3}, {0.5f, 0.25f, -0.125f});
  auto i64 = ts::from_host<int64_t>({3}, {2000000000LL, 2000000000LL, -2000000000LL});
  auto f64 = ts::from_host<double>({3}, {0.2, 1e-12, -0.3});
  auto bl = ts::from_host<bool>({3}, {true, false, true});

  auto x = i32 + f32;  // float64
  EXPECT_TRUE(close(x.to_host(), std::vector<double>{16777217.5, 2000000000.25, -2000000000.125}));
  auto y = i32 + i64;  // int64: no int32 wraparound
  EXPECT_EQ(y.to_host(), (std::vector<int64_t>{16777217LL + 2000000000LL, 4000000000LL, -4000000000LL}));
  auto z = f32 + f64;  // float64: 0.5f + 1e-12 is not 0.5
  EXPECT_TRUE(close(z.to_host(), std::vector<double>{0.5 + 0.2, 0.25 + 1e-12, -0.125 - 0.3}, 1e-15));
  EXPECT_NE(z.to_host()[1], 0.25);
  auto w = bl + i32;  // int32, bool as 0/1
  EXPECT_EQ(w.to_host(), (std::vector<int32_t>{16777218, 2000000000, -1999999999}));
  auto s = i32 * 0.5;  // float64
  EXPECT_TRUE(close(s.to_host(), std::vector<double>{16777217 * 0.5, 1e9, -1e9}));
  auto t = bl + 1;  // int64
  EXPECT_EQ(t.to_host(), (std::vector<int64_t>{2, 1, 2}));
  auto u = f32 * 2.0;  // float32
  EXPECT_EQ(u.to_host(), (std::vector<float>{1.0f, 0.5f, -0.25f}));
  auto v = i32 + 1;  // int32, wrapping as NumPy
  auto big = ts::from_host<int32_t>({2}, {std::numeric_limits<int32_t>::max(), -5});
  EXPECT_EQ((big + 1).to_host(), (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -4}));
  EXPECT_EQ(v.to_host(), (std::vector<int32_t>{16777218, 2000000001, -1999999999}));
  // A 0-d float64 array promotes a float32 array to float64 (0-d arrays are not weak).
  auto one = ts::sum(ts::from_host<double>({1}, {1e-12}));
  auto p = f32 + one;
  static_assert(std::is_same_v<decltype(p), ts::Array<double>>);
  EXPECT_TRUE(close(p.to_host(), std::vector<double>{0.5 + 1e-12, 0.25 + 1e-12, -0.125 + 1e-12}, 1e-15));
}

TEST_F(TesseraTest, InPlaceSameKindCasting) {
  const ts::Shape shape{7, 5};
  const auto hf = test_values<float>(35, 1);
  const auto hd = test_values<double>(35, 2);
  const auto hi = test_values<int32_t>(35, 3);
  const auto hl = test_values<int64_t>(35, 4);
  auto f = ts::from_host<float>(shape, hf);
  auto d = ts::from_host<double>(shape, hd);
  auto i = ts::from_host<int32_t>(shape, hi);
  auto l = ts::from_host<int64_t>(shape, hl);

  f += d;  // computed in float64, stored as float32
  std::vector<float> want_f;
  for (int k = 0; k < 35; ++k) want_f.push_back(static_cast<float>(static_cast<double>(hf[k]) + hd[k]));
  EXPECT_TRUE(close(f.to_host(), want_f, 0.0));

  i += l;  // computed in int64, stored as int32
  i *= 3;
  std::vector<int32_t> want_i;
  for (int k = 0; k < 35; ++k) want_i.push_back(static_cast<int32_t>((hi[k] + hl[k]) * 3));
  EXPECT_EQ(i.to_host(), want_i);

  d += i;  // int into float: fine
  d /= 4;
  std::vector<double> want_d;
  for (int k = 0; k < 35; ++k) want_d.push_back((hd[k] + want_i[k]) / 4.0);
  EXPECT_TRUE(close(d.to_host(), want_d));

  // NumPy raises UFuncTypeError for these (same_kind casting); tessera throws before writing.
  EXPECT_THROW(i += 0.5, ts::Error);
  EXPECT_THROW(i /= 2, ts::Error);
  EXPECT_THROW(i += d, ts::Error);
  EXPECT_THROW(l *= f, ts::Error);
  auto b = ts::from_host<bool>({3}, {true, false, true});
  EXPECT_THROW(b += 1, ts::Error);
  EXPECT_EQ(i.to_host(), want_i);  // unchanged by the failed updates
  b += true;                       // bool stays bool: logical or
  EXPECT_EQ(b.to_host(), (std::vector<bool>{true, true, true}));
  b *= ts::from_host<bool>({3}, {false, true, true});
  EXPECT_EQ(b.to_host(), (std::vector<bool>{false, true, true}));
}

TEST_F(TesseraTest, AstypeSpecialValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = ts::from_host<double>({5}, {nan, -0.0, 0.0, 1e-300, -2.9});
  EXPECT_EQ(a.astype<bool>().to_host(), (std::vector<bool>{true, false, false, true, true}));
  EXPECT_EQ(a(ts::slice(1, ts::end)).astype<int32_t>().to_host(), (std::vector<int32_t>{0, 0, 0, -2}));
  auto f = a.astype<float>().to_host();
  EXPECT_TRUE(std::isnan(f[0]));
  EXPECT_EQ(f[3], 0.0f);  // underflows in float32
  auto big = ts::from_host<int64_t>({2}, {(1LL << 40) + 3, -(1LL << 33) - 1});
  // int64 -> int32 keeps the low 32 bits, as NumPy's astype.
  EXPECT_EQ(big.astype<int32_t>().to_host(),
            (std::vector<int32_t>{static_cast<int32_t>((1LL << 40) + 3), static_cast<int32_t>(-(1LL << 33) - 1)}));
  auto i = ts::from_host<int32_t>({3}, {16777217, -1, 0});
  EXPECT_EQ(i.astype<float>().to_host(), (std::vector<float>{16777216.0f, -1.0f, 0.0f}));
  EXPECT_EQ(i.astype<bool>().to_host(), (std::vector<bool>{true, true, false}));
}
