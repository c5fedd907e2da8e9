// Broadcasting by NumPy's rules (shapes aligned at the right; axes of length 1 or missing stretch)
// for the binary operators, where, assign and compound assignment; NumPy's error for shapes that
// do not broadcast; and what the runtime does with a stretched operand: it is read with stride 0
// inside the fused kernel, fetched once per group, never materialized at the full shape.

#include <cstdint>
#include <vector>

#include "support.hpp"

namespace {

using std::int64_t;

// Row-major strides of `shape` as seen from a broadcast result of `out` (0 on stretched axes).
std::vector<int64_t> broadcast_strides(const ts::Shape& shape, const ts::Shape& out) {
  std::vector<int64_t> own(shape.size(), 1), s(out.size(), 0);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) own[d] = own[d + 1] * shape[d + 1];
  const std::size_t pad = out.size() - shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d) s[pad + d] = shape[d] == 1 ? 0 : own[d];
  return s;
}

ts::Shape host_broadcast(const ts::Shape& a, const ts::Shape& b) {
  ts::Shape out(std::max(a.size(), b.size()), 1);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1, y = k < b.size() ? b[b.size() - 1 - k] : 1;
    out[out.size() - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

// out[i] = f(a[broadcast i], b[broadcast i]) on the host.
template <class R, class A, class B, class F>
std::vector<R> host_binary(const std::vector<A>& a, const ts::Shape& sa, const std::vector<B>& b, const ts::Shape& sb,
                           F f) {
  const ts::Shape out = host_broadcast(sa, sb);
  const auto ta = broadcast_strides(sa, out), tb = broadcast_strides(sb, out);
  std::vector<R> r;
  const int64_t n = volume_of(out);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
      const int64_t x = rest % out[d];
      rest /= out[d];
      ia += x * ta[d], ib += x * tb[d];
    }
    r.push_back(f(a[ia], b[ib]));
  }
  return r;
}

struct Pair {
  ts::Shape a, b;
};
const std::vector<Pair> kPairs = {
    {{7, 5}, {1, 5}},       {{7, 5}, {5}},          {{7, 1}, {1, 5}}, {{5, 3, 7}, {3, 1}},
    {{4, 1, 3}, {1, 5, 3}}, {{9}, {9, 1}},          {{2, 9}, {2, 1}}, {{1}, {3, 4}},
    {{6, 1, 1}, {4, 5}},    {{3, 4, 5}, {3, 4, 5}}, {{5}, {1}},       {{1, 1, 7}, {7, 1}},
};

}  // namespace

TEST_F(TesseraTest, BinaryOperatorsBroadcast) {
  for (const Pair& p : kPairs) {
    SCOPED_TRACE(::testing::PrintToString(p.a) + " with " + ::testing::PrintToString(p.b));
    const auto ha = test_values<double>(volume_of(p.a), 1);
    const auto hb = test_values<double>(volume_of(p.b), 2, true);
    auto a = ts::from_host<double>(p.a, ha);
    auto b = ts::from_host<double>(p.b, hb);
    const ts::Shape out = host_broadcast(p.a, p.b);
    auto sum = a + b;
    EXPECT_EQ(sum.shape(), out);
    EXPECT_TRUE(close(sum.to_host(), host_binary<double>(ha, p.a, hb, p.b, [](double x, double y) { return x + y; })));
    // The other operand first, another operator, and a chain that reuses both.
    EXPECT_TRUE(close((b / a(ts::all)).to_host(),
                      host_binary<double>(hb, p.b, ha, p.a, [](double x, double y) { return x / y; })));
    auto chain = (a - b) * (a + 2.0 * b);
    EXPECT_TRUE(close(chain.to_host(), host_binary<double>(ha, p.a, hb, p.b, [](double x, double y) {
                        return (x - y) * (x + 2.0 * y);
                      })));
    // Mixed dtypes promote as usual; comparisons give bool.
    const auto hi = test_values<std::int32_t>(volume_of(p.b), 3);
    auto i = ts::from_host<std::int32_t>(p.b, hi);
    EXPECT_TRUE(close((a * i).to_host(),
                      host_binary<double>(ha, p.a, hi, p.b, [](double x, std::int32_t y) { return x * y; })));
    EXPECT_EQ((a < i).to_host(), host_binary<bool>(ha, p.a, hi, p.b, [](double x, std::int32_t y) { return x < y; }));
  }
}

TEST_F(TesseraTest, WhereBroadcastsAllThreeOperands) {
  const ts::Shape sc{7, 1}, sx{1, 5}, sy{5};
  const auto hc = test_values<bool>(7, 4);
  const auto hx = test_values<double>(5, 5), hy = test_values<double>(5, 6);
  auto c = ts::from_host<bool>(sc, hc);
  auto x = ts::from_host<double>(sx, hx);
  auto y = ts::from_host<double>(sy, hy);
  auto w = ts::where(c, x, y);
  EXPECT_EQ(w.shape(), (ts::Shape{7, 5}));
  std::vector<double> want;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) want.push_back(hc[i] ? hx[j] : hy[j]);
  EXPECT_TRUE(close(w.to_host(), want, 0.0));
  auto w2 = ts::where(c, x, 0.0);  // a scalar arm
  want.clear();
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) want.push_back(hc[i] ? hx[j] : 0.0);
  EXPECT_TRUE(close(w2.to_host(), want, 0.0));
}

TEST_F(TesseraTest, AssignAndCompoundAssignmentBroadcast) {
  const ts::Shape s{6, 4, 5};
  auto ha = test_values<double>(volume_of(s), 7);
  auto a = ts::from_host<double>(s, ha);
  const auto hrow = test_values<double>(5, 8), hcol = test_values<double>(4, 9, true);
  auto row = ts::from_host<double>({5}, hrow);
  auto col = ts::from_host<double>({4, 1}, hcol);
  a += row;  // (6, 4, 5) += (5,)
  for (int64_t f = 0; f < volume_of(s); ++f) ha[f] += hrow[f % 5];
  EXPECT_TRUE(close(a.to_host(), ha));
  a /= col;  // (6, 4, 5) /= (4, 1)
  for (int64_t f = 0; f < volume_of(s); ++f) ha[f] /= hcol[(f / 5) % 4];
  EXPECT_TRUE(close(a.to_host(), ha));
  // Into a view: a[1:, 0, :] = row; a[:, :, 2] = col[:, 0] (a (4,) view broadcast over 6 rows).
  a(ts::slice(1, ts::end), 0).assign(row);
  for (int64_t i = 1; i < 6; ++i)
    for (int64_t k = 0; k < 5; ++k) ha[(i * 4 + 0) * 5 + k] = hrow[k];
  a(ts::all, ts::all, 2).assign(col(ts::all, 0));
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 4; ++j) ha[(i * 4 + j) * 5 + 2] = hcol[j];
  EXPECT_TRUE(close(a.to_host(), ha));
  // A 1-element array stretches to anything; the target's own row broadcast over it (overlap).
  a.assign(ts::from_host<double>({1, 1, 1}, {0.25}));
  for (double& x : ha) x = 0.25;
  auto m = ts::from_host<double>({3, 4}, test_values<double>(12, 10));
  auto hm = m.to_host();
  m -= m(0);  // every row minus the first one, as it was before the update
  const auto first = std::vector<double>(hm.begin(), hm.begin() + 4);
  for (int64_t f = 0; f < 12; ++f) hm[f] -= first[f % 4];
  EXPECT_TRUE(close(m.to_host(), hm));
  EXPECT_TRUE(close(a.to_host(), ha));
}

// NumPy's `a[...] = b` drops b's leading axes of length 1 first: a (1, 3) value fits a (3,) array
// and a (1, 4, 5) one a (4, 5) view; `a += b` does not (ShapesThatDoNotBroadcast).
TEST_F(TesseraTest, AssignDropsLeadingAxesOfLengthOne) {
  const auto hv = test_values<double>(3, 11);
  auto v = ts::zeros<double>({3});
  v.assign(ts::from_host<double>({1, 3}, hv));
  EXPECT_TRUE(close(v.to_host(), hv, 0.0));
  const ts::Shape s{6, 4, 5};
  auto ha = test_values<double>(volume_of(s), 12);
  auto a = ts::from_host<double>(s, ha);
  const auto hb = test_values<double>(20, 13);
  a(2).assign(ts::from_host<double>({1, 4, 5}, hb));
  for (int64_t f = 0; f < 20; ++f) ha[2 * 20 + f] = hb[f];
  EXPECT_TRUE(close(a.to_host(), ha, 0.0));
  // Leading axes longer than 1 still do not fit.
  expect_collective_error("(2, 3) into (3,)", [&] { v.assign(ts::ones<double>({2, 3})); }, {"(2, 3)", "(3,)"});
  expect_collective_error("(1, 3) += ", [&] { v += ts::ones<double>({1, 3}); }, {"(1, 3)", "(3,)"});
  EXPECT_TRUE(close(v.to_host(), hv, 0.0));
}

TEST_F(TesseraTest, ShapesThatDoNotBroadcast) {
  auto a = ts::zeros<double>({7, 5});
  auto b = ts::ones<double>({7});
  auto c = ts::ones<double>({3, 1, 4});
  expect_collective_error("(7, 5) + (7,)", [&] { auto r = a + b; },
                          {"add", "could not be broadcast", "(7, 5)", "(7,)"});
  expect_collective_error("(7, 5) * (3, 1, 4)", [&] { auto r = a * c; }, {"multiply", "(7, 5)", "(3, 1, 4)"});
  expect_collective_error("where", [&] { auto r = ts::where(a > 0.0, b, a); }, {"where", "(7,)", "(7, 5)"});
  // The result's shape must be the target's: NumPy's "non-broadcastable output operand".
  auto row = ts::ones<double>({5});
  expect_collective_error("row += matrix", [&] { row += a; }, {"(7, 5)", "(5,)"});
  expect_collective_error("assign", [&] { a.assign(b); }, {"(7,)", "(7, 5)"});
  expect_collective_error("view -=", [&] { a(ts::all, 0) -= a; }, {"(7, 5)", "(7,)"});
  // Nothing was written.
  EXPECT_TRUE(close(a.to_host(), std::vector<double>(35, 0.0), 0.0));
  EXPECT_TRUE(close(row.to_host(), std::vector<double>(5, 1.0), 0.0));
}

// (n, k) - (1, k), (n, 1, d) - (1, c, d) and (n,) * (n, 1) each fuse into one kernel with their
// consumer, and the stretched operand is fetched once: never as many bytes as the full shape.
TEST_F(TesseraTest, BroadcastOperandsFuseAndAreNeverMaterialized) {
  const int64_t n = 23, k = 6, c = 5, d = 4;
  const auto hA = test_values<double>(n * k, 11), hmu = test_values<double>(k, 12);
  auto A = ts::from_host<double>({n, k}, hA);
  auto mu = ts::from_host<double>({1, k}, hmu);
  reset_stats_now(rt());
  auto z = A - mu;
  auto s = ts::sum(z * z);
  double want = 0;
  for (int64_t i = 0; i < n * k; ++i) want += (hA[i] - hmu[i % k]) * (hA[i] - hmu[i % k]);
  const double got = s.item();
  ts::Stats st = stats_now(rt());
  EXPECT_NEAR(got, want, 1e-12 * want);
  EXPECT_EQ(st.kernels, 1);  // one fused kernel: the subtraction, the product and the sum
  // mu travels at most once to each rank: k elements, not n * k.
  EXPECT_LE(st.redistribution_bytes, k * 8);
  EXPECT_LE(all_sum(st.redistribution_bytes), rt().size() * k * 8);
  // The kernel reads A, writes z (a live handle) and reads mu's k elements once per rank:
  // bytes_accessed counts a broadcast operand as fetched, not stretched to n * k.
  EXPECT_GE(all_sum(st.bytes_accessed), 2 * n * k * 8);
  EXPECT_LE(all_sum(st.bytes_accessed), (2 * n * k + rt().size() * k) * 8);

  const auto hP = test_values<double>(n * d, 13), hC = test_values<double>(c * d, 14);
  auto P = ts::from_host<double>({n, 1, d}, hP);
  auto C = ts::from_host<double>({1, c, d}, hC);
  reset_stats_now(rt());
  auto diff = P - C;
  auto q = ts::sum(diff * diff);
  want = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t m = 0; m < d; ++m) {
        const double e = hP[i * d + m] - hC[j * d + m];
        want += e * e;
      }
  EXPECT_NEAR(q.item(), want, 1e-12 * want);
  st = stats_now(rt());
  EXPECT_EQ(st.kernels, 1);
  EXPECT_LT(all_sum(st.redistribution_bytes), n * c * d * 8);

  const auto hx = test_values<double>(n, 15);
  auto x = ts::from_host<double>({n}, hx);
  reset_stats_now(rt());
  auto outer = x * x(ts::all, ts::newaxis);  // (n,) * (n, 1) -> (n, n)
  auto t = ts::sum(outer);
  double sx = 0;
  for (double v : hx) sx += v;
  EXPECT_NEAR(t.item(), sx * sx, 1e-12 * std::max(1.0, sx * sx));
  st = stats_now(rt());
  EXPECT_EQ(st.kernels, 1);
  EXPECT_LT(all_sum(st.redistribution_bytes), n * n * 8);
  // outer written; x read as each rank's tile's rows and columns, not twice n * n.
  EXPECT_LE(all_sum(st.bytes_accessed), (n * n + 2 * n * rt().size()) * 8);
}

// Broadcast operands with fusion off (every op its own kernel) give the same values.
class UnfusedBroadcastTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.fusion = false;
    return c;
  }
};

TEST_F(UnfusedBroadcastTest, SameValuesAsFused) {
  for (const Pair& p : kPairs) {
    const auto ha = test_values<double>(volume_of(p.a), 16);
    const auto hb = test_values<double>(volume_of(p.b), 17);
    auto a = ts::from_host<double>(p.a, ha);
    auto b = ts::from_host<double>(p.b, hb);
    EXPECT_TRUE(close((a * b - a).to_host(),
                      host_binary<double>(ha, p.a, hb, p.b, [](double x, double y) { return x * y - x; })));
  }
}
