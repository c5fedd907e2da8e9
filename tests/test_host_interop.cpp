// Host interop: to_host of views (strided sub-blocks of 1-, 2- and 3-D arrays) and of 0-d arrays
// for every element type, and from_host followed by arithmetic.

#include <cmath>
#include <cstdint>
#include <vector>

#include "support.hpp"

namespace {

using std::int32_t;
using std::int64_t;

template <class T>
class HostInterop : public TesseraTest {};
using AllTypes = ::testing::Types<bool, int32_t, int64_t, float, double>;
TYPED_TEST_SUITE(HostInterop, AllTypes);

struct Block {
  ts::Shape shape;
  std::vector<int64_t> lo, hi;
};

// Sub-blocks that are strided in memory (column ranges, interior boxes) and blocks that lie in
// the tiles of only some ranks.
const std::vector<Block> kBlocks = {
    {{10}, {3}, {8}},
    {{10}, {9}, {10}},
    {{7, 5}, {1, 1}, {6, 4}},
    {{7, 5}, {0, 2}, {7, 3}},
    {{7, 5}, {5, 0}, {7, 5}},
    {{5, 3, 7}, {1, 1, 2}, {4, 2, 6}},
    {{5, 3, 7}, {0, 0, 6}, {5, 3, 7}},
    {{5, 3, 7}, {2, 0, 0}, {3, 3, 7}},
    {{2, 9}, {1, 2}, {2, 7}},
    {{1, 5}, {0, 1}, {1, 3}},
    {{3, 1, 4}, {1, 0, 1}, {3, 1, 3}},
};

template <class T>
ts::Array<T> block_view(const ts::Array<T>& a, const Block& b) {
  switch (b.shape.size()) {
    case 1: return a(ts::slice(b.lo[0], b.hi[0]));
    case 2: return a(ts::slice(b.lo[0], b.hi[0]), ts::slice(b.lo[1], b.hi[1]));
    default: return a(ts::slice(b.lo[0], b.hi[0]), ts::slice(b.lo[1], b.hi[1]), ts::slice(b.lo[2], b.hi[2]));
  }
}

template <class R>
double tol() {
  return std::is_same_v<R, float> ? 1e-6 : 1e-12;
}

}  // namespace

TYPED_TEST(HostInterop, ToHostOfViews) {
  using T = TypeParam;
  for (const Block& b : kBlocks) {
    SCOPED_TRACE(::testing::PrintToString(b.shape) + " " + ::testing::PrintToString(b.lo) + " " +
                 ::testing::PrintToString(b.hi));
    const auto h = test_values<T>(volume_of(b.shape), 1);
    auto a = ts::from_host<T>(b.shape, h);
    auto v = block_view(a, b);
    const auto want = host_box(h, b.shape, b.lo, b.hi);
    EXPECT_EQ(static_cast<int64_t>(want.size()), v.size());
    EXPECT_TRUE(close(v.to_host(), want, 0.0));
    // A copy of the view, and a view of the view that is the whole view.
    EXPECT_TRUE(close(ts::copy(v).to_host(), want, 0.0));
    EXPECT_TRUE(close(v(ts::all).to_host(), want, 0.0));
    // Results computed on a view come back in the view's row-major order too.
    if constexpr (!std::is_same_v<T, bool>) {
      std::vector<T> twice;
      for (T x : want) twice.push_back(static_cast<T>(x * 2));
      EXPECT_TRUE(close((v * 2).to_host(), twice, tol<T>()));
    } else {
      std::vector<bool> inv;
      for (bool x : want) inv.push_back(!x);
      EXPECT_EQ((v == false).to_host(), inv);
    }
  }
}

TYPED_TEST(HostInterop, ToHostOfZeroDimArrays) {
  using T = TypeParam;
  const auto h = test_values<T>(35, 2);
  auto a = ts::from_host<T>({7, 5}, h);
  T mx = h[0];
  for (T x : h) mx = std::max<T>(mx, x);
  const auto m = ts::max(a).to_host();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0], mx);
  const auto s = ts::sum(a).to_host();
  ASSERT_EQ(s.size(), 1u);
  double hs = 0;
  for (T x : h) hs += static_cast<double>(x);
  EXPECT_NEAR(static_cast<double>(s[0]), hs, tol<T>() * std::max(1.0, std::abs(hs)));
  // A 0-d result of arithmetic on 0-d arrays.
  auto t = ts::max(a) * 1 + ts::min(a);
  using R = typename decltype(t)::value_type;
  const auto th = t.to_host();
  ASSERT_EQ(th.size(), 1u);
  T mn = h[0];
  for (T x : h) mn = std::min<T>(mn, x);
  R want;
  if constexpr (std::is_same_v<R, bool>)
    want = (mx && true) || mn;
  else
    want = static_cast<R>(static_cast<R>(mx) * static_cast<R>(1) + static_cast<R>(mn));
  EXPECT_EQ(th[0], want);
}

TYPED_TEST(HostInterop, FromHostThenArithmetic) {
  using T = TypeParam;
  for (const ts::Shape& shape : std::vector<ts::Shape>{{10}, {7, 5}, {5, 3, 7}, {2, 9}, {1, 5}}) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const int64_t n = volume_of(shape);
    const auto ha = test_values<T>(n, 3), hb = test_values<T>(n, 4);
    auto a = ts::from_host<T>(shape, ha);
    auto b = ts::from_host<T>(shape, hb);
    // Mixed with arrays created other ways (zeros, full) and with a scalar.
    auto z = ts::zeros<T>(shape);
    auto c = a * b + z;
    auto d = ts::where(a, b, ts::full<T>(shape, 1));
    std::vector<T> want_c, want_d;
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>)
        want_c.push_back(ha[i] && hb[i]);
      else
        want_c.push_back(static_cast<T>(ha[i] * hb[i]));
      want_d.push_back(ha[i] != T(0) ? hb[i] : T(1));
    }
    EXPECT_TRUE(close(c.to_host(), want_c, tol<T>()));
    EXPECT_TRUE(close(d.to_host(), want_d, 0.0));
    // In-place updates of an array made by from_host, then back to the host.
    if constexpr (!std::is_same_v<T, bool>) {
      a += b;
      a *= 3;
      std::vector<T> want_a;
      for (int64_t i = 0; i < n; ++i) want_a.push_back(static_cast<T>((ha[i] + hb[i]) * 3));
      EXPECT_TRUE(close(a.to_host(), want_a, tol<T>()));
    }
  }
}

TEST_F(TesseraTest, FromHostDoubleWithArange) {
  // from_host and arange give the same tiling for a 1-D shape; results must be exact.
  const int64_t n = 13;
  std::vector<double> h;
  for (int64_t i = 0; i < n; ++i) h.push_back(std::sin(0.3 * static_cast<double>(i)));
  auto a = ts::from_host<double>({n}, h);
  auto x = ts::arange<double>(n);
  auto y = a * x - ts::linspace<double>(0, 1, n);
  std::vector<double> want;
  for (int64_t i = 0; i < n; ++i) want.push_back(h[i] * static_cast<double>(i) - static_cast<double>(i) * (1.0 / 12.0));
  want.back() = h[n - 1] * static_cast<double>(n - 1) - 1.0;
  EXPECT_TRUE(close(y.to_host(), want));
  // to_host is a snapshot: later updates do not change it.
  auto snap = y.to_host();
  y += 1.0;
  EXPECT_TRUE(close(snap, want));
}

TEST_F(TesseraTest, ToHostOfViewResults) {
  // Arrays created from views inherit the view's tiling; to_host must still return row-major data.
  const ts::Shape shape{7, 5};
  const auto h = test_values<double>(35, 5);
  auto a = ts::from_host<double>(shape, h);
  auto inner = a(ts::slice(1, -1), ts::slice(1, -1));
  auto shifted = a(ts::slice(2, ts::end), ts::slice(0, -2));
  auto r = inner + shifted;
  const auto hi = host_box(h, shape, {1, 1}, {6, 4});
  const auto hs = host_box(h, shape, {2, 0}, {7, 3});
  std::vector<double> want;
  for (std::size_t i = 0; i < hi.size(); ++i) want.push_back(hi[i] + hs[i]);
  EXPECT_EQ(r.shape(), (ts::Shape{5, 3}));
  EXPECT_TRUE(close(r.to_host(), want));
  // A view of that result.
  auto rv = r(ts::slice(1, 3), ts::slice(-2, ts::end));
  EXPECT_TRUE(close(rv.to_host(), host_box(want, {5, 3}, {1, 1}, {3, 3})));
  // Combining a result with a fresh array of the same shape (different tilings).
  const auto hf = test_values<double>(15, 6);
  auto f = ts::from_host<double>({5, 3}, hf);
  std::vector<double> want2;
  for (std::size_t i = 0; i < want.size(); ++i) want2.push_back(want[i] - 2.0 * hf[i]);
  EXPECT_TRUE(close((r - 2.0 * f).to_host(), want2));
  EXPECT_TRUE(close((2.0 * f - r).to_host(), [&] {
    std::vector<double> w;
    for (double x : want2) w.push_back(-x);
    return w;
  }()));
}
