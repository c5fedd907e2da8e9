// Halo exchange behind interior work (docs/FUSION.md, "Overlapping the halo exchange"): a kernel
// that reads fetched halos runs on the interior of its tile while the messages travel, then on the
// boundary strips. Every program runs with the overlap on (the default) and off, and each result
// is compared with the same arithmetic done serially on the host.

#include <cstdint>
#include <vector>

#include <tessera/program/element_ops.hpp>

#include "support.hpp"

namespace {

using ts::end;
using ts::slice;

class NoOverlapTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.overlap = false;
    return c;
  }
};

// What the exchanges of a run did: overlapped ones launch the interior and then one kernel per
// boundary strip (none on a rank that fetched nothing its tile reads); with the overlap off none
// is overlapped.
void expect_overlap_counts(ts::Runtime& rt, const ts::Stats& s) {
  if (rt.size() == 1) {
    EXPECT_EQ(s.halo_exchanges, 0);
    return;
  }
  EXPECT_GT(all_sum(s.halo_exchanges), 0);
  if (rt.config().overlap) {
    // Every exchange here has an interior: tiles are wider than the halo.
    EXPECT_EQ(s.halo_overlaps, s.halo_exchanges);
    EXPECT_GE(all_sum(s.boundary_launches), all_sum(s.halo_overlaps) / 2);
  } else {
    EXPECT_EQ(s.halo_overlaps, 0);
    EXPECT_EQ(s.boundary_launches, 0);
  }
}

// CG's first kernel: dot(p, A p) with A the 5-point Laplacian, one fused group that reads halos and
// reduces (the reduction is taken in parts and combined), then an in-place update of p's interior
// that invalidates the halo, so every iteration exchanges again.
void laplacian_dot(ts::Runtime& rt, std::int64_t n, std::int64_t m, int iterations) {
  Host2 h{n, m, host_values(n * m, 21)};
  auto p = ts::from_host<double>({n, m}, h.v);
  const auto lo = slice(0, -2), in = slice(1, -1), hi = slice(2, end);
  reset_stats_now(rt);
  for (int it = 0; it < iterations; ++it) {
    auto ap = 4.0 * p(in, in) - p(lo, in) - p(hi, in) - p(in, lo) - p(in, hi);
    const double got = ts::vdot(p(in, in), ap).item();
    p(in, in).assign(p(in, in) - 0.05 * ap);

    double want = 0.0;
    Host2 g = h;
    for (std::int64_t i = 1; i < n - 1; ++i) {
      for (std::int64_t j = 1; j < m - 1; ++j) {
        const double a = 4.0 * h(i, j) - h(i - 1, j) - h(i + 1, j) - h(i, j - 1) - h(i, j + 1);
        want += h(i, j) * a;
        g(i, j) = h(i, j) - 0.05 * a;
      }
    }
    h = g;
    EXPECT_NEAR(got, want, 1e-12 * static_cast<double>(n * m)) << "iteration " << it;
  }
  EXPECT_TRUE(close(p.to_host(), h.v));
  expect_overlap_counts(rt, stats_now(rt));
}

// A stencil fused with a generated array: the random values' counters are global indices of the
// launch domain, which each part of a split launch must compute from its own origin.
void stencil_with_random(ts::Runtime& rt, std::int64_t n, std::int64_t m, int iterations) {
  Host2 h{n, m, host_values(n * m, 22)};
  auto u = ts::from_host<double>({n, m}, h.v);
  const auto lo = slice(0, -2), in = slice(1, -1), hi = slice(2, end);
  reset_stats_now(rt);
  for (int it = 0; it < iterations; ++it) {
    const std::uint64_t seed = 100 + it;
    u(in, in).assign(0.25 * (u(lo, in) + u(hi, in) + u(in, lo) + u(in, hi)) +
                     0.01 * ts::random<double>({n - 2, m - 2}, seed));
    Host2 g = h;
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < m - 1; ++j)
        g(i, j) =
            0.25 * (h(i - 1, j) + h(i + 1, j) + h(i, j - 1) + h(i, j + 1)) +
            0.01 * ts::detail::element::uniform<double>(seed, static_cast<std::uint64_t>((i - 1) * (m - 2) + j - 1));
    h = g;
  }
  EXPECT_TRUE(close(u.to_host(), h.v));
  expect_overlap_counts(rt, stats_now(rt));
}

// A 3-D 7-point stencil: on a 2x2 (or 3x1, ...) process grid the strips lie along two dimensions.
void seven_point(ts::Runtime& rt, std::int64_t n, std::int64_t m, std::int64_t k, int iterations) {
  std::vector<double> h = host_values(n * m * k, 23);
  auto at = [&](const std::vector<double>& v, std::int64_t i, std::int64_t j, std::int64_t l) {
    return v[(i * m + j) * k + l];
  };
  auto u = ts::from_host<double>({n, m, k}, h);
  const auto lo = slice(0, -2), in = slice(1, -1), hi = slice(2, end);
  reset_stats_now(rt);
  for (int it = 0; it < iterations; ++it) {
    u(in, in, in)
        .assign(0.4 * u(in, in, in) +
                0.1 * (u(lo, in, in) + u(hi, in, in) + u(in, lo, in) + u(in, hi, in) + u(in, in, lo) + u(in, in, hi)));
    std::vector<double> g = h;
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < m - 1; ++j)
        for (std::int64_t l = 1; l < k - 1; ++l)
          g[(i * m + j) * k + l] =
              0.4 * at(h, i, j, l) + 0.1 * (at(h, i - 1, j, l) + at(h, i + 1, j, l) + at(h, i, j - 1, l) +
                                            at(h, i, j + 1, l) + at(h, i, j, l - 1) + at(h, i, j, l + 1));
    h = g;
  }
  EXPECT_TRUE(close(u.to_host(), h));
  expect_overlap_counts(rt, stats_now(rt));
}

}  // namespace

TEST_F(TesseraTest, LaplacianDotReducesInParts) { laplacian_dot(rt(), 23, 17, 12); }
TEST_F(NoOverlapTest, LaplacianDotReducesInParts) { laplacian_dot(rt(), 23, 17, 12); }

TEST_F(TesseraTest, StencilWithRandomValues) { stencil_with_random(rt(), 19, 14, 8); }
TEST_F(NoOverlapTest, StencilWithRandomValues) { stencil_with_random(rt(), 19, 14, 8); }

TEST_F(TesseraTest, SevenPoint3D) { seven_point(rt(), 11, 10, 9, 10); }
TEST_F(NoOverlapTest, SevenPoint3D) { seven_point(rt(), 11, 10, 9, 10); }
