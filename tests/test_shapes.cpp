// Shape operations and diagonals against host references: reshape (row-major), transpose (with
// axes), concatenate / hstack / vstack, roll (and that it moves only what crosses a tile boundary
// or wraps around), diag both ways; and their bad inputs.

#include <cstdint>
#include <numeric>
#include <vector>

#include "support.hpp"

namespace {

using std::int64_t;

std::vector<int64_t> strides_of(const ts::Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

// Calls f(flat index in `shape`, multi-index) for every element in row-major order.
template <class F>
void for_each_index(const ts::Shape& shape, F f) {
  std::vector<int64_t> x(shape.size(), 0);
  const int64_t n = volume_of(shape);
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) x[d] = rest % shape[d], rest /= shape[d];
    f(k, x);
  }
}

}  // namespace

TEST_F(TesseraTest, ReshapeIsRowMajor) {
  const std::vector<std::pair<ts::Shape, ts::Shape>> cases = {
      {{35}, {7, 5}},       {{7, 5}, {35}},    {{7, 5}, {5, 7}}, {{5, 3, 7}, {15, 7}}, {{5, 3, 7}, {7, 15}},
      {{6, 10}, {3, 4, 5}}, {{3, 4, 5}, {60}}, {{2, 9}, {9, 2}}, {{1, 13}, {13, 1}},   {{4, 6}, {2, 3, 4}}};
  for (const auto& [from, to] : cases) {
    SCOPED_TRACE(::testing::PrintToString(from) + " -> " + ::testing::PrintToString(to));
    const auto h = test_values<double>(volume_of(from), 1);
    auto a = ts::from_host<double>(from, h);
    auto r = ts::reshape(a, to);
    EXPECT_EQ(r.shape(), to);
    EXPECT_TRUE(close(r.to_host(), h, 0.0));
    // The result is an ordinary array: ops on it and reshaping back.
    auto back = ts::reshape(r * 2.0, from);
    std::vector<double> twice;
    for (double x : h) twice.push_back(2.0 * x);
    EXPECT_TRUE(close(back.to_host(), twice, 0.0));
  }
  // One extent -1, inferred from the size (NumPy's spelling).
  const auto h35 = test_values<double>(35, 3);
  auto a35 = ts::from_host<double>({7, 5}, h35);
  for (const auto& [asked, want] : std::vector<std::pair<ts::Shape, ts::Shape>>{
           {{-1}, {35}}, {{5, -1}, {5, 7}}, {{-1, 5}, {7, 5}}, {{1, -1, 7}, {1, 5, 7}}}) {
    SCOPED_TRACE(::testing::PrintToString(asked));
    auto r = ts::reshape(a35, asked);
    EXPECT_EQ(r.shape(), want);
    EXPECT_TRUE(close(r.to_host(), h35, 0.0));
  }
  // Of a strided view, and of integers.
  const auto h = test_values<std::int32_t>(60, 2);
  auto a = ts::from_host<std::int32_t>({6, 10}, h);
  auto r = ts::reshape(a(ts::slice(0, ts::end, 2), ts::slice(1, ts::end, 2)), {5, 3});
  std::vector<std::int32_t> want;
  for (int64_t i = 0; i < 6; i += 2)
    for (int64_t j = 1; j < 10; j += 2) want.push_back(h[i * 10 + j]);
  EXPECT_EQ(r.to_host(), want);
}

TEST_F(TesseraTest, TransposeWithAndWithoutAxes) {
  const ts::Shape s2{7, 5}, s3{5, 3, 4};
  const auto h2 = test_values<double>(35, 3), h3 = test_values<double>(60, 4);
  auto a = ts::from_host<double>(s2, h2);
  auto b = ts::from_host<double>(s3, h3);
  auto at = ts::transpose(a);
  EXPECT_EQ(at.shape(), (ts::Shape{5, 7}));
  std::vector<double> want;
  for (int64_t j = 0; j < 5; ++j)
    for (int64_t i = 0; i < 7; ++i) want.push_back(h2[i * 5 + j]);
  EXPECT_TRUE(close(at.to_host(), want, 0.0));
  const std::vector<std::vector<int>> perms = {{0, 1, 2}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}, {0, 2, 1}, {-1, 0, -2}};
  for (const auto& perm : perms) {
    SCOPED_TRACE(::testing::PrintToString(perm));
    auto bt = ts::transpose(b, perm);
    std::vector<int> p;
    for (int x : perm) p.push_back(x < 0 ? x + 3 : x);
    const ts::Shape out{s3[p[0]], s3[p[1]], s3[p[2]]};
    EXPECT_EQ(bt.shape(), out);
    const auto st = strides_of(s3);
    std::vector<double> w;
    for_each_index(out, [&](int64_t, const std::vector<int64_t>& x) {
      int64_t f = 0;
      for (int d = 0; d < 3; ++d) f += x[d] * st[p[d]];
      w.push_back(h3[f]);
    });
    EXPECT_TRUE(close(bt.to_host(), w, 0.0));
  }
  // Transposes compose with arithmetic on arrays of the transposed shape.
  auto c = ts::transpose(a) + ts::from_host<double>({5, 7}, want);
  std::vector<double> twice;
  for (double x : want) twice.push_back(2 * x);
  EXPECT_TRUE(close(c.to_host(), twice, 0.0));
}

TEST_F(TesseraTest, ConcatenateAndStacks) {
  const auto ha = test_values<double>(3 * 4, 5), hb = test_values<double>(5 * 4, 6), hc = test_values<double>(3 * 2, 7);
  auto a = ts::from_host<double>({3, 4}, ha);
  auto b = ts::from_host<double>({5, 4}, hb);
  auto c = ts::from_host<double>({3, 2}, hc);
  auto ab = ts::concatenate({a, b}, 0);
  EXPECT_EQ(ab.shape(), (ts::Shape{8, 4}));
  std::vector<double> want = ha;
  want.insert(want.end(), hb.begin(), hb.end());
  EXPECT_TRUE(close(ab.to_host(), want, 0.0));
  auto ac = ts::concatenate({a, c, a}, -1);
  EXPECT_EQ(ac.shape(), (ts::Shape{3, 10}));
  want.clear();
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 4; ++j) want.push_back(ha[i * 4 + j]);
    for (int64_t j = 0; j < 2; ++j) want.push_back(hc[i * 2 + j]);
    for (int64_t j = 0; j < 4; ++j) want.push_back(ha[i * 4 + j]);
  }
  EXPECT_TRUE(close(ac.to_host(), want, 0.0));
  EXPECT_TRUE(close(ts::hstack({a, c, a}).to_host(), want, 0.0));
  EXPECT_EQ(ts::vstack({a, b}).shape(), (ts::Shape{8, 4}));
  // 1-D: hstack joins them, vstack makes rows.
  const auto hx = test_values<std::int64_t>(5, 8), hy = test_values<std::int64_t>(5, 9);
  auto x = ts::from_host<std::int64_t>({5}, hx);
  auto y = ts::from_host<std::int64_t>({5}, hy);
  std::vector<std::int64_t> xy = hx;
  xy.insert(xy.end(), hy.begin(), hy.end());
  EXPECT_EQ(ts::hstack({x, y}).to_host(), xy);
  auto rows = ts::vstack({x, y, x});
  EXPECT_EQ(rows.shape(), (ts::Shape{3, 5}));
  xy.insert(xy.end(), hx.begin(), hx.end());
  EXPECT_EQ(rows.to_host(), xy);
  // 3-D along the middle axis, with an empty piece.
  auto p = ts::from_host<double>({2, 3, 2}, test_values<double>(12, 10));
  auto q = ts::zeros<double>({2, 0, 2});
  auto pq = ts::concatenate({p, q, p}, 1);
  EXPECT_EQ(pq.shape(), (ts::Shape{2, 6, 2}));
  const auto hp = p.to_host();
  want.clear();
  for (int64_t i = 0; i < 2; ++i)
    for (int rep = 0; rep < 2; ++rep)
      for (int64_t k = 0; k < 6; ++k) want.push_back(hp[i * 6 + k]);
  EXPECT_TRUE(close(pq.to_host(), want, 0.0));
}

TEST_F(TesseraTest, RollAlongEachAxis) {
  const ts::Shape s{7, 6};
  const auto h = test_values<double>(42, 11);
  auto a = ts::from_host<double>(s, h);
  for (int axis : {0, 1, -1})
    for (int64_t shift : {0, 1, -1, 3, -8, 13, 42}) {
      SCOPED_TRACE(::testing::Message() << "axis " << axis << " shift " << shift);
      auto r = ts::roll(a, shift, axis);
      const int ax = axis < 0 ? axis + 2 : axis;
      const int64_t n = s[ax];
      std::vector<double> want(42);
      for_each_index(s, [&](int64_t f, const std::vector<int64_t>& x) {
        std::vector<int64_t> src = x;
        src[ax] = ((x[ax] - shift) % n + n) % n;
        want[f] = h[src[0] * 6 + src[1]];
      });
      EXPECT_TRUE(close(r.to_host(), want, 0.0));
    }
}

// roll by one row of a row-tiled grid moves about one row per rank: a halo-like exchange with
// wrap-around, never the whole array.
TEST_F(RowGridTest, RollMovesOnlyTheCrossingRows) {
  const int64_t n = 24, m = 16;
  auto a = ts::from_host<double>({n, m}, test_values<double>(n * m, 12));
  reset_stats_now(rt());
  auto r = ts::roll(a, 1, 0);
  rt().flush();
  const ts::Stats st = stats_now(rt());
  EXPECT_LE(st.halo_bytes + st.redistribution_bytes, 2 * m * 8);
  const auto h = a.to_host();
  std::vector<double> want(n * m);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) want[i * m + j] = h[((i - 1 + n) % n) * m + j];
  EXPECT_TRUE(close(r.to_host(), want, 0.0));
}

TEST_F(TesseraTest, DiagBothWays) {
  const auto hv = test_values<double>(6, 13);
  auto v = ts::from_host<double>({6}, hv);
  auto D = ts::diag(v);
  EXPECT_EQ(D.shape(), (ts::Shape{6, 6}));
  std::vector<double> want(36, 0.0);
  for (int64_t i = 0; i < 6; ++i) want[i * 7] = hv[i];
  EXPECT_TRUE(close(D.to_host(), want, 0.0));
  EXPECT_TRUE(close(ts::diag(D).to_host(), hv, 0.0));
  // Non-square and views: the diagonal of A[1:, ::2].
  const auto ha = test_values<std::int32_t>(7 * 9, 14);
  auto A = ts::from_host<std::int32_t>({7, 9}, ha);
  auto d = ts::diag(A(ts::slice(1, ts::end), ts::slice(0, ts::end, 2)));
  std::vector<std::int32_t> wd;
  for (int64_t k = 0; k < 5; ++k) wd.push_back(ha[(1 + k) * 9 + 2 * k]);
  EXPECT_EQ(d.to_host(), wd);
  EXPECT_EQ(ts::diag(ts::from_host<double>({2, 5}, test_values<double>(10, 15))).shape(), ts::Shape{2});
}

TEST_F(TesseraTest, BadShapeOperations) {
  auto a = ts::zeros<double>({7, 5});
  expect_collective_error("reshape size", [&] { auto r = ts::reshape(a, {6, 6}); }, {"size 35", "(6, 6)"});
  expect_collective_error("reshape negative", [&] { auto r = ts::reshape(a, {-35}); }, {"negative extent -35"});
  expect_collective_error("reshape unknown size", [&] { auto r = ts::reshape(a, {6, -1}); }, {"size 35", "(6, -1)"});
  expect_collective_error("reshape two unknowns",
                          [&] {
                            auto r = ts::reshape(a, {-1, -1});
                          },
                          {"one unknown dimension", "(-1, -1)"});
  expect_collective_error("reshape unknown beside 0",
                          [&] {
                            auto r = ts::reshape(a, {0, -1});
                          },
                          {"size 35", "(0, -1)"});
  expect_collective_error("transpose axes", [&] { auto r = ts::transpose(a, {0}); }, {"axes", "(7, 5)"});
  expect_collective_error("transpose repeated", [&] { auto r = ts::transpose(a, {1, 1}); }, {"repeated"});
  expect_collective_error("transpose range", [&] { auto r = ts::transpose(a, {0, 2}); }, {"axis 2", "dimension 2"});
  auto b = ts::zeros<double>({7, 4});
  expect_collective_error("concatenate shapes",
                          [&] {
                            auto r = ts::concatenate({a, b}, 0);
                          },
                          {"along axis 0", "(7, 5)", "(7, 4)"});
  expect_collective_error("concatenate ndim",
                          [&] {
                            auto r = ts::concatenate({a, ts::zeros<double>({5})}, 0);
                          },
                          {"number of dimensions"});
  expect_collective_error("concatenate axis", [&] { auto r = ts::concatenate({a, a}, 2); }, {"axis 2"});
  expect_collective_error("concatenate nothing", [&] { auto r = ts::concatenate(std::vector<ts::Array<double>>{}); },
                          {"at least one array"});
  expect_collective_error("roll axis", [&] { auto r = ts::roll(a, 1, 3); }, {"axis 3"});
  expect_collective_error("diag 3-D", [&] { auto r = ts::diag(ts::zeros<double>({2, 2, 2})); }, {"1-D or 2-D"});
  EXPECT_TRUE(close(a.to_host(), std::vector<double>(35, 0.0), 0.0));
}
