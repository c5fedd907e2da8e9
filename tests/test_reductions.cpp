// Reductions (sum prod min max mean dot norm) for every element type with NumPy's result types,
// 0-d results feeding later operations, reductions of views, of arrays whose tiles are empty on
// some ranks, of empty arrays, and item().

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "support.hpp"

namespace {

using std::int32_t;
using std::int64_t;

const std::vector<ts::Shape> kShapes = {{10}, {7, 5}, {5, 3, 7}, {2, 9}, {1, 5}, {2}, {1}, {3, 1, 2}};

// NumPy's result types: sum/prod of bool and integers are int64, mean/norm of non-float32 float64.
template <class T>
using np_sum_t = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;
template <class T>
using np_mean_t = std::conditional_t<std::is_same_v<T, float>, float, double>;

template <class R>
double tol() {
  return std::is_same_v<R, float> ? 1e-5 : 1e-12;
}

// Values for products: near 1 for floats (no overflow), nonzero for integers (wrapping is exact).
template <class T>
std::vector<T> prod_values(std::int64_t n) {
  auto v = test_values<T>(n, 5, true);
  if constexpr (std::is_floating_point_v<T>)
    for (auto& x : v) x = static_cast<T>(1.0 + static_cast<double>(x) / 64.0);
  return v;
}

template <class T>
class Reductions : public TesseraTest {};
using AllTypes = ::testing::Types<bool, int32_t, int64_t, float, double>;
TYPED_TEST_SUITE(Reductions, AllTypes);

template <class T>
std::vector<T> one(T v) {
  return std::vector<T>{v};
}

}  // namespace

TYPED_TEST(Reductions, AllKindsMatchHost) {
  using T = TypeParam;
  using S = np_sum_t<T>;
  using M = np_mean_t<T>;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 1), hb = test_values<T>(n, 2);
    const auto hp = prod_values<T>(n);
    auto a = ts::from_host<T>(shape, ha);
    auto b = ts::from_host<T>(shape, hb);
    auto p = ts::from_host<T>(shape, hp);

    auto s = ts::sum(a);
    auto pr = ts::prod(p);
    auto mn = ts::min(a);
    auto mx = ts::max(a);
    auto me = ts::mean(a);
    auto d = ts::vdot(a, b);
    auto nr = ts::norm(a);
    static_assert(std::is_same_v<decltype(s), ts::Array<S>>);
    static_assert(std::is_same_v<decltype(pr), ts::Array<S>>);
    static_assert(std::is_same_v<decltype(mn), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(mx), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(me), ts::Array<M>>);
    static_assert(std::is_same_v<decltype(d), ts::Array<T>>);
    static_assert(std::is_same_v<decltype(nr), ts::Array<M>>);
    EXPECT_EQ(s.ndim(), 0);
    EXPECT_EQ(s.size(), 1);
    EXPECT_TRUE(s.shape().empty());

    // Host references: integer sums and products wrap in int64 (exact in any order); floats
    // accumulate in double.
    double fsum = 0, fprod = 1, fsq = 0;
    std::uint64_t isum = 0, iprod = 1;
    T lo = ha[0], hi = ha[0];
    for (std::int64_t i = 0; i < n; ++i) {
      fsum += static_cast<double>(ha[i]);
      fprod *= static_cast<double>(hp[i]);
      isum += static_cast<std::uint64_t>(static_cast<int64_t>(ha[i]));
      iprod *= static_cast<std::uint64_t>(static_cast<int64_t>(hp[i]));
      fsq += static_cast<double>(ha[i]) * static_cast<double>(ha[i]);
      lo = std::min<T>(lo, ha[i]);
      hi = std::max<T>(hi, ha[i]);
    }
    S want_sum, want_prod;
    T want_dot;
    if constexpr (std::is_floating_point_v<T>) {
      want_sum = static_cast<S>(fsum);
      want_prod = static_cast<S>(fprod);
      double acc = 0;
      for (std::int64_t i = 0; i < n; ++i) acc += static_cast<double>(static_cast<T>(ha[i] * hb[i]));
      want_dot = static_cast<T>(acc);
    } else if constexpr (std::is_same_v<T, bool>) {
      want_sum = static_cast<S>(isum);
      want_prod = static_cast<S>(iprod);
      bool any = false;
      for (std::int64_t i = 0; i < n; ++i) any = any || (ha[i] && hb[i]);
      want_dot = any;
    } else {
      want_sum = static_cast<S>(isum);
      want_prod = static_cast<S>(iprod);
      int64_t acc = 0;
      for (std::int64_t i = 0; i < n; ++i) acc += static_cast<int64_t>(ha[i]) * static_cast<int64_t>(hb[i]);
      want_dot = static_cast<T>(acc);
    }
    EXPECT_TRUE(close(s.to_host(), one<S>(want_sum), tol<S>()));
    EXPECT_TRUE(close(pr.to_host(), one<S>(want_prod), tol<S>()));
    EXPECT_TRUE(close(mn.to_host(), one<T>(lo), 0.0));
    EXPECT_TRUE(close(mx.to_host(), one<T>(hi), 0.0));
    EXPECT_TRUE(close(me.to_host(), one<M>(static_cast<M>(fsum / static_cast<double>(n))), tol<M>()));
    EXPECT_TRUE(close(d.to_host(), one<T>(want_dot), tol<T>()));
    EXPECT_TRUE(close(nr.to_host(), one<M>(static_cast<M>(std::sqrt(fsq))), tol<M>()));
    // item() gives the same values.
    EXPECT_EQ(s.item(), s.to_host()[0]);
    EXPECT_EQ(mx.item(), hi);
  }
}

TEST_F(TesseraTest, ReductionResultTypesMixed) {
  auto i = ts::from_host<int32_t>({4}, {1, -2, 3, 4});
  auto f = ts::from_host<float>({4}, {0.5f, 0.25f, -1.0f, 2.0f});
  auto d = ts::dot(i, f);  // promoted: float64
  static_assert(std::is_same_v<decltype(d), ts::Array<double>>);
  EXPECT_TRUE(close(d.to_host(), std::vector<double>{0.5 - 0.5 - 3.0 + 8.0}));
  auto l = ts::from_host<int64_t>({4}, {1LL << 40, 1, 1, 1});
  auto e = ts::dot(i, l);  // int64
  static_assert(std::is_same_v<decltype(e), ts::Array<int64_t>>);
  EXPECT_EQ(e.item(), (1LL << 40) - 2 + 3 + 4);
  // int32 sums do not wrap at 32 bits: NumPy sums int32 in int64.
  auto big = ts::full<int32_t>({7, 5}, std::numeric_limits<int32_t>::max());
  EXPECT_EQ(ts::sum(big).item(), 35LL * std::numeric_limits<int32_t>::max());
  auto bools = ts::full<bool>({5, 3, 7}, true);
  EXPECT_EQ(ts::sum(bools).item(), 105);
  EXPECT_EQ(ts::mean(bools).item(), 1.0);
}

TEST_F(TesseraTest, ZeroDimResultsFeedLaterOps) {
  const ts::Shape shape{7, 5};
  const auto ha = test_values<double>(35, 1), hb = test_values<double>(35, 2);
  auto a = ts::from_host<double>(shape, ha);
  auto b = ts::from_host<double>(shape, hb);
  double hs = 0, hd = 0, hmax = ha[0];
  for (int i = 0; i < 35; ++i) hs += ha[i], hd += ha[i] * hb[i], hmax = std::max(hmax, ha[i]);
  const double alpha_h = hs / hd;

  auto alpha = ts::sum(a) / ts::vdot(a, b);
  static_assert(std::is_same_v<decltype(alpha), ts::Array<double>>);
  EXPECT_EQ(alpha.ndim(), 0);
  auto c = a * alpha;
  auto c2 = alpha * a + ts::max(a);
  auto c3 = 1.0 - ts::sqrt(ts::vdot(a, a)) / a;
  EXPECT_EQ(c.shape(), shape);
  EXPECT_EQ(c2.shape(), shape);
  std::vector<double> want_c, want_c2, want_c3;
  double hn = 0;
  for (int i = 0; i < 35; ++i) hn += ha[i] * ha[i];
  for (int i = 0; i < 35; ++i) {
    want_c.push_back(ha[i] * alpha_h);
    want_c2.push_back(alpha_h * ha[i] + hmax);
    want_c3.push_back(1.0 - std::sqrt(hn) / ha[i]);
  }
  EXPECT_TRUE(close(c.to_host(), want_c));
  EXPECT_TRUE(close(c2.to_host(), want_c2));
  EXPECT_TRUE(close(c3.to_host(), want_c3));
  EXPECT_TRUE(close(alpha.to_host(), std::vector<double>{alpha_h}));

  // 0-d operands of in-place updates and of where's condition.
  auto x = ts::copy(b);
  x -= alpha * a;
  x += ts::mean(a);
  std::vector<double> want_x;
  for (int i = 0; i < 35; ++i) want_x.push_back(hb[i] - alpha_h * ha[i] + hs / 35.0);
  EXPECT_TRUE(close(x.to_host(), want_x));
  auto w1 = ts::where(ts::sum(a) > hs - 1.0, a, b);
  auto w0 = ts::where(ts::sum(a) < hs - 1.0, a, b);
  EXPECT_TRUE(close(w1.to_host(), ha));
  EXPECT_TRUE(close(w0.to_host(), hb));
  // In-place updates of 0-d results, then used with arrays (views included).
  auto t = ts::sum(a) - ts::min(a);
  t /= ts::sum(a);
  t += 1;
  auto r = t + b(ts::slice(1, -1), ts::all);
  const double hmin = *std::min_element(ha.begin(), ha.end());
  const double th = (hs - hmin) / hs + 1.0;
  EXPECT_TRUE(close(t.to_host(), std::vector<double>{th}));
  std::vector<double> want_r;
  for (int i = 5; i < 30; ++i) want_r.push_back(th + hb[i]);
  EXPECT_TRUE(close(r.to_host(), want_r));
  auto u = ts::vdot(ts::cos(a), b);
  auto u2 = u - ts::max(a);
  u2 /= u;
  auto r2 = u2 + b(ts::all, ts::slice(1, -1));
  double hu = 0;
  for (int i = 0; i < 35; ++i) hu += std::cos(ha[i]) * hb[i];
  const double u2h = (hu - hmax) / hu;
  std::vector<double> want_r2;
  for (int i = 0; i < 7; ++i)
    for (int j = 1; j < 4; ++j) want_r2.push_back(u2h + hb[i * 5 + j]);
  EXPECT_TRUE(close(r2.to_host(), want_r2, 1e-11));
  // 0-d arithmetic stays 0-d; mixing 0-d types promotes.
  auto k = ts::sum(ts::from_host<int32_t>({3}, {1, 2, 3})) * 2 + ts::max(a);
  static_assert(std::is_same_v<decltype(k), ts::Array<double>>);
  EXPECT_EQ(k.ndim(), 0);
  EXPECT_TRUE(close(k.to_host(), std::vector<double>{12.0 + hmax}));
}

TEST_F(TesseraTest, ConjugateGradientStyleLoop) {
  // A few steps of steepest descent on a diagonal system, scalars kept as 0-d arrays throughout.
  const ts::Shape shape{5, 3, 7};
  const std::int64_t n = 105;
  std::vector<double> hdiag, hb;
  for (std::int64_t i = 0; i < n; ++i) hdiag.push_back(2.0 + (i % 5)), hb.push_back(1.0 + 0.1 * (i % 11));
  auto diag = ts::from_host<double>(shape, hdiag);
  auto rhs = ts::from_host<double>(shape, hb);
  auto x = ts::zeros<double>(shape);
  auto r = ts::copy(rhs);
  std::vector<double> hx(n, 0.0), hr = hb;
  for (int it = 0; it < 4; ++it) {
    auto q = diag * r;
    auto alpha = ts::vdot(r, r) / ts::vdot(r, q);
    x += alpha * r;
    r -= alpha * q;
    double rr = 0, rq = 0;
    for (std::int64_t i = 0; i < n; ++i) rr += hr[i] * hr[i], rq += hr[i] * hdiag[i] * hr[i];
    const double ah = rr / rq;
    for (std::int64_t i = 0; i < n; ++i) hx[i] += ah * hr[i], hr[i] -= ah * hdiag[i] * hr[i];
  }
  EXPECT_TRUE(close(x.to_host(), hx, 1e-11));
  EXPECT_TRUE(close(r.to_host(), hr, 1e-11));
  double hn = 0;
  for (double v : hr) hn += v * v;
  EXPECT_NEAR(ts::norm(r).item(), std::sqrt(hn), 1e-11);
}

TEST_F(TesseraTest, ReductionsOfViews) {
  const ts::Shape shape{5, 3, 7};
  const auto ha = test_values<double>(105, 3);
  auto a = ts::from_host<double>(shape, ha);
  struct Box {
    std::vector<int64_t> lo, hi;
  };
  auto v1 = a(ts::slice(1, -1), ts::all, ts::slice(2, ts::end));
  auto v2 = a(ts::slice(-2, ts::end), ts::slice(1, 2), ts::slice(0, -3));
  auto v3 = v1(ts::slice(1, ts::end), ts::slice(0, -1));  // a view of a view
  const std::vector<std::pair<ts::Array<double>, Box>> cases = {
      {v1, {{1, 0, 2}, {4, 3, 7}}}, {v2, {{3, 1, 0}, {5, 2, 4}}}, {v3, {{2, 0, 2}, {4, 2, 7}}}};
  for (const auto& [v, box] : cases) {
    const auto hv = host_box(ha, shape, box.lo, box.hi);
    ASSERT_EQ(static_cast<int64_t>(hv.size()), v.size());
    double s = 0, sq = 0, lo = hv[0], hi = hv[0];
    for (double x : hv) s += x, sq += x * x, lo = std::min(lo, x), hi = std::max(hi, x);
    EXPECT_NEAR(ts::sum(v).item(), s, 1e-12 * std::max(1.0, std::abs(s)));
    EXPECT_NEAR(ts::mean(v).item(), s / static_cast<double>(hv.size()), 1e-12);
    EXPECT_EQ(ts::min(v).item(), lo);
    EXPECT_EQ(ts::max(v).item(), hi);
    EXPECT_NEAR(ts::norm(v).item(), std::sqrt(sq), 1e-12 * std::sqrt(sq));
    EXPECT_NEAR(ts::vdot(v, v).item(), sq, 1e-12 * sq);
  }
  // dot of two differently offset views of the same array (needs data from neighbours).
  auto x = ts::from_host<double>({10}, test_values<double>(10, 4));
  const auto hx = test_values<double>(10, 4);
  double want = 0;
  for (int i = 0; i < 9; ++i) want += hx[i] * hx[i + 1];
  EXPECT_NEAR(ts::dot(x(ts::slice(0, -1)), x(ts::slice(1, ts::end))).item(), want, 1e-12 * std::abs(want) + 1e-15);
  auto y = ts::arange<int32_t>(10);
  auto w = y(ts::slice(5, ts::end));
  EXPECT_EQ(ts::dot(y(ts::slice(0, 5)), w).item(), 0 * 5 + 1 * 6 + 2 * 7 + 3 * 8 + 4 * 9);
}

TEST_F(TesseraTest, ReductionsWithEmptyTiles) {
  // Shapes with fewer rows than ranks leave some ranks without elements; identities must not leak
  // into the result (all-negative max, all-positive min, int32 and float types).
  for (const ts::Shape& shape : std::vector<ts::Shape>{{2, 9}, {1, 5}, {2}, {1, 1, 3}, {3, 1, 1}}) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    std::vector<int32_t> neg, pos;
    std::vector<float> fneg;
    for (std::int64_t i = 0; i < n; ++i) {
      neg.push_back(static_cast<int32_t>(-3 - (i * 7) % 5));
      pos.push_back(static_cast<int32_t>(4 + (i * 3) % 7));
      fneg.push_back(static_cast<float>(-1.5 - static_cast<double>(i % 4)));
    }
    auto a = ts::from_host<int32_t>(shape, neg);
    auto b = ts::from_host<int32_t>(shape, pos);
    auto f = ts::from_host<float>(shape, fneg);
    EXPECT_EQ(ts::max(a).item(), *std::max_element(neg.begin(), neg.end()));
    EXPECT_EQ(ts::min(b).item(), *std::min_element(pos.begin(), pos.end()));
    EXPECT_EQ(ts::max(f).item(), *std::max_element(fneg.begin(), fneg.end()));
    EXPECT_EQ(ts::min(-f).item(), -*std::max_element(fneg.begin(), fneg.end()));
    int64_t s = 0, p = 1;
    for (std::int64_t i = 0; i < n; ++i) s += neg[i], p *= pos[i];
    EXPECT_EQ(ts::sum(a).item(), s);
    EXPECT_EQ(ts::prod(b).item(), p);
    EXPECT_NEAR(ts::mean(b).item(), static_cast<double>(std::accumulate(pos.begin(), pos.end(), 0LL)) / n, 1e-12);
  }
  // A view that lies in the tiles of only some ranks.
  auto g = ts::from_host<double>({4, 6}, test_values<double>(24, 7));
  const auto hg = test_values<double>(24, 7);
  auto top = g(ts::slice(0, 1), ts::slice(4, ts::end));
  const auto ht = host_box(hg, {4, 6}, {0, 4}, {1, 6});
  EXPECT_NEAR(ts::sum(top).item(), ht[0] + ht[1], 1e-12);
  EXPECT_EQ(ts::max(top).item(), std::max(ht[0], ht[1]));
  EXPECT_EQ(ts::min(top).item(), std::min(ht[0], ht[1]));
}

TEST_F(TesseraTest, EmptyArrayReductions) {
  EXPECT_EQ(ts::sum(ts::zeros<double>({0})).item(), 0.0);
  EXPECT_EQ(ts::sum(ts::ones<int32_t>({3, 0})).item(), 0);
  EXPECT_EQ(ts::sum(ts::ones<bool>({0, 2, 2})).item(), 0);
  EXPECT_EQ(ts::prod(ts::ones<double>({0})).item(), 1.0);
  EXPECT_EQ(ts::prod(ts::full<int64_t>({2, 0}, 5)).item(), 1);
  EXPECT_EQ(ts::dot(ts::ones<float>({0}), ts::ones<float>({0})).item(), 0.0f);
  EXPECT_EQ(ts::norm(ts::ones<double>({0, 3})).item(), 0.0);
  EXPECT_TRUE(std::isnan(ts::mean(ts::ones<double>({0})).item()));  // NumPy: nan (with a warning)
  auto a = ts::arange<double>(10);
  EXPECT_EQ(ts::sum(a(ts::slice(4, 4))).item(), 0.0);
  EXPECT_EQ(ts::sum(a(ts::slice(-3, -3))).item(), 0.0);
  // min/max have no identity: NumPy raises ValueError.
  EXPECT_THROW(ts::min(ts::zeros<double>({0})), ts::Error);
  EXPECT_THROW(ts::max(a(ts::slice(2, 2))), ts::Error);
}

TEST_F(TesseraTest, ReductionsOfZeroDimResults) {
  const auto ha = test_values<int32_t>(35, 2);
  auto a = ts::from_host<int32_t>({7, 5}, ha);
  int64_t hs = 0;
  for (auto v : ha) hs += v;
  auto s = ts::sum(a);
  auto m = ts::mean(s);
  static_assert(std::is_same_v<decltype(m), ts::Array<double>>);
  EXPECT_EQ(m.ndim(), 0);
  EXPECT_EQ(m.item(), static_cast<double>(hs));
  EXPECT_EQ(ts::sum(s).item(), hs);
  EXPECT_EQ(ts::max(s).item(), hs);
  EXPECT_EQ(ts::prod(s).item(), hs);
  EXPECT_EQ(ts::norm(s).item(), std::abs(static_cast<double>(hs)));
  // Consecutive in-place updates of a 0-d array each see the previous one's value.
  auto g = s * 1;
  g += 1;
  g += 1;
  g *= 3;
  EXPECT_EQ(g.item(), (hs + 2) * 3);
  auto mf = ts::mean(ts::mean(ts::from_host<float>({3}, {1.0f, 2.0f, 4.5f})));
  static_assert(std::is_same_v<decltype(mf), ts::Array<float>>);
  EXPECT_FLOAT_EQ(mf.item(), 2.5f);
}

TEST_F(TesseraTest, ItemOnSizeOneArrays) {
  EXPECT_EQ(ts::from_host<double>({1}, {3.5}).item(), 3.5);
  EXPECT_EQ(ts::full<int64_t>({1}, -7).item(), -7);
  EXPECT_EQ(ts::full<bool>({1, 1}, true).item(), true);
  EXPECT_EQ(ts::full<float>({1, 1, 1}, 0.25f).item(), 0.25f);
  const auto ha = test_values<double>(35, 9);
  auto a = ts::from_host<double>({7, 5}, ha);
  EXPECT_EQ(a(ts::slice(4, 5), ts::slice(-2, -1)).item(), ha[4 * 5 + 3]);
  auto x = ts::arange<int32_t>(10);
  EXPECT_EQ(x(ts::slice(-4, -3)).item(), 6);
  EXPECT_THROW(a.item(), ts::Error);
  EXPECT_THROW(x(ts::slice(2, 2)).item(), ts::Error);
}
