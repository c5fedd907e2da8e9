// Fusion on programs as their authors write them: the planner chooses each group's launch domain
// from what it must write (the statement's assign), so a chain of sums over differently shifted
// views is one kernel; disjoint in-place assigns are not preceded by copies. Each program is
// checked against a serial host reference, and its kernels are counted (counts, not times).

#include <cstdint>
#include <vector>

#include "support.hpp"

namespace {

using std::int64_t;
using ts::end;
using ts::slice;

// A 27-point average over the interior of an (n+2)^3 grid, written the way cuPyNumeric's example
// is: 27 shifted views, sums along the last axis, then planes, then the whole, assigned back.
// `reversed`: each row's views and each plane's rows from the last (the first view of a plane is
// its last row's last column: the others lie above and to the left of it).
void stencil27_step(const ts::Array<double>& grid, bool reversed = false) {
  auto s = [](int k) { return k == 0 ? slice(0, -2) : k == 1 ? slice(1, -1) : slice(2, end); };
  auto r = [&](int k) { return s(reversed ? 2 - k : k); };
  ts::Array<double> rows[3][3], planes[3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) rows[a][b] = grid(s(a), r(b), r(0)) + grid(s(a), r(b), r(1)) + grid(s(a), r(b), r(2));
  for (int a = 0; a < 3; ++a) planes[a] = rows[a][0] + rows[a][1] + rows[a][2];
  auto total = planes[0] + planes[1] + planes[2];
  auto work = 0.037 * total;
  grid(s(1), s(1), s(1)).assign(work);
}

// The grid is (m0, m1, m2) = (n0 + 2, n1 + 2, n2 + 2).
std::vector<double> host_stencil27(std::vector<double> g, int64_t n0, int64_t n1, int64_t n2, int steps) {
  const int64_t m1 = n1 + 2, m2 = n2 + 2;
  auto at = [&](const std::vector<double>& v, int64_t i, int64_t j, int64_t k) { return v[(i * m1 + j) * m2 + k]; };
  for (int t = 0; t < steps; ++t) {
    const std::vector<double> old = g;
    for (int64_t i = 1; i <= n0; ++i)
      for (int64_t j = 1; j <= n1; ++j)
        for (int64_t k = 1; k <= n2; ++k) {
          double sum = 0;  // in the order tessera adds: along k, then j, then i
          for (int a = -1; a <= 1; ++a) {
            double plane = 0;
            for (int b = -1; b <= 1; ++b)
              plane += at(old, i + a, j + b, k - 1) + at(old, i + a, j + b, k) + at(old, i + a, j + b, k + 1);
            sum += plane;
          }
          g[(i * m1 + j) * m2 + k] = 0.037 * sum;
        }
  }
  return g;
}

// `steps` steps of the 27-point stencil on an (n0 + 2, n1 + 2, n2 + 2) grid of test values
// (`seed`), against the host's.
bool stencil27_matches_host(int64_t n0, int64_t n1, int64_t n2, int steps, int seed, bool reversed = false) {
  const auto h = test_values<double>((n0 + 2) * (n1 + 2) * (n2 + 2), seed);
  auto grid = ts::from_host<double>({n0 + 2, n1 + 2, n2 + 2}, h);
  for (int t = 0; t < steps; ++t) stencil27_step(grid, reversed);
  return close(grid.to_host(), host_stencil27(h, n0, n1, n2, steps), 1e-12);
}

}  // namespace

TEST_F(UnbatchedTest, Stencil27IsOneKernelPerIteration) {
  const int64_t n = 9, m = n + 2;
  const auto h = test_values<double>(m * m * m, 1);
  auto grid = ts::from_host<double>({m, m, m}, h);
  for (int t = 0; t < 2; ++t) stencil27_step(grid);  // plans and pool buffers are made here
  reset_stats_now(rt());
  const int steps = 5;
  for (int t = 0; t < steps; ++t) stencil27_step(grid);
  const ts::Stats st = stats_now(rt());
  EXPECT_TRUE(close(grid.to_host(), host_stencil27(h, n, n, n, steps + 2), 1e-12));
  EXPECT_EQ(st.kernels, steps);         // one kernel per iteration
  EXPECT_EQ(st.stores_allocated, 0);    // the 26 partial sums and `work` are never stored
  EXPECT_LE(st.halo_exchanges, steps);  // one grouped exchange of depth 1 per iteration
}

// Named results over views shifted along a dimension that the process grid does not cut (one
// rank; the columns of a matrix on 2 or 3 ranks, whose grid deals rows only) are placed alike, so
// the statements that compute them and the one that combines them are one kernel, as a user of
// a single GPU expects of left and right states of a flux. Where the grid cuts that dimension
// (2 x 2 ranks) they are placed apart, and the combination runs where the first one lies.
TEST_F(TesseraTest, ResultsShiftedAlongAWholeDimensionShareAKernel) {
  const int64_t rows = 9, cols = 13;
  const auto h = test_values<double>(rows * cols, 3);
  auto q = ts::from_host<double>({rows, cols}, h);
  const bool whole = q.impl().store->tiling().cuts[1]->parts == 1;
  ts::Array<double> left, right, flux;  // held by the program: stored, each tiled like its view
  auto step = [&] {
    left = q(ts::all, slice(0, -1)) * 2.0;
    right = q(ts::all, slice(1, end)) * 3.0;
    flux = left - right;
    rt().flush();
  };
  step();  // plans are made here
  reset_stats_now(rt());
  step();
  const ts::Stats st = stats_now(rt());
  const auto got = flux.to_host();
  std::vector<double> want(rows * (cols - 1));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j + 1 < cols; ++j) want[i * (cols - 1) + j] = h[i * cols + j] * 2.0 - h[i * cols + j + 1] * 3.0;
  EXPECT_TRUE(close(got, want, 1e-14));
  if (whole)
    EXPECT_EQ(st.kernels, 1);
  else
    EXPECT_GE(st.kernels, 2);
}

// Many planes, uneven extents: on GPU builds the kernel marches through planes in bands (a tile of
// 64 x 8 elements per block, the last tiles partial, elements past the last column computed from a
// clamped column and not stored; docs/JIT.md "Planes marched"), each band's first plane computing
// every view's sums, the later ones taking two of the three planes' sums from the plane before.
TEST_F(TesseraTest, Stencil27OverManyPlanesMatchesTheHost) { EXPECT_TRUE(stencil27_matches_host(70, 11, 37, 3, 4)); }

// Rows wider than a tile: on GPU builds the marching kernel's tiles of a plane (64 x 8 elements:
// docs/JIT.md "Planes marched") here are three along a row, the last of 22 columns, and three
// down the plane, the last of one row.
TEST_F(TesseraTest, Stencil27OverWideRowsMatchesTheHost) { EXPECT_TRUE(stencil27_matches_host(12, 17, 150, 2, 5)); }

// The views of a plane summed from its last row's last column: on GPU builds the marching kernel
// stages the plane's views in shared memory from the first view's row and column, and here the
// others lie a row or two above and a column or two to the left of it (the tile starts there: at
// the first tile of a plane, in the halo).
TEST_F(TesseraTest, Stencil27WithItsViewsInReverseOrderMatchesTheHost) {
  EXPECT_TRUE(stencil27_matches_host(12, 17, 70, 2, 6, true));
}

// A reflective boundary reads another row or column of the array it writes: disjoint, so no copy
// of the right-hand side is made, and the assign and its negation are one kernel.
TEST_F(TesseraTest, DisjointInPlaceAssignMakesNoCopy) {
  const int64_t n = 11;
  auto h = test_values<double>(n * n, 2);
  auto u = ts::from_host<double>({n, n}, h);
  reset_stats_now(rt());
  u(ts::all, 0).assign(-u(ts::all, 1));
  u(-1, ts::all).assign(u(-2, ts::all));
  const ts::Stats st = stats_now(rt());
  EXPECT_EQ(st.ops, 3);      // negative, assign, assign: no copy op
  EXPECT_LE(st.kernels, 2);  // the negation fused into its assign (both strips may also be batched)
  for (int64_t i = 0; i < n; ++i) h[i * n] = -h[i * n + 1];
  for (int64_t j = 0; j < n; ++j) h[(n - 1) * n + j] = h[(n - 2) * n + j];
  EXPECT_TRUE(close(u.to_host(), h, 0.0));
  // An overlapping one is still copied first: u[1:, 0] = u[:-1, 0] (a shift down the column).
  reset_stats_now(rt());
  u(slice(1, end), 0).assign(u(slice(0, -1), 0));
  EXPECT_EQ(stats_now(rt()).ops, 2);  // copy, assign
  for (int64_t i = n - 1; i >= 1; --i) h[i * n] = h[(i - 1) * n];
  EXPECT_TRUE(close(u.to_host(), h, 0.0));
  // Step-2 views of other parities never meet, though their bounding boxes do: u[0:-1:2] = u[1::2]
  // * 2 is not copied first either.
  reset_stats_now(rt());
  u(slice(0, -1, 2), ts::all).assign(u(slice(1, end, 2), ts::all) * 2.0);
  EXPECT_EQ(stats_now(rt()).ops, 2);  // multiply, assign
  for (int64_t i = 0; i + 1 < n; i += 2)
    for (int64_t j = 0; j < n; ++j) h[i * n + j] = h[(i + 1) * n + j] * 2.0;
  EXPECT_TRUE(close(u.to_host(), h, 0.0));
}

// The Lax-Wendroff step (tests/support.hpp) is about 120 ops, longer than a default window: once
// the loop's period shows, the window grows to hold a step, and its interior is one kernel. The
// half-step values (Hx ... Vy, read through shifted views after H or U was updated) are
// recomputed inside it from the values before the updates, which write fresh buffers (renamed),
// so nothing is stored but H, U and V; the 12 boundary strips are the other kernels (one to
// four of them, as the ranks holding the first and last rows differ).
TEST_F(TesseraTest, ShallowWaterStepIsOneInteriorKernel) {
  const int64_t n = 14, m = n + 2;
  const ShallowWater w;
  Host2 hH{m, m, std::vector<double>(m * m, 1.0)}, hU{m, m, std::vector<double>(m * m, 0.0)}, hV = hU;
  for (int64_t i = 3; i < 6; ++i)
    for (int64_t j = 4; j < 8; ++j) hH(i, j) += 0.25 * static_cast<double>(i + j) / 10;
  auto H = ts::from_host<double>({m, m}, hH.v);
  auto U = ts::zeros<double>({m, m});
  auto V = ts::zeros<double>({m, m});
  const int warmup = 5, steps = 3;
  for (int s = 0; s < warmup; ++s) {
    shallow_water_step(H, U, V, n, w);
    host_shallow_water_step(hH, hU, hV, n, w);
  }
  reset_stats_now(rt());
  for (int s = 0; s < steps; ++s) {
    shallow_water_step(H, U, V, n, w);
    host_shallow_water_step(hH, hU, hV, n, w);
  }
  const ts::Stats st = stats_now(rt());
  EXPECT_TRUE(close(H.to_host(), hH.v, 1e-11));
  EXPECT_TRUE(close(U.to_host(), hU.v, 1e-11));
  EXPECT_TRUE(close(V.to_host(), hV.v, 1e-11));
  EXPECT_LE(st.kernels, 5 * steps);
  EXPECT_EQ(st.buffer_renames, 3 * steps);  // H, U and V, all in the interior's kernel
  EXPECT_EQ(st.stores_allocated, 0);        // no half-step value stored
}

// A temporary read through shifted views is recomputed at each shift from its inputs (read
// through the composed views, with their halos) instead of being stored and read back: the
// pressure update of "12 steps to Navier-Stokes" reads a copy of p through four shifted views
// and writes p's interior, one kernel with the copy never made.
TEST_F(UnbatchedTest, ShiftedReadsOfATemporaryRecomputeIt) {
  const int64_t n = 13;
  const auto h = test_values<double>(n, 3);
  auto a = ts::from_host<double>({n}, h);
  reset_stats_now(rt());
  auto c = [&] {
    auto b = a * 2.0 + 1.0;
    return b(slice(1, end)) - b(slice(0, -1));
  }();
  const auto got = c.to_host();
  const ts::Stats st = stats_now(rt());
  std::vector<double> want;
  for (int64_t i = 0; i + 1 < n; ++i) want.push_back((h[i + 1] * 2.0 + 1.0) - (h[i] * 2.0 + 1.0));
  EXPECT_TRUE(close(got, want));
  EXPECT_EQ(st.kernels, 1);

  const int64_t m = 12;
  auto hp = test_values<double>(m * m, 4);
  auto p = ts::from_host<double>({m, m}, hp);
  const auto in = slice(1, -1);
  auto pressure_step = [&] {
    auto pn = ts::copy(p);
    p(in, in).assign(0.25 *
                     (pn(in, slice(2, end)) + pn(in, slice(0, -2)) + pn(slice(2, end), in) + pn(slice(0, -2), in)));
  };
  pressure_step();
  reset_stats_now(rt());
  const int steps = 3;
  for (int s = 0; s < steps; ++s) pressure_step();
  const ts::Stats sp = stats_now(rt());
  for (int s = 0; s < steps + 1; ++s) {
    const auto old = hp;
    for (int64_t i = 1; i < m - 1; ++i)
      for (int64_t j = 1; j < m - 1; ++j)
        hp[i * m + j] = 0.25 * (old[i * m + j + 1] + old[i * m + j - 1] + old[(i + 1) * m + j] + old[(i - 1) * m + j]);
  }
  EXPECT_TRUE(close(p.to_host(), hp));
  EXPECT_EQ(sp.kernels, steps);
}

// Recomputation at shifts is one level deep: d = a(hi) - a(lo) is recomputed inside its reader's
// shifts, but s = d(hi) * d(lo), read shifted itself, is stored, since recomputing it at each of
// its shifts would recompute d at each of those shifts again (a reconstruction's slopes of
// differences: the work doubles per level).
// Unbatched: s's kernel and c's are both small, and would run as one batch.
TEST_F(UnbatchedTest, ShiftedRecomputationIsOneLevelDeep) {
  const int64_t n = 17;
  const auto h = test_values<double>(n, 5);
  auto a = ts::from_host<double>({n}, h);
  reset_stats_now(rt());
  auto c = [&] {
    auto d = a(slice(1, end)) - a(slice(0, -1));
    auto s = d(slice(1, end)) * d(slice(0, -1));
    return s(slice(1, end)) + s(slice(0, -1));
  }();
  const auto got = c.to_host();
  const ts::Stats st = stats_now(rt());
  std::vector<double> d, sv, want;
  for (int64_t i = 0; i + 1 < n; ++i) d.push_back(h[i + 1] - h[i]);
  for (std::size_t i = 0; i + 1 < d.size(); ++i) sv.push_back(d[i + 1] * d[i]);
  for (std::size_t i = 0; i + 1 < sv.size(); ++i) want.push_back(sv[i + 1] + sv[i]);
  EXPECT_TRUE(close(got, want));
  EXPECT_EQ(st.kernels, 2);  // s stored (d recomputed inside its kernel), then c from s's shifts
}

// A temporary computed from a positional one (an arange, recomputed inside it) and read through
// a shifted view is stored, not recomputed at the shift: the planner recomputed it there, and the
// arange inside took the reader's index (`v = abs(arange(7)); roll(v, 1, 0)` gave 0 0 1 ..., and
// `copy(v(slice(1, 6)))` 0 1 2 3 4; test_fuzz seeds 1887 and 1914 at np 1).
TEST_F(TesseraTest, ShiftedReadsOfATemporaryOfAnArange) {
  auto rolled = [] {
    auto v = ts::abs(ts::arange<double>(7));
    return ts::roll(v, 1, 0);  // v has no handle left when the window runs
  }();
  EXPECT_TRUE(close(rolled.to_host(), {6, 0, 1, 2, 3, 4, 5}, 0.0));
  auto sliced = [] {
    auto w = ts::full<double>({7}, 1.0) + ts::arange<double>(7);
    return ts::copy(w(slice(1, 6)));
  }();
  EXPECT_TRUE(close(sliced.to_host(), {2, 3, 4, 5, 6}, 0.0));
  auto strided = [] {
    auto x = ts::linspace<double>(0, 6, 7) * 2.0;
    return ts::copy(x(slice(2, end, 2)));
  }();
  EXPECT_TRUE(close(strided.to_host(), {4, 8, 12}, 0.0));
}

// The pressure iteration of "12 steps to Navier-Stokes"' lid-driven cavity: the interior update
// (the copy folded in), then four boundary conditions on strips that meet at the corners, which
// run as one kernel in program order (a corner written by one strip is read by the next).
namespace {

// Runs the iteration `iterations` times once its plans have settled, checks p against the host,
// and returns what ran.
ts::Stats cavity_pressure_iterations(ts::Runtime& runtime, int iterations) {
  const int64_t ny = 13, nx = 11;
  const double dx = 2.0 / (nx - 1), dy = 2.0 / (ny - 1);
  auto hp = test_values<double>(ny * nx, 5), hb = test_values<double>(ny * nx, 6);
  auto p = ts::from_host<double>({ny, nx}, hp);
  auto b = ts::from_host<double>({ny, nx}, hb);
  const auto in = slice(1, -1);
  const double c = 1.0 / (2 * (dx * dx + dy * dy)), cb = dx * dx * dy * dy * c;
  auto iteration = [&] {
    auto pn = ts::copy(p);
    p(in, in).assign(((pn(in, slice(2, end)) + pn(in, slice(0, -2))) * (dy * dy) +
                      (pn(slice(2, end), in) + pn(slice(0, -2), in)) * (dx * dx)) *
                         c -
                     cb * b(in, in));
    p(ts::all, -1).assign(p(ts::all, -2));
    p(0, ts::all).assign(p(1, ts::all));
    p(ts::all, 0).assign(p(ts::all, 1));
    p(-1, ts::all).assign(0.0);
  };
  auto host_iteration = [&] {
    const auto pn = hp;
    for (int64_t i = 1; i < ny - 1; ++i)
      for (int64_t j = 1; j < nx - 1; ++j)
        hp[i * nx + j] = ((pn[i * nx + j + 1] + pn[i * nx + j - 1]) * (dy * dy) +
                          (pn[(i + 1) * nx + j] + pn[(i - 1) * nx + j]) * (dx * dx)) *
                             c -
                         cb * hb[i * nx + j];
    for (int64_t i = 0; i < ny; ++i) hp[i * nx + nx - 1] = hp[i * nx + nx - 2];
    for (int64_t j = 0; j < nx; ++j) hp[j] = hp[nx + j];
    for (int64_t i = 0; i < ny; ++i) hp[i * nx] = hp[i * nx + 1];
    for (int64_t j = 0; j < nx; ++j) hp[(ny - 1) * nx + j] = 0.0;
  };
  for (int q = 0; q < 4; ++q) iteration(), host_iteration();  // the plans settle
  reset_stats_now(runtime);
  for (int q = 0; q < iterations; ++q) iteration(), host_iteration();
  const ts::Stats st = stats_now(runtime);
  EXPECT_TRUE(close(p.to_host(), hp, 1e-12));
  return st;
}

}  // namespace

// By default (Config::batch_elements 4096) the four strips run as one single-block kernel.
TEST_F(TesseraTest, CavityPressureIterationIsTwoKernels) {
  // The strips read the row or column beside them, which their rank holds: no exchange, so they
  // batch at any rank count.
  const int iterations = 8;
  const ts::Stats st = cavity_pressure_iterations(rt(), iterations);
  EXPECT_LE(st.kernels, 2 * iterations);
  // The interior update renames p after the strips wrote its frame: the strips' batch copies the
  // frame into the buffer the update will write (at one rank the update joins the batch), so no
  // iteration launches a copy of its own but one whose strips end a window (the next update is
  // in the next window's plan).
  EXPECT_LT(st.frame_copies, iterations);
  if (rt().size() == 1) EXPECT_EQ(st.frame_copies, 0);
}

// With batching off (TESSERA_BATCH_ELEMENTS=0) each strip is a kernel of its own: the interior
// update and four strips.
TEST_F(UnbatchedTest, CavityStripsLaunchApart) {
  const int iterations = 8;
  const ts::Stats st = cavity_pressure_iterations(rt(), iterations);
  EXPECT_EQ(st.kernels, 5 * iterations);
  EXPECT_EQ(st.frame_copies, iterations);  // each update's, after the strips wrote the frame
}

// Each level of this chain reads the one before twice, through two temporaries: there are 2^k
// paths from the last op to the first through k levels, and the planner, which recomputes the
// temporaries inside their readers, must not follow each one (it once expanded every path at
// every question it asked of an op: 25 levels, 2^25 paths, did not plan within two minutes;
// each op's reads are now computed once per planning round).
TEST_F(TesseraTest, ChainOfTemporariesReadTwicePlansEachOpOnce) {
  const int64_t n = 11;
  const int levels = 25;
  const auto h = test_values<double>(n, 6);
  auto a = ts::from_host<double>({n}, h);
  reset_stats_now(rt());
  ts::Array<double> x = a;
  for (int k = 0; k < levels; ++k) x = (x + 1.0) * (x - 1.0) * 0.5;
  const auto got = x.to_host();
  const ts::Stats st = stats_now(rt());
  std::vector<double> want = h;
  for (int k = 0; k < levels; ++k)
    for (double& v : want) v = (v + 1.0) * (v - 1.0) * 0.5;
  EXPECT_TRUE(close(got, want));
  EXPECT_EQ(st.kernels, 1);
}
