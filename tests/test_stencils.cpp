// Stencils over many iterations on small, unevenly tiled grids: every shifted view is a halo read.
// Each result is compared elementwise with the same arithmetic (same operation order) done
// serially on the host, with NumPy's semantics for in-place updates (the right-hand side is
// evaluated in full before anything is written).

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "support.hpp"

namespace {

using ts::end;
using ts::slice;

// Row-major host grids (Host2: support.hpp).
struct Host3 {
  std::int64_t n, m, k;
  std::vector<double> v;
  double& operator()(std::int64_t i, std::int64_t j, std::int64_t l) { return v[(i * m + j) * k + l]; }
};

// 5-point Jacobi, a new array every step.
void jacobi5(ts::Runtime& rt, std::int64_t n, std::int64_t m, int iterations) {
  Host2 h{n, m, host_values(n * m, 11)};
  auto u = ts::from_host<double>({n, m}, h.v);
  const auto in = slice(1, -1);
  reset_stats_now(rt);
  for (int it = 0; it < iterations; ++it) {
    auto next = ts::copy(u);
    next(in, in).assign(0.25 *
                        (u(slice(0, -2), in) + u(slice(2, end), in) + u(in, slice(0, -2)) + u(in, slice(2, end))));
    u = next;
    Host2 g = h;
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < m - 1; ++j) g(i, j) = 0.25 * (h(i - 1, j) + h(i + 1, j) + h(i, j - 1) + h(i, j + 1));
    h = g;
  }
  EXPECT_TRUE(close(u.to_host(), h.v));
  EXPECT_EQ(stats_now(rt).redistributions, 0);
  if (rt.size() > 1) {
    EXPECT_GE(stats_now(rt).halo_exchanges, iterations);
  }
}

// 9-point stencil (corners included), in place: the right-hand side is evaluated first.
void nine_point(ts::Runtime& rt, std::int64_t n, std::int64_t m, int iterations) {
  Host2 h{n, m, host_values(n * m, 12)};
  auto u = ts::from_host<double>({n, m}, h.v);
  const auto lo = slice(0, -2), in = slice(1, -1), hi = slice(2, end);
  reset_stats_now(rt);
  for (int it = 0; it < iterations; ++it) {
    auto ring = u(lo, lo) + u(lo, in) + u(lo, hi) + u(in, lo) + u(in, hi) + u(hi, lo) + u(hi, in) + u(hi, hi);
    u(in, in).assign(0.5 * u(in, in) + 0.0625 * ring);
    Host2 g = h;
    for (std::int64_t i = 1; i < n - 1; ++i) {
      for (std::int64_t j = 1; j < m - 1; ++j) {
        const double r = h(i - 1, j - 1) + h(i - 1, j) + h(i - 1, j + 1) + h(i, j - 1) + h(i, j + 1) + h(i + 1, j - 1) +
                         h(i + 1, j) + h(i + 1, j + 1);
        g(i, j) = 0.5 * h(i, j) + 0.0625 * r;
      }
    }
    h = g;
  }
  EXPECT_TRUE(close(u.to_host(), h.v));
  EXPECT_EQ(stats_now(rt).redistributions, 0);
}

// cuNumeric's stencil.py: center.assign(0.2 * (center + north + east + west + south)).
void cunumeric_stencil(ts::Runtime& rt, std::int64_t n, std::int64_t m, int iterations, std::uint64_t seed) {
  Host2 h{n, m, host_values(n * m, seed)};
  auto grid = ts::from_host<double>({n, m}, h.v);
  auto center = grid(slice(1, -1), slice(1, -1));
  auto north = grid(slice(0, -2), slice(1, -1));
  auto east = grid(slice(1, -1), slice(2, end));
  auto west = grid(slice(1, -1), slice(0, -2));
  auto south = grid(slice(2, end), slice(1, -1));
  reset_stats_now(rt);
  for (int it = 0; it < iterations; ++it) {
    center.assign(0.2 * (center + north + east + west + south));
    Host2 g = h;  // NumPy computes the whole right-hand side before writing
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < m - 1; ++j)
        g(i, j) = 0.2 * (h(i, j) + h(i - 1, j) + h(i, j + 1) + h(i, j - 1) + h(i + 1, j));
    h = g;
  }
  EXPECT_TRUE(close(grid.to_host(), h.v));
  // The views still see the storage: center is the interior of the final grid.
  std::vector<double> interior;
  for (std::int64_t i = 1; i < n - 1; ++i)
    for (std::int64_t j = 1; j < m - 1; ++j) interior.push_back(h(i, j));
  EXPECT_TRUE(close(center.to_host(), interior));
  EXPECT_EQ(stats_now(rt).redistributions, 0);
  // Reductions over the views (north and south are two rows apart: a halo or, on very thin
  // tiles, a redistribution).
  double sum = 0.0, dot = 0.0;
  for (std::int64_t i = 1; i < n - 1; ++i)
    for (std::int64_t j = 1; j < m - 1; ++j) sum += h(i, j), dot += h(i - 1, j) * h(i + 1, j);
  const double tol = 1e-12 * static_cast<double>(n * m);
  EXPECT_NEAR(ts::sum(center).item(), sum, tol);
  EXPECT_NEAR(ts::vdot(north, south).item(), dot, tol);
}

// The same stencils with the op window fused (halo exchanges then bound the fused groups).
class FusedTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.fusion = true;
    return c;
  }
};

}  // namespace

TEST_F(FusedTest, Jacobi5Point2D) { jacobi5(rt(), 13, 11, 20); }

TEST_F(FusedTest, NinePoint2DWithCorners) { nine_point(rt(), 13, 11, 15); }

TEST_F(FusedTest, CuNumericInPlaceStencil) { cunumeric_stencil(rt(), 14, 12, 30, 25); }

TEST_F(TesseraTest, Jacobi5Point2D) { jacobi5(rt(), 13, 11, 30); }

TEST_F(RowGridTest, Jacobi5Point2DRowSplit) { jacobi5(rt(), 13, 11, 20); }

TEST_F(ColumnGridTest, Jacobi5Point2DColumnSplit) { jacobi5(rt(), 11, 13, 20); }

TEST_F(TesseraTest, Jacobi7Point3D) {
  const std::int64_t n = 9, m = 7, k = 6;
  Host3 h{n, m, k, host_values(n * m * k, 13)};
  auto u = ts::from_host<double>({n, m, k}, h.v);
  const auto lo = slice(0, -2), in = slice(1, -1), hi = slice(2, end);
  reset_stats_now(rt());
  const int iterations = 20;
  for (int it = 0; it < iterations; ++it) {
    auto c = u(in, in, in);
    auto lap = u(lo, in, in) + u(hi, in, in) + u(in, lo, in) + u(in, hi, in) + u(in, in, lo) + u(in, in, hi) - 6.0 * c;
    auto next = ts::copy(u);
    next(in, in, in).assign(c + 0.1 * lap);
    u = next;
    Host3 g = h;
    for (std::int64_t i = 1; i < n - 1; ++i) {
      for (std::int64_t j = 1; j < m - 1; ++j) {
        for (std::int64_t l = 1; l < k - 1; ++l) {
          const double s = h(i - 1, j, l) + h(i + 1, j, l) + h(i, j - 1, l) + h(i, j + 1, l) + h(i, j, l - 1) +
                           h(i, j, l + 1) - 6.0 * h(i, j, l);
          g(i, j, l) = h(i, j, l) + 0.1 * s;
        }
      }
    }
    h = g;
  }
  EXPECT_TRUE(close(u.to_host(), h.v));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
  if (rt().size() > 1) {
    EXPECT_GE(stats_now(rt()).halo_exchanges, iterations);
  }
}

TEST_F(TesseraTest, NinePoint2DWithCorners) { nine_point(rt(), 13, 11, 25); }

TEST_F(RowGridTest, NinePoint2DRowSplit) { nine_point(rt(), 11, 9, 15); }

TEST_F(TesseraTest, HaloWidthTwo1D) {
  const std::int64_t n = 23;
  std::vector<double> h = host_values(n, 14);
  auto a = ts::from_host<double>({n}, h);
  reset_stats_now(rt());
  const int iterations = 30;
  for (int it = 0; it < iterations; ++it) {
    // Fourth-order second difference: reads two neighbours on each side of the center.
    auto c = a(slice(2, -2));
    auto d = c * -30.0 + 16.0 * a(slice(1, -3)) + 16.0 * a(slice(3, -1)) - a(slice(0, -4)) - a(slice(4, end));
    a(slice(2, -2)) += (1.0 / 96.0) * d;
    std::vector<double> g = h;
    for (std::int64_t i = 2; i < n - 2; ++i) {
      const double di = h[i] * -30.0 + 16.0 * h[i - 1] + 16.0 * h[i + 1] - h[i - 2] - h[i + 2];
      g[i] = h[i] + (1.0 / 96.0) * di;
    }
    h = g;
  }
  EXPECT_TRUE(close(a.to_host(), h));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);

  // Windows of different lengths: a(2:) and a(0:-4) restricted to a common length.
  auto e = a(slice(2, end))(slice(0, -2)) - a(slice(0, -4));
  std::vector<double> want;
  for (std::int64_t i = 0; i < n - 4; ++i) want.push_back(h[i + 2] - h[i]);
  EXPECT_TRUE(close(e.to_host(), want));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
}

TEST_F(TesseraTest, HaloWidthTwo2D) {
  const std::int64_t n = 13, m = 11;
  Host2 h{n, m, host_values(n * m, 15)};
  auto u = ts::from_host<double>({n, m}, h.v);
  const auto c2 = slice(2, -2);
  reset_stats_now(rt());
  const int iterations = 20;
  for (int it = 0; it < iterations; ++it) {
    auto c = u(c2, c2);
    auto star = c + u(slice(0, -4), c2) + u(slice(4, end), c2) + u(c2, slice(0, -4)) + u(c2, slice(4, end)) +
                u(slice(1, -3), c2) + u(slice(3, -1), c2) + u(c2, slice(1, -3)) + u(c2, slice(3, -1));
    auto next = ts::copy(u);
    next(c2, c2).assign(star / 9.0);
    u = next;
    Host2 g = h;
    for (std::int64_t i = 2; i < n - 2; ++i) {
      for (std::int64_t j = 2; j < m - 2; ++j) {
        const double s = h(i, j) + h(i - 2, j) + h(i + 2, j) + h(i, j - 2) + h(i, j + 2) + h(i - 1, j) + h(i + 1, j) +
                         h(i, j - 1) + h(i, j + 1);
        g(i, j) = s / 9.0;
      }
    }
    h = g;
  }
  EXPECT_TRUE(close(u.to_host(), h.v));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
}

TEST_F(TesseraTest, CuNumericInPlaceStencil) { cunumeric_stencil(rt(), 14, 12, 50, 16); }

TEST_F(ColumnGridTest, CuNumericInPlaceStencilColumnSplit) { cunumeric_stencil(rt(), 9, 15, 25, 17); }

// In-place operators whose operand is an overlapping view of the target: NumPy reads the old
// values (a[1:] += a[:-1] adds the original left neighbour, not the updated one).
TEST_F(TesseraTest, InPlaceOverlappingViewsFollowNumPy) {
  const std::int64_t n = 150;  // longer than a host kernel's block: reads cannot hide in one block
  std::vector<double> h = host_values(n, 18);
  auto a = ts::from_host<double>({n}, h);
  for (int it = 0; it < 8; ++it) {
    a(slice(1, end)) += a(slice(0, -1));
    std::vector<double> g = h;
    for (std::int64_t i = 1; i < n; ++i) g[i] = h[i] + h[i - 1];
    h = g;
    a(slice(0, -2)) -= 0.5 * a(slice(2, end));
    g = h;
    for (std::int64_t i = 0; i + 2 < n; ++i) g[i] = h[i] - 0.5 * h[i + 2];
    h = g;
  }
  EXPECT_TRUE(close(a.to_host(), h));
  // a[:-1] = a[1:] and a[1:] = a[:-1]: shifts, not smears.
  a(slice(0, -1)).assign(a(slice(1, end)));
  std::vector<double> g = h;
  for (std::int64_t i = 0; i + 1 < n; ++i) g[i] = h[i + 1];
  h = g;
  EXPECT_TRUE(close(a.to_host(), h));
  a(slice(1, end)).assign(a(slice(0, -1)));
  g = h;
  for (std::int64_t i = 1; i < n; ++i) g[i] = h[i - 1];
  h = g;
  EXPECT_TRUE(close(a.to_host(), h));

  // 2-D: u[1:, :] -= u[:-1, :] and u[:, :-1] *= u[:, 1:].
  const std::int64_t r = 7, c = 9;
  Host2 hu{r, c, host_values(r * c, 19)};
  auto u = ts::from_host<double>({r, c}, hu.v);
  for (int it = 0; it < 6; ++it) {
    u(slice(1, end), ts::all) -= u(slice(0, -1), ts::all);
    Host2 gu = hu;
    for (std::int64_t i = 1; i < r; ++i)
      for (std::int64_t j = 0; j < c; ++j) gu(i, j) = hu(i, j) - hu(i - 1, j);
    hu = gu;
    u(ts::all, slice(0, -1)) *= u(ts::all, slice(1, end));
    gu = hu;
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j + 1 < c; ++j) gu(i, j) = hu(i, j) * hu(i, j + 1);
    hu = gu;
  }
  EXPECT_TRUE(close(u.to_host(), hu.v));
}

// More ranks than rows: some ranks own nothing, halos come from whichever rank holds the row.
TEST_F(RowGridTest, StencilWithMoreRanksThanRows) {
  cunumeric_stencil(rt(), 3, 40, 30, 20);
  reset_stats_now(rt());
  // 2 x 40: neighbours along the columns and a swap of the two rows.
  const std::int64_t n = 2, m = 40;
  Host2 h{n, m, host_values(n * m, 21)};
  auto u = ts::from_host<double>({n, m}, h.v);
  for (int it = 0; it < 20; ++it) {
    auto side = u(ts::all, slice(0, -2)) + u(ts::all, slice(2, end));
    u(ts::all, slice(1, -1)).assign(0.5 * u(ts::all, slice(1, -1)) + 0.25 * side);
    auto swapped = u(slice(1, 2), ts::all) - u(slice(0, 1), ts::all);
    u(slice(0, 1), ts::all) += 0.1 * swapped;
    Host2 g = h;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 1; j < m - 1; ++j) g(i, j) = 0.5 * h(i, j) + 0.25 * (h(i, j - 1) + h(i, j + 1));
    h = g;
    for (std::int64_t j = 0; j < m; ++j) h(0, j) = h(0, j) + 0.1 * (h(1, j) - h(0, j));
  }
  EXPECT_TRUE(close(u.to_host(), h.v));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
}

TEST_F(TesseraTest, StencilWithMoreRanksThanRowsDefaultGrid) {
  // 2 x 40 on the balanced grid (3 ranks: 3 x 1, one rank owns no row), and 1-D with 3 elements.
  cunumeric_stencil(rt(), 3, 40, 20, 22);
  const std::int64_t n = 2, m = 40;
  Host2 h{n, m, host_values(n * m, 23)};
  auto u = ts::from_host<double>({n, m}, h.v);
  for (int it = 0; it < 20; ++it) {
    auto d = u(slice(1, 2), slice(1, end)) - u(slice(0, 1), slice(0, -1));
    u(slice(0, 1), slice(1, end)) += 0.5 * d;
    Host2 g = h;
    for (std::int64_t j = 1; j < m; ++j) g(0, j) = h(0, j) + 0.5 * (h(1, j) - h(0, j - 1));
    h = g;
  }
  EXPECT_TRUE(close(u.to_host(), h.v));

  std::vector<double> v = host_values(3, 24);
  auto a = ts::from_host<double>({3}, v);
  for (int it = 0; it < 20; ++it) {
    a(slice(1, 2)).assign(0.5 * (a(slice(0, 1)) + a(slice(2, 3))) + 0.1 * a(slice(1, 2)));
    a(slice(0, 2)) += 0.25 * a(slice(1, 3));
    const double mid = 0.5 * (v[0] + v[2]) + 0.1 * v[1];
    v[1] = mid;
    const double v0 = v[0] + 0.25 * v[1], v1 = v[1] + 0.25 * v[2];
    v[0] = v0, v[1] = v1;
  }
  EXPECT_TRUE(close(a.to_host(), v));
}

// Halos of every element width: int32 (Game of Life), int64 (Pascal's triangle), float32, bool.
TEST_F(TesseraTest, HalosOfEveryElementType) {
  const std::int64_t n = 13, m = 11;
  const auto lo = slice(0, -2), in = slice(1, -1), hi = slice(2, end);
  {
    std::vector<std::int32_t> hb(n * m);
    const auto r = host_values(n * m, 30);
    for (std::size_t i = 0; i < hb.size(); ++i) hb[i] = r[i] > 0.1 ? 1 : 0;
    auto b = ts::from_host<std::int32_t>({n, m}, hb);
    for (int gen = 0; gen < 20; ++gen) {
      auto count = b(lo, lo) + b(lo, in) + b(lo, hi) + b(in, lo) + b(in, hi) + b(hi, lo) + b(hi, in) + b(hi, hi);
      b(in, in).assign(ts::where(count == 3, 1, ts::where(count == 2, b(in, in), 0)));
      std::vector<std::int32_t> g = hb;
      auto at = [&](std::int64_t i, std::int64_t j) { return hb[i * m + j]; };
      for (std::int64_t i = 1; i < n - 1; ++i) {
        for (std::int64_t j = 1; j < m - 1; ++j) {
          const int c = at(i - 1, j - 1) + at(i - 1, j) + at(i - 1, j + 1) + at(i, j - 1) + at(i, j + 1) +
                        at(i + 1, j - 1) + at(i + 1, j) + at(i + 1, j + 1);
          g[i * m + j] = c == 3 ? 1 : (c == 2 ? at(i, j) : 0);
        }
      }
      hb = g;
    }
    EXPECT_TRUE(close(b.to_host(), hb));
  }
  {
    const std::int64_t len = 70;
    auto a = ts::zeros<std::int64_t>({len});
    a(slice(0, 1)).assign(1);
    std::vector<std::int64_t> ha(len, 0);
    ha[0] = 1;
    for (int it = 0; it < 30; ++it) {
      a(slice(1, end)) += a(slice(0, -1));
      for (std::int64_t i = len - 1; i >= 1; --i) ha[i] += ha[i - 1];
    }
    EXPECT_TRUE(close(a.to_host(), ha));
  }
  {
    const auto r = host_values(n * m, 31);
    std::vector<float> hf(r.begin(), r.end());
    auto f = ts::from_host<float>({n, m}, hf);
    for (int it = 0; it < 20; ++it) {
      f(in, in).assign(0.2f * (f(in, in) + f(lo, in) + f(in, hi) + f(in, lo) + f(hi, in)));
      std::vector<float> g = hf;
      for (std::int64_t i = 1; i < n - 1; ++i)
        for (std::int64_t j = 1; j < m - 1; ++j)
          g[i * m + j] = 0.2f * (hf[i * m + j] + hf[(i - 1) * m + j] + hf[i * m + j + 1] + hf[i * m + j - 1] +
                                 hf[(i + 1) * m + j]);
      hf = g;
    }
    EXPECT_TRUE(close(f.to_host(), hf, 1e-6));
  }
  {
    const auto r = host_values(n * m, 32);
    std::vector<bool> hb;
    for (double x : r) hb.push_back(x > 0.0);
    auto b = ts::from_host<bool>({n, m}, hb);
    auto edges = b(slice(1, end), ts::all) != b(slice(0, -1), ts::all);
    auto corner = b(lo, lo) == b(hi, hi);
    std::vector<bool> we, wc;
    for (std::int64_t i = 1; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j) we.push_back(hb[i * m + j] != hb[(i - 1) * m + j]);
    for (std::int64_t i = 0; i < n - 2; ++i)
      for (std::int64_t j = 0; j < m - 2; ++j) wc.push_back(hb[i * m + j] == hb[(i + 2) * m + j + 2]);
    EXPECT_EQ(edges.to_host(), we);
    EXPECT_EQ(corner.to_host(), wc);
  }
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
}
