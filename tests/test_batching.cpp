// Small groups run as batches (Config::batch_elements): consecutive groups of at most that many
// elements each go as one kernel that runs them in program order, also over one domain and where a
// group writes a store into a fresh buffer (buffer renaming) that the next group reads: the sweeps
// on the coarse levels of a multigrid cycle, the boundary conditions after them. Consecutive
// groups of any size that touch nothing another writes go as one kernel too, in any order (a
// prolongation's four updates; on several ranks what they read from other ranks is fetched
// before the kernel). Each program is checked against a serial host reference at every rank
// count; small groups are counted at one rank, where none needs a halo (a group that does runs on
// its own).

#include <cstdint>
#include <vector>

#include "support.hpp"

namespace {

using std::int64_t;
using ts::end;
using ts::slice;

const auto in = slice(1, -1), lo = slice(0, -2), hi = slice(2, end);

// `sweeps` in-place updates of u's interior from its four neighbours (each one renames u's buffer:
// it reads the cells it writes through shifted views), with a boundary row written after the
// first half: the next sweep's fresh buffer must then take the new row (a frame copy).
template <class T>
void sweeps(ts::Array<T>& u, const ts::Array<T>& f, int count) {
  for (int s = 0; s < count; ++s) {
    u(in, in).assign(u(lo, in) + u(hi, in) - u(in, lo) + f(in, in) - u(in, hi) * T(2));
    if (s == count / 2 - 1) u(0, ts::all).assign(u(1, ts::all) + T(1));
  }
}

template <class T>
std::vector<T> host_sweeps(std::vector<T> u, const std::vector<T>& f, int64_t ny, int64_t nx, int count) {
  for (int s = 0; s < count; ++s) {
    const std::vector<T> old = u;
    for (int64_t i = 1; i < ny - 1; ++i)
      for (int64_t j = 1; j < nx - 1; ++j)
        u[i * nx + j] = old[(i - 1) * nx + j] + old[(i + 1) * nx + j] - old[i * nx + j - 1] + f[i * nx + j] -
                        old[i * nx + j + 1] * T(2);
    if (s == count / 2 - 1)
      for (int64_t j = 0; j < nx; ++j) u[j] = u[nx + j] + T(1);
  }
  return u;
}

template <class T>
void check_sweeps(ts::Runtime& runtime) {
  const int64_t ny = 9, nx = 10;
  const int count = 6;
  const auto hu = test_values<T>(ny * nx, 1), hf = test_values<T>(ny * nx, 2);
  auto u = ts::from_host<T>({ny, nx}, hu);
  const auto f = ts::from_host<T>({ny, nx}, hf);
  runtime.flush();
  reset_stats_now(runtime);
  sweeps(u, f, count);
  const ts::Stats st = stats_now(runtime);
  EXPECT_TRUE(close(u.to_host(), host_sweeps(hu, hf, ny, nx, count), 1e-12));
  if (runtime.size() == 1) {
    // Seven groups; the first sweep and the one after the row copy u's tile into their fresh buffer
    // first (a part of the batch, not a kernel of its own), the others find its frame current:
    // nine parts, two batches of at most eight.
    EXPECT_EQ(st.kernels, 2);
    EXPECT_EQ(st.frame_copies, 0);
    EXPECT_EQ(st.buffer_renames, count);
  }
}

}  // namespace

TEST_F(TesseraTest, SweepsOverASmallGridRunAsBatches) {
  check_sweeps<double>(rt());
  check_sweeps<int64_t>(rt());
}

// Batching off: each sweep and the row are kernels of their own, with the same results.
TEST_F(UnbatchedTest, SweepsOverASmallGridLaunchApart) {
  const int64_t ny = 9, nx = 10;
  const int count = 6;
  const auto hu = test_values<double>(ny * nx, 3), hf = test_values<double>(ny * nx, 4);
  auto u = ts::from_host<double>({ny, nx}, hu);
  const auto f = ts::from_host<double>({ny, nx}, hf);
  rt().flush();
  reset_stats_now(rt());
  sweeps(u, f, count);
  const ts::Stats st = stats_now(rt());
  EXPECT_TRUE(close(u.to_host(), host_sweeps(hu, hf, ny, nx, count), 1e-12));
  EXPECT_EQ(st.kernels, count + 1);
  EXPECT_EQ(st.frame_copies, 2);  // kernels of their own: the first sweep's and the one after the row
}

// A 2-level cycle in miniature: a sweep on the fine grid, a restriction by a step-2 view into a
// coarse grid that is zeroed and swept (renamed) and prolonged back, all of at most a few hundred
// elements: at one rank the coarse work is batched with its neighbours, and the frame of the
// coarse grid (written whole by the zeroing) is copied inside the batch.
TEST_F(TesseraTest, RestrictSweepProlongOverSmallGrids) {
  const int64_t n = 17, m = 9;
  const auto hu = test_values<double>(n * n, 5), hf = test_values<double>(n * n, 6);
  auto u = ts::from_host<double>({n, n}, hu);
  const auto f = ts::from_host<double>({n, n}, hf);
  auto c = ts::zeros<double>({m, m});
  std::vector<double> ref = hu, hc(m * m, 0.0);
  const auto even = slice(0, end, 2);
  for (int cycle = 0; cycle < 3; ++cycle) {
    sweeps(u, f, 2);
    ref = host_sweeps(ref, hf, n, n, 2);
    c.assign(0.0);
    c(in, in).assign(u(slice(2, -2, 2), slice(2, -2, 2)));
    for (int s = 0; s < 2; ++s) c(in, in).assign(0.25 * (c(lo, in) + c(hi, in) + c(in, lo) + c(in, hi)) + 1.0);
    u(even, even) += c;
    std::fill(hc.begin(), hc.end(), 0.0);
    for (int64_t i = 1; i < m - 1; ++i)
      for (int64_t j = 1; j < m - 1; ++j) hc[i * m + j] = ref[(2 * i) * n + 2 * j];
    for (int s = 0; s < 2; ++s) {
      const std::vector<double> old = hc;
      for (int64_t i = 1; i < m - 1; ++i)
        for (int64_t j = 1; j < m - 1; ++j)
          hc[i * m + j] =
              0.25 * (old[(i - 1) * m + j] + old[(i + 1) * m + j] + old[i * m + j - 1] + old[i * m + j + 1]) + 1.0;
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j) ref[(2 * i) * n + 2 * j] += hc[i * m + j];
  }
  EXPECT_TRUE(close(c.to_host(), hc, 1e-12));
  EXPECT_TRUE(close(u.to_host(), ref, 1e-12));
}

namespace {

// Bilinear prolongation of a coarse correction e ((m + 1) / 2 points a side) into u (m a side),
// as a multigrid cycle writes it: four compound assignments into step-2 views of u (even rows and
// columns, odd rows, odd columns, both odd) that never meet, each reading e through shifts.
void prolong_add(const ts::Array<double>& e, ts::Array<double>& u) {
  const auto even = slice(0, end, 2), odd = slice(1, end, 2), a = slice(0, -1), b = slice(1, end);
  u(even, even) += e;
  u(odd, even) += 0.5 * (e(a, ts::all) + e(b, ts::all));
  u(even, odd) += 0.5 * (e(ts::all, a) + e(ts::all, b));
  u(odd, odd) += 0.25 * (e(a, a) + e(a, b) + e(b, a) + e(b, b));
}

std::vector<double> host_prolong_add(const std::vector<double>& e, std::vector<double> u, int64_t m) {
  const int64_t c = (m + 1) / 2;
  const auto E = [&](int64_t i, int64_t j) { return e[i * c + j]; };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j) {
      const int64_t I = i / 2, J = j / 2;
      double add = 0;
      if (i % 2 == 0 && j % 2 == 0) add = E(I, J);
      if (i % 2 == 1 && j % 2 == 0) add = 0.5 * (E(I, J) + E(I + 1, J));
      if (i % 2 == 0 && j % 2 == 1) add = 0.5 * (E(I, J) + E(I, J + 1));
      if (i % 2 == 1 && j % 2 == 1) add = 0.25 * (E(I, J) + E(I, J + 1) + E(I + 1, J) + E(I + 1, J + 1));
      u[i * m + j] += add;
    }
  return u;
}

// The prolongation of a grid whose step-2 views are larger than Config::batch_elements: the four
// updates; returns the kernels they took.
std::int64_t check_prolongation(ts::Runtime& runtime) {
  const int64_t m = 257, c = (m + 1) / 2;
  const auto hu = test_values<double>(m * m, 7), he = test_values<double>(c * c, 8);
  auto u = ts::from_host<double>({m, m}, hu);
  const auto e = ts::from_host<double>({c, c}, he);
  runtime.flush();
  reset_stats_now(runtime);
  prolong_add(e, u);
  const ts::Stats st = stats_now(runtime);
  EXPECT_TRUE(close(u.to_host(), host_prolong_add(he, hu, m), 1e-14));
  return st.kernels;
}

}  // namespace

// Groups of any size that touch nothing another writes run as one kernel, in any order, each
// over blocks of its own (fusion/window.cpp, batch_runs): the four updates of a prolongation
// write u's elements of four parities. On several ranks the updates read e through halos or
// redistributions (u's odd rows are not placed like e's rows), all fetched before the batch: no
// update writes what they read.
TEST_F(TesseraTest, IndependentUpdatesOfStepTwoViewsAreOneKernel) { EXPECT_EQ(check_prolongation(rt()), 1); }

TEST_F(UnbatchedTest, IndependentUpdatesLaunchApart) { EXPECT_EQ(check_prolongation(rt()), 4); }

// Two updates of different stores, each reading its own source through views a row apart: on
// several ranks both need halos (rows are cut), exchanged before the one kernel that runs both.
TEST_F(TesseraTest, IndependentUpdatesReadingHalosAreOneKernel) {
  const int64_t m = 130, w1 = 70, w2 = 90;  // two widths: two launch domains, two groups
  const auto ha = test_values<double>(m * w1, 11), hb = test_values<double>(m * w2, 12);
  const auto hs = test_values<double>(m * w1, 13), ht = test_values<double>(m * w2, 14);
  auto a = ts::from_host<double>({m, w1}, ha), b = ts::from_host<double>({m, w2}, hb);
  const auto s = ts::from_host<double>({m, w1}, hs), t = ts::from_host<double>({m, w2}, ht);
  rt().flush();
  reset_stats_now(rt());
  a(in, ts::all) += s(lo, ts::all) - s(hi, ts::all);
  b(in, ts::all) += 2.0 * t(hi, ts::all) + t(lo, ts::all);
  const ts::Stats st = stats_now(rt());
  auto want_a = ha, want_b = hb;
  for (int64_t i = 1; i + 1 < m; ++i) {
    for (int64_t j = 0; j < w1; ++j) want_a[i * w1 + j] += hs[(i - 1) * w1 + j] - hs[(i + 1) * w1 + j];
    for (int64_t j = 0; j < w2; ++j) want_b[i * w2 + j] += 2.0 * ht[(i + 1) * w2 + j] + ht[(i - 1) * w2 + j];
  }
  EXPECT_TRUE(close(a.to_host(), want_a, 1e-14));
  EXPECT_TRUE(close(b.to_host(), want_b, 1e-14));
  EXPECT_EQ(st.kernels, 1);
  if (rt().size() > 1) EXPECT_GE(st.halo_exchanges, 1);
}

// An update that reads what the one before it wrote is not independent of it: u's odd rows take
// the even rows' new values (two kernels, in order).
TEST_F(TesseraTest, UpdatesReadingAnEarlierWriteStayInOrder) {
  const int64_t m = 257, c = (m + 1) / 2;
  auto hu = test_values<double>(m * m, 9);
  const auto he = test_values<double>(c * c, 10);
  auto u = ts::from_host<double>({m, m}, hu);
  const auto e = ts::from_host<double>({c, c}, he);
  const auto even = slice(0, end, 2), odd = slice(1, end, 2);
  rt().flush();
  reset_stats_now(rt());
  u(even, even) += e;
  u(odd, even) += u(slice(0, -1, 2), even);
  const ts::Stats st = stats_now(rt());
  for (int64_t i = 0; i < m; i += 2)
    for (int64_t j = 0; j < m; j += 2) hu[i * m + j] += he[(i / 2) * c + j / 2];
  for (int64_t i = 1; i < m; i += 2)
    for (int64_t j = 0; j < m; j += 2) hu[i * m + j] += hu[(i - 1) * m + j];
  EXPECT_TRUE(close(u.to_host(), hu, 1e-14));
  EXPECT_EQ(st.kernels, 2);
}
