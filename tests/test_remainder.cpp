// NumPy's remainder, `a % b` and `a %= b`: the result takes the divisor's sign (Python's %),
// integers by zero give 0 and floats by zero NaN, as NumPy; types promote as for `+`. Checked
// with fusion on and off against a serial host reference and against the defining properties
// (a - r is a multiple of b, |r| < |b|), for every element type, scalars on either side, views.

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

// Python's a % b in R: the remainder of the floor division.
template <class R>
R host_remainder(R a, R b) {
  if constexpr (std::is_floating_point_v<R>) {
    if (b == R(0)) return std::numeric_limits<R>::quiet_NaN();
    R m = std::fmod(a, b);  // exact
    if (m == R(0)) return std::copysign(R(0), b);
    if ((m < R(0)) != (b < R(0))) m += b;
    return m;
  } else {
    if (b == R(0)) return R(0);  // NumPy: 0 (with a warning)
    __int128 m = static_cast<__int128>(a) % b;
    if (m != 0 && (m < 0) != (b < 0)) m += b;
    return static_cast<R>(m);
  }
}

template <class R, class A, class B>
std::vector<R> host_remainders(const std::vector<A>& a, const std::vector<B>& b) {
  std::vector<R> out;
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(host_remainder(static_cast<R>(a[i]), static_cast<R>(b[i])));
  return out;
}

// What makes r the remainder of a by b, whatever the algorithm: r has b's sign (or is zero), is
// smaller than b in magnitude, and (integers) a - r is a multiple of b.
template <class R>
::testing::AssertionResult is_remainder(R a, R b, R r) {
  if (b == R(0) || std::isnan(static_cast<double>(a)) || std::isinf(static_cast<double>(a)))
    return ::testing::AssertionSuccess();  // by zero, or no finite remainder: the reference decides
  const bool sign_ok = r == R(0) || (r < R(0)) == (b < R(0));
  const bool size_ok = std::is_floating_point_v<R>
                           ? std::abs(static_cast<double>(r)) <= std::abs(static_cast<double>(b))
                           : std::abs(static_cast<long double>(r)) < std::abs(static_cast<long double>(b));
  bool multiple = true;
  if constexpr (!std::is_floating_point_v<R>) multiple = (static_cast<__int128>(a) - r) % b == 0;
  if (sign_ok && size_ok && multiple) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << +a << " % " << +b << " gave " << +r;
}

template <class T>
class Remainder : public ::testing::Test {};
using AllTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(Remainder, AllTypes);

}  // namespace

TYPED_TEST(Remainder, ArraysAndScalars) {
  using T = TypeParam;
  using S = std::conditional_t<std::is_same_v<T, bool>, std::int32_t, T>;  // NumPy: bool % bool is int8
  fused_and_unfused([] {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      const std::int64_t n = volume_of(shape);
      const auto ha = test_values<T>(n, 1), hb = test_values<T>(n, 2);  // b has zeros: 0 or NaN
      auto a = ts::from_host<T>(shape, ha);
      auto b = ts::from_host<T>(shape, hb);
      auto r = a % b;
      auto by_int = a % -3;  // a C++ int takes an integer array's type; bool becomes int64
      auto of_int = 7 % b;
      auto by_float = a % 2.5;
      using RI = value_t<decltype(by_int)>;
      using RF = value_t<decltype(by_float)>;
      static_assert(std::is_same_v<decltype(r), ts::Array<S>>);
      static_assert(std::is_same_v<RI, std::conditional_t<std::is_same_v<T, bool>, std::int64_t, T>>);
      static_assert(std::is_same_v<decltype(of_int), ts::Array<RI>>);
      static_assert(std::is_same_v<RF, std::conditional_t<std::is_floating_point_v<T>, T, double>>);
      EXPECT_TRUE(close(r.to_host(), host_remainders<S>(ha, hb), 0.0));
      EXPECT_TRUE(close(by_int.to_host(), host_remainders<RI>(ha, std::vector<RI>(n, RI(-3))), 0.0));
      EXPECT_TRUE(close(of_int.to_host(), host_remainders<RI>(std::vector<RI>(n, RI(7)), hb), 0.0));
      EXPECT_TRUE(close(by_float.to_host(), host_remainders<RF>(ha, std::vector<RF>(n, RF(2.5))), 0.0));
      const auto got = r.to_host();
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_TRUE(is_remainder(static_cast<S>(ha[i]), static_cast<S>(hb[i]), got[i])) << "element " << i;
    }
  });
}

TEST(RemainderEdges, IntegerExtremesAndZeroDivisors) {
  const std::int64_t mn = std::numeric_limits<std::int64_t>::min(), mx = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> ha = {mn, mn, mx, mn, -7, 7, -7, 7, 0, 5, mx, -1};
  const std::vector<std::int64_t> hb = {-1, 0, mn, mx, 3, -3, -3, 3, -5, 0, -1, mn};
  const std::int32_t mn32 = std::numeric_limits<std::int32_t>::min();
  const std::vector<std::int32_t> h32a = {mn32, mn32, -1, 9}, h32b = {-1, 0, mn32, -4};
  fused_and_unfused([&] {
    auto a = ts::from_host<std::int64_t>({12}, ha);
    auto b = ts::from_host<std::int64_t>({12}, hb);
    const auto r = (a % b).to_host();
    EXPECT_EQ(r, host_remainders<std::int64_t>(ha, hb));  // INT64_MIN % -1 is 0: no trap
    for (std::size_t i = 0; i < ha.size(); ++i) EXPECT_TRUE(is_remainder(ha[i], hb[i], r[i])) << i;
    auto c = ts::from_host<std::int32_t>({4}, h32a);
    auto d = ts::from_host<std::int32_t>({4}, h32b);
    EXPECT_EQ((c % d).to_host(), host_remainders<std::int32_t>(h32a, h32b));
    EXPECT_EQ((c % 0).to_host(), host_remainders<std::int32_t>(h32a, std::vector<std::int32_t>(4, 0)));
  });
}

TEST(RemainderEdges, FloatSpecialValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> ha = {5.0, -5.0, 5.0, -5.0, 0.0, -0.0, 1.0, inf, 3.0, -3.0, nan, 0.0, 1e300, -1e-300};
  const std::vector<double> hb = {3.0, 3.0, -3.0, -3.0, -2.0, 2.0, 0.0, 2.0, inf, inf, 1.0, -0.0, 1e-300, 1e300};
  fused_and_unfused([&] {
    auto a = ts::from_host<double>({14}, ha);
    auto b = ts::from_host<double>({14}, hb);
    const auto r = (a % b).to_host();
    const auto want = host_remainders<double>(ha, hb);
    EXPECT_TRUE(close(r, want, 0.0));
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (want[i] == 0.0) EXPECT_EQ(std::signbit(r[i]), std::signbit(hb[i])) << "a zero remainder has b's sign: " << i;
      EXPECT_TRUE(is_remainder(ha[i], hb[i], r[i])) << i;
    }
    // float32 in float32: -1e-8 % 1 rounds to 1.0 (as NumPy), not to 0.
    const std::vector<float> fa = {-1e-8f, 7.5f, -7.5f, 0.1f}, fb = {1.0f, -2.0f, 2.0f, 0.03f};
    auto f = ts::from_host<float>({4}, fa);
    auto g = ts::from_host<float>({4}, fb);
    EXPECT_TRUE(close((f % g).to_host(), host_remainders<float>(fa, fb), 0.0));
  });
}

TEST(RemainderTypes, MixedOperandsPromoteAsNumPy) {
  const ts::Shape shape{5, 3, 7};
  const std::int64_t n = volume_of(shape);
  const auto hi = test_values<std::int32_t>(n, 3, true);
  const auto hl = test_values<std::int64_t>(n, 4, true);
  const auto hf = test_values<float>(n, 5, true);
  const auto hp = test_values<bool>(n, 6);
  fused_and_unfused([&] {
    auto i = ts::from_host<std::int32_t>(shape, hi);
    auto l = ts::from_host<std::int64_t>(shape, hl);
    auto f = ts::from_host<float>(shape, hf);
    auto p = ts::from_host<bool>(shape, hp);
    auto il = i % l;
    auto ifl = i % f;  // int32 with float32: float64
    auto fs = f % 2;
    auto pi = p % i;
    static_assert(std::is_same_v<decltype(il), ts::Array<std::int64_t>>);
    static_assert(std::is_same_v<decltype(ifl), ts::Array<double>>);
    static_assert(std::is_same_v<decltype(fs), ts::Array<float>>);
    static_assert(std::is_same_v<decltype(pi), ts::Array<std::int32_t>>);
    EXPECT_EQ(il.to_host(), host_remainders<std::int64_t>(hi, hl));
    EXPECT_TRUE(close(ifl.to_host(), host_remainders<double>(hi, hf), 0.0));
    EXPECT_TRUE(close(fs.to_host(), host_remainders<float>(hf, std::vector<float>(n, 2.0f)), 0.0));
    EXPECT_EQ(pi.to_host(), host_remainders<std::int32_t>(hp, hi));
  });
}

TEST(RemainderInPlace, SameKindTargetsAndOverlappingViews) {
  const auto hi = test_values<std::int32_t>(35, 7);
  const auto hl = test_values<std::int64_t>(35, 8, true);
  const auto hd = test_values<double>(35, 9);
  fused_and_unfused([&] {
    auto i = ts::from_host<std::int32_t>({7, 5}, hi);
    i %= ts::from_host<std::int64_t>({7, 5}, hl);  // int64 result cast back to int32: same kind
    EXPECT_EQ(i.to_host(), host_remainders<std::int32_t>(hi, hl));
    auto d = ts::from_host<double>({7, 5}, hd);
    d %= ts::from_host<std::int64_t>({7, 5}, hl);  // float64 %= int64: allowed
    EXPECT_TRUE(close(d.to_host(), host_remainders<double>(hd, hl), 0.0));
    // Rows 1.. by rows ..-1 of the same array: the right-hand side is read before the write.
    auto e = ts::from_host<double>({7, 5}, hd);
    e(ts::slice(1, ts::end), ts::all) %= e(ts::slice(0, -1), ts::all);
    std::vector<double> want = hd;
    for (int k = 5; k < 35; ++k) want[k] = host_remainder(hd[k], hd[k - 5]);
    EXPECT_TRUE(close(e.to_host(), want, 0.0));
  });
}
