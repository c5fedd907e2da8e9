// Redistribution: operands that are neither aligned with the launch domain nor a halo of it (far
// shifts, arrays of different shapes, transposed windows) are moved to the launch tiling. Values
// are compared with a serial host computation.

#include <cstdint>
#include <vector>

#include "support.hpp"

namespace {

using ts::end;
using ts::slice;

}  // namespace

TEST_F(TesseraTest, HalvesOfOneArray) {
  for (std::int64_t n : {std::int64_t(24), std::int64_t(40), std::int64_t(8)}) {
    const auto h = host_values(n, 1 + n);
    auto a = ts::from_host<double>({n}, h);
    reset_stats_now(rt());
    auto c = a(slice(0, n / 2)) + a(slice(n / 2, n));
    std::vector<double> want;
    for (std::int64_t i = 0; i < n / 2; ++i) want.push_back(h[i] + h[i + n / 2]);
    EXPECT_TRUE(close(c.to_host(), want)) << "n = " << n;
    if (rt().size() > 2) {
      // Tiles are narrower than n/2: the second half lives on other ranks, beyond any halo.
      EXPECT_GT(stats_now(rt()).redistributions, 0) << "n = " << n;
    }
    if (rt().size() > 1) {
      // Data moved one way or the other (at 2 ranks a shift of n/2 equals the tile width).
      EXPECT_GT(stats_now(rt()).redistributions + stats_now(rt()).halo_exchanges, 0) << "n = " << n;
    }
    // The result is aligned with its key view: a chain over it moves nothing more.
    const ts::Stats before = stats_now(rt());
    auto d = c * c - a(slice(0, n / 2));
    EXPECT_EQ(stats_now(rt()).redistributions, before.redistributions);
    EXPECT_EQ(stats_now(rt()).halo_exchanges, before.halo_exchanges);
    std::vector<double> wd;
    for (std::int64_t i = 0; i < n / 2; ++i) wd.push_back(want[i] * want[i] - h[i]);
    EXPECT_TRUE(close(d.to_host(), wd));
  }
}

TEST_F(TesseraTest, FarShiftsOfOneArray) {
  const std::int64_t n = 31;
  const auto h = host_values(n, 2);
  auto a = ts::from_host<double>({n}, h);
  for (std::int64_t k = 1; k < n; k += 3) {
    auto c = a(slice(k, end)) - 2.0 * a(slice(0, n - k));
    std::vector<double> want;
    for (std::int64_t i = 0; i + k < n; ++i) want.push_back(h[i + k] - 2.0 * h[i]);
    EXPECT_TRUE(close(c.to_host(), want)) << "shift " << k;
  }
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).redistributions, 0);
  }
}

TEST_F(TesseraTest, OperandsFromArraysOfDifferentShapes) {
  const auto hx = host_values(20, 3), hy = host_values(30, 4);
  auto x = ts::from_host<double>({20}, hx);
  auto y = ts::from_host<double>({30}, hy);
  reset_stats_now(rt());
  auto z = x(slice(0, 10)) + y(slice(15, 25));
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).redistributions, 0);
  }
  std::vector<double> want;
  for (int i = 0; i < 10; ++i) want.push_back(hx[i] + hy[i + 15]);
  EXPECT_TRUE(close(z.to_host(), want));

  // The other key: the result follows y's tiling.
  auto w = y(slice(15, 25)) * x(slice(10, 20));
  std::vector<double> ww;
  for (int i = 0; i < 10; ++i) ww.push_back(hy[i + 15] * hx[i + 10]);
  EXPECT_TRUE(close(w.to_host(), ww));

  // A shifted read of a redistributed result is a halo of that result.
  auto s = z(slice(1, end)) + z(slice(0, -1));
  std::vector<double> ws;
  for (int i = 0; i + 1 < 10; ++i) ws.push_back(want[i + 1] + want[i]);
  EXPECT_TRUE(close(s.to_host(), ws));

  // Assigning into a view of one array from a view of the other.
  y(slice(5, 15)).assign(x(slice(10, 20)) * 2.0);
  std::vector<double> hy2 = hy;
  for (int i = 0; i < 10; ++i) hy2[5 + i] = hx[10 + i] * 2.0;
  EXPECT_TRUE(close(y.to_host(), hy2));
  x(slice(0, 10)) += y(slice(20, 30));
  std::vector<double> hx2 = hx;
  for (int i = 0; i < 10; ++i) hx2[i] += hy2[20 + i];
  EXPECT_TRUE(close(x.to_host(), hx2));

  // Reductions over misaligned pairs.
  double dot = 0.0;
  for (int i = 0; i < 10; ++i) dot += hx2[i] * hy2[i + 17];
  EXPECT_NEAR(ts::dot(x(slice(0, 10)), y(slice(17, 27))).item(), dot, 1e-12 * std::max(1.0, std::abs(dot)));
}

TEST_F(TesseraTest, MoreRanksThanElementsRedistribution) {
  const auto hx = host_values(3, 5), hy = host_values(5, 6);
  auto x = ts::from_host<double>({3}, hx);
  auto y = ts::from_host<double>({5}, hy);
  auto z = x(slice(0, 2)) - y(slice(3, 5));
  EXPECT_TRUE(close(z.to_host(), {hx[0] - hy[3], hx[1] - hy[4]}));
  auto t = y(slice(0, 3)) + x;
  EXPECT_TRUE(close(t.to_host(), {hy[0] + hx[0], hy[1] + hx[1], hy[2] + hx[2]}));
}

TEST_F(TesseraTest, EmptyWindows) {
  const auto hx = host_values(20, 7), hy = host_values(30, 8);
  auto x = ts::from_host<double>({20}, hx);
  auto y = ts::from_host<double>({30}, hy);
  auto z = x(slice(3, 3)) + y(slice(7, 7));
  EXPECT_EQ(z.shape(), (ts::Shape{0}));
  EXPECT_TRUE(z.to_host().empty());
  EXPECT_EQ(ts::sum(z).item(), 0.0);
  x(slice(19, 19)).assign(y(slice(0, 0)));
  EXPECT_TRUE(close(x.to_host(), hx));
}

TEST_F(TesseraTest, TransposedOffsetWindows2D) {
  const std::int64_t n = 12, m = 16;
  const auto ha = host_values(n * m, 9);
  auto a = ts::from_host<double>({n, m}, ha);
  reset_stats_now(rt());
  // Off-diagonal blocks of one array: the top-right block plus the bottom-left block.
  auto c = a(slice(0, n / 2), slice(m / 2, m)) + a(slice(n / 2, n), slice(0, m / 2));
  std::vector<double> want;
  for (std::int64_t i = 0; i < n / 2; ++i)
    for (std::int64_t j = 0; j < m / 2; ++j) want.push_back(ha[i * m + j + m / 2] + ha[(i + n / 2) * m + j]);
  EXPECT_TRUE(close(c.to_host(), want));

  // Windows of an array of the transposed shape.
  const auto hb = host_values(m * n, 10);
  auto b = ts::from_host<double>({m, n}, hb);
  reset_stats_now(rt());
  auto d = a(slice(2, 10), slice(3, 9)) - b(slice(7, 15), slice(1, 7));
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).redistributions, 0);
  }
  std::vector<double> wd;
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t j = 0; j < 6; ++j) wd.push_back(ha[(i + 2) * m + j + 3] - hb[(i + 7) * n + j + 1]);
  EXPECT_TRUE(close(d.to_host(), wd));

  // Write a window of b from a window of a, then read both back.
  b(slice(0, 6), slice(4, 12)).assign(a(slice(6, 12), slice(0, 8)) + 1.0);
  std::vector<double> hb2 = hb;
  for (std::int64_t i = 0; i < 6; ++i)
    for (std::int64_t j = 0; j < 8; ++j) hb2[i * n + j + 4] = ha[(i + 6) * m + j] + 1.0;
  EXPECT_TRUE(close(b.to_host(), hb2));
  EXPECT_TRUE(close(a.to_host(), ha));
}

TEST_F(TesseraTest, ThreeDimensionalWindows) {
  const auto ha = host_values(6 * 5 * 4, 11), hb = host_values(4 * 5 * 6, 12);
  auto a = ts::from_host<double>({6, 5, 4}, ha);
  auto b = ts::from_host<double>({4, 5, 6}, hb);
  auto c = a(slice(1, 5), ts::all, ts::all) * b(ts::all, ts::all, slice(2, end));
  std::vector<double> want;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      for (int l = 0; l < 4; ++l) want.push_back(ha[((i + 1) * 5 + j) * 4 + l] * hb[(i * 5 + j) * 6 + l + 2]);
  EXPECT_TRUE(close(c.to_host(), want));
  // Far shift within one 3-D array.
  auto e = a(slice(0, 2), slice(0, 2), ts::all) + a(slice(4, 6), slice(3, 5), ts::all);
  std::vector<double> we;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int l = 0; l < 4; ++l) we.push_back(ha[(i * 5 + j) * 4 + l] + ha[((i + 4) * 5 + j + 3) * 4 + l]);
  EXPECT_TRUE(close(e.to_host(), we));
}

TEST_F(TesseraTest, InPlaceFarShiftsFollowNumPy) {
  const std::int64_t n = 150;  // longer than a host kernel's block: reads cannot hide in one block
  std::vector<double> h = host_values(n, 13);
  auto a = ts::from_host<double>({n}, h);
  for (std::int64_t k : {std::int64_t(1), std::int64_t(5), std::int64_t(37), n / 3, n / 2, n - 3}) {
    // a[:n-k] = a[k:] then a[k:] += a[:n-k]: each right-hand side is read before the write.
    a(slice(0, n - k)).assign(a(slice(k, n)));
    std::vector<double> g = h;
    for (std::int64_t i = 0; i + k < n; ++i) g[i] = h[i + k];
    h = g;
    a(slice(k, n)) += a(slice(0, n - k));
    g = h;
    for (std::int64_t i = 0; i + k < n; ++i) g[i + k] = h[i + k] + h[i];
    h = g;
    EXPECT_TRUE(close(a.to_host(), h)) << "shift " << k;
  }
}

// One operation that reads one store both as a halo (a near shift) and through a redistribution
// (a far shift), with ghost growth in between.
TEST_F(TesseraTest, HaloAndRedistributionOfOneStoreInOneOp) {
  const std::int64_t n = 40;
  const auto h = host_values(n, 14);
  auto a = ts::from_host<double>({n}, h);
  auto c = ts::where(a(slice(0, 10)) > 0.0, a(slice(1, 11)), a(slice(25, 35)));
  auto d = ts::where(a(slice(2, 12)) > 0.0, a(slice(30, 40)), a(slice(0, 10)));
  std::vector<double> wc, wd;
  for (int i = 0; i < 10; ++i) {
    wc.push_back(h[i] > 0.0 ? h[i + 1] : h[i + 25]);
    wd.push_back(h[i + 2] > 0.0 ? h[i + 30] : h[i]);
  }
  EXPECT_TRUE(close(c.to_host(), wc));
  EXPECT_TRUE(close(d.to_host(), wd));
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).redistributions, 0);
  }
}
