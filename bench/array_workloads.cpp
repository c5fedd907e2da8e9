// Workloads of the array language and of programs as their authors write them (issues 16, 17):
// reductions along an axis, centering by a broadcast mean, k-means' assignment step,
// cuPyNumeric's 27-point stencil and a Lax-Wendroff shallow-water step. Inputs come from
// ts::random (bench::uniform on the host), and each run checks samples of its result on the host.

#include <cmath>
#include <string>
#include <vector>

#include <tessera/fusion/window.hpp>

#include "measure.hpp"
#include "systems.hpp"
#include "workloads.hpp"

namespace ts = tessera;

namespace bench::tessera_system {
namespace {

using ts::end;
using ts::slice;

// Ends the iteration's op window (runs it; no device wait). The iterations of the one-statement
// loops below are independent (each result replaces the last, unread), and without this tessera
// fuses several of them into one pass over the input, which the peers make once per iteration:
// each iteration then computes its own result, as theirs do.
void end_iteration() { ts::detail::flush_window(); }

bool near(double got, double want, double rtol) { return std::abs(got - want) <= rtol * std::max(1.0, std::abs(want)); }

// The 27-point average of cuPyNumeric's stencil_27.py (sums along the last axis, then planes).
void stencil27_step(const ts::Array<double>& grid) {
  auto s = [](int k) { return k == 0 ? slice(0, -2) : k == 1 ? slice(1, -1) : slice(2, end); };
  ts::Array<double> rows[3][3], planes[3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) rows[a][b] = grid(s(a), s(b), s(0)) + grid(s(a), s(b), s(1)) + grid(s(a), s(b), s(2));
  for (int a = 0; a < 3; ++a) planes[a] = rows[a][0] + rows[a][1] + rows[a][2];
  grid(s(1), s(1), s(1)).assign(0.037 * (planes[0] + planes[1] + planes[2]));
}

// The final value at grid point (p, p, p) of an (m x m x m) grid after `steps` steps, on the host:
// the cube of radius `steps` around it, clipped to the grid, evolved while its valid part shrinks
// by one cell per step on every side that is not the grid's (fixed) boundary.
double host_stencil27_point(std::int64_t m, std::int64_t p, int steps, std::uint64_t seed) {
  const std::int64_t lo = std::max<std::int64_t>(0, p - steps), hi = std::min<std::int64_t>(m - 1, p + steps);
  const std::int64_t w = hi - lo + 1;
  std::vector<double> g(static_cast<std::size_t>(w * w * w));
  auto at = [&](std::vector<double>& v, std::int64_t i, std::int64_t j, std::int64_t k) -> double& {
    return v[static_cast<std::size_t>(((i - lo) * w + (j - lo)) * w + (k - lo))];
  };
  for (std::int64_t i = lo; i <= hi; ++i)
    for (std::int64_t j = lo; j <= hi; ++j)
      for (std::int64_t k = lo; k <= hi; ++k) at(g, i, j, k) = uniform(seed, (i * m + j) * m + k);
  std::int64_t vlo = lo, vhi = hi;  // valid cube (the same bounds in all three dimensions)
  for (int t = 0; t < steps; ++t) {
    std::vector<double> old = g;
    const std::int64_t nlo = vlo == 0 ? 0 : vlo + 1, nhi = vhi == m - 1 ? m - 1 : vhi - 1;
    for (std::int64_t i = std::max<std::int64_t>(nlo, 1); i <= std::min(nhi, m - 2); ++i)
      for (std::int64_t j = std::max<std::int64_t>(nlo, 1); j <= std::min(nhi, m - 2); ++j)
        for (std::int64_t k = std::max<std::int64_t>(nlo, 1); k <= std::min(nhi, m - 2); ++k) {
          double sum = 0;
          for (int a = -1; a <= 1; ++a) {
            double plane = 0;
            for (int b = -1; b <= 1; ++b)
              plane += at(old, i + a, j + b, k - 1) + at(old, i + a, j + b, k) + at(old, i + a, j + b, k + 1);
            sum += plane;
          }
          at(g, i, j, k) = 0.037 * sum;
        }
    vlo = nlo, vhi = nhi;
  }
  return at(g, p, p, p);
}

// One Lax-Wendroff step of the shallow-water equations with reflective boundaries (Moler's
// water wave), over an (n+2)^2 grid.
struct Water {
  double g = 9.8, dt = 0.02, dx = 1.0, dy = 1.0;
};

void shallow_water_step(ts::Array<double>& H, ts::Array<double>& U, ts::Array<double>& V, std::int64_t n,
                        const Water& w) {
  const auto in = slice(1, -1), hi = slice(1, end), lo = slice(0, -1);
  H(ts::all, 0).assign(H(ts::all, 1));
  U(ts::all, 0).assign(U(ts::all, 1));
  V(ts::all, 0).assign(-V(ts::all, 1));
  H(ts::all, n + 1).assign(H(ts::all, n));
  U(ts::all, n + 1).assign(U(ts::all, n));
  V(ts::all, n + 1).assign(-V(ts::all, n));
  H(0, ts::all).assign(H(1, ts::all));
  U(0, ts::all).assign(-U(1, ts::all));
  V(0, ts::all).assign(V(1, ts::all));
  H(n + 1, ts::all).assign(H(n, ts::all));
  U(n + 1, ts::all).assign(-U(n, ts::all));
  V(n + 1, ts::all).assign(V(n, ts::all));
  const double g2 = w.g / 2, cx = w.dt / (2 * w.dx), cy = w.dt / (2 * w.dy);
  auto Hs = H(hi, in), Hn = H(lo, in), Us = U(hi, in), Un = U(lo, in), Vs = V(hi, in), Vn = V(lo, in);
  auto Hx = 0.5 * (Hs + Hn) - cx * (Us - Un);
  auto Ux = 0.5 * (Us + Un) - cx * ((Us * Us / Hs + g2 * Hs * Hs) - (Un * Un / Hn + g2 * Hn * Hn));
  auto Vx = 0.5 * (Vs + Vn) - cx * (Us * Vs / Hs - Un * Vn / Hn);
  auto He = H(in, hi), Hw = H(in, lo), Ue = U(in, hi), Uw = U(in, lo), Ve = V(in, hi), Vw = V(in, lo);
  auto Hy = 0.5 * (He + Hw) - cy * (Ve - Vw);
  auto Uy = 0.5 * (Ue + Uw) - cy * (Ve * Ue / He - Vw * Uw / Hw);
  auto Vy = 0.5 * (Ve + Vw) - cy * ((Ve * Ve / He + g2 * He * He) - (Vw * Vw / Hw + g2 * Hw * Hw));
  const double fx = w.dt / w.dx, fy = w.dt / w.dy;
  H(in, in) -= fx * (Ux(hi, ts::all) - Ux(lo, ts::all)) + fy * (Vy(ts::all, hi) - Vy(ts::all, lo));
  U(in, in) -=
      fx * ((Ux(hi, ts::all) * Ux(hi, ts::all) / Hx(hi, ts::all) + g2 * Hx(hi, ts::all) * Hx(hi, ts::all)) -
            (Ux(lo, ts::all) * Ux(lo, ts::all) / Hx(lo, ts::all) + g2 * Hx(lo, ts::all) * Hx(lo, ts::all))) +
      fy * (Vy(ts::all, hi) * Uy(ts::all, hi) / Hy(ts::all, hi) - Vy(ts::all, lo) * Uy(ts::all, lo) / Hy(ts::all, lo));
  V(in, in) -=
      fx * (Ux(hi, ts::all) * Vx(hi, ts::all) / Hx(hi, ts::all) - Ux(lo, ts::all) * Vx(lo, ts::all) / Hx(lo, ts::all)) +
      fy * ((Vy(ts::all, hi) * Vy(ts::all, hi) / Hy(ts::all, hi) + g2 * Hy(ts::all, hi) * Hy(ts::all, hi)) -
            (Vy(ts::all, lo) * Vy(ts::all, lo) / Hy(ts::all, lo) + g2 * Hy(ts::all, lo) * Hy(ts::all, lo)));
}

// The shallow-water inputs: a depth near 1 and small velocities.
constexpr std::uint64_t kSeedH = 16, kSeedU = 17, kSeedV = 18;
double depth0(std::int64_t f) { return 1.0 + 0.1 * uniform(kSeedH, f); }
double velocity0(std::uint64_t seed, std::int64_t f) { return 0.01 * (uniform(seed, f) - 0.5); }

// H, U, V at grid point (p, p) after `steps` steps, on the host, from the square of radius
// steps + 1 around it (one cell of reach per step; the sample is far from the boundary, whose
// reflections it then never sees).
std::vector<double> host_water_point(std::int64_t n, std::int64_t p, int steps, const Water& w) {
  const std::int64_t m = n + 2, r = steps + 1, lo = p - r, width = 2 * r + 1;
  std::vector<double> H(width * width), U(width * width), V(width * width);
  auto ix = [&](std::int64_t i, std::int64_t j) { return static_cast<std::size_t>((i - lo) * width + (j - lo)); };
  for (std::int64_t i = lo; i < lo + width; ++i)
    for (std::int64_t j = lo; j < lo + width; ++j) {
      H[ix(i, j)] = depth0(i * m + j);
      U[ix(i, j)] = velocity0(kSeedU, i * m + j);
      V[ix(i, j)] = velocity0(kSeedV, i * m + j);
    }
  const double g2 = w.g / 2, cx = w.dt / (2 * w.dx), cy = w.dt / (2 * w.dy), fx = w.dt / w.dx, fy = w.dt / w.dy;
  std::int64_t a = lo, b = lo + width - 1;  // valid square [a, b]^2
  for (int t = 0; t < steps; ++t) {
    // Half steps at i + 1/2 (x) and j + 1/2 (y), for i in [a, b).
    const std::int64_t k = b - a;
    std::vector<double> Hx(k * (k + 1)), Ux(Hx), Vx(Hx), Hy(Hx), Uy(Hx), Vy(Hx);
    auto hx = [&](std::int64_t i, std::int64_t j) { return static_cast<std::size_t>((i - a) * (k + 1) + (j - a)); };
    for (std::int64_t i = a; i < b; ++i)
      for (std::int64_t j = a; j <= b; ++j) {
        const double hs = H[ix(i + 1, j)], hn = H[ix(i, j)], us = U[ix(i + 1, j)], un = U[ix(i, j)];
        const double vs = V[ix(i + 1, j)], vn = V[ix(i, j)];
        Hx[hx(i, j)] = 0.5 * (hs + hn) - cx * (us - un);
        Ux[hx(i, j)] = 0.5 * (us + un) - cx * ((us * us / hs + g2 * hs * hs) - (un * un / hn + g2 * hn * hn));
        Vx[hx(i, j)] = 0.5 * (vs + vn) - cx * (us * vs / hs - un * vn / hn);
        const double he = H[ix(j, i + 1)], hw = H[ix(j, i)], ue = U[ix(j, i + 1)], uw = U[ix(j, i)];
        const double ve = V[ix(j, i + 1)], vw = V[ix(j, i)];
        Hy[hx(i, j)] = 0.5 * (he + hw) - cy * (ve - vw);  // at (j, i + 1/2), stored transposed
        Uy[hx(i, j)] = 0.5 * (ue + uw) - cy * (ve * ue / he - vw * uw / hw);
        Vy[hx(i, j)] = 0.5 * (ve + vw) - cy * ((ve * ve / he + g2 * he * he) - (vw * vw / hw + g2 * hw * hw));
      }
    for (std::int64_t i = a + 1; i < b; ++i)
      for (std::int64_t j = a + 1; j < b; ++j) {
        // x fluxes at (i -/+ 1/2, j): Hx[i - 1][j], Hx[i][j]; y fluxes at (i, j -/+ 1/2): Hy[j - 1][i], Hy[j][i].
        const std::size_t xs = hx(i, j), xn = hx(i - 1, j), ye = hx(j, i), yw = hx(j - 1, i);
        H[ix(i, j)] -= fx * (Ux[xs] - Ux[xn]) + fy * (Vy[ye] - Vy[yw]);
        U[ix(i, j)] -= fx * ((Ux[xs] * Ux[xs] / Hx[xs] + g2 * Hx[xs] * Hx[xs]) -
                             (Ux[xn] * Ux[xn] / Hx[xn] + g2 * Hx[xn] * Hx[xn])) +
                       fy * (Vy[ye] * Uy[ye] / Hy[ye] - Vy[yw] * Uy[yw] / Hy[yw]);
        V[ix(i, j)] -= fx * (Ux[xs] * Vx[xs] / Hx[xs] - Ux[xn] * Vx[xn] / Hx[xn]) +
                       fy * ((Vy[ye] * Vy[ye] / Hy[ye] + g2 * Hy[ye] * Hy[ye]) -
                             (Vy[yw] * Vy[yw] / Hy[yw] + g2 * Hy[yw] * Hy[yw]));
      }
    ++a, --b;
  }
  return {H[ix(p, p)], U[ix(p, p)], V[ix(p, p)]};
}

}  // namespace

// sum(A, 1) of a rows x n float64 matrix: one pass over A, a result per row.
Result axis_sum(ts::Runtime& rt, const Options& o) {
  const std::uint64_t seed = 11;
  auto A = ts::random<double>({o.rows, o.n}, seed);
  ts::Array<double> s;
  Result r;
  measure(rt, o, r, [&] {
    s = ts::sum(A, 1);
    end_iteration();
  });
  r.ops_per_iter = 1;
  r.min_bytes_per_iter = 8.0 * static_cast<double>(o.rows) * static_cast<double>(o.n + 1);
  Check c{true, true, "rows 0, rows/2 and rows-1 summed on the host"};
  for (std::int64_t i : {std::int64_t(0), o.rows / 2, o.rows - 1}) {
    double want = 0;
    for (std::int64_t j = 0; j < o.n; ++j) want += uniform(seed, i * o.n + j);
    const double got = s(i).item();
    if (!near(got, want, 1e-12)) c = {false, true, format("row %.0f: got %.17g, want %.17g", i, got, want)};
  }
  set_check(r, c);
  r.checksum = ts::sum(s).item();
  return r;
}

// A - mean(A, 0): every column centered (a broadcast of the column means over the rows).
Result center(ts::Runtime& rt, const Options& o) {
  const std::uint64_t seed = 12;
  auto A = ts::random<double>({o.rows, o.n}, seed);
  ts::Array<double> B;
  Result r;
  measure(rt, o, r, [&] {
    B = A - ts::mean(A, 0, true);
    end_iteration();
  });
  r.ops_per_iter = 2;
  r.min_bytes_per_iter = 16.0 * static_cast<double>(o.rows) * static_cast<double>(o.n);
  Check c{true, true, "columns 0, n/2 and n-1 centered on the host"};
  for (std::int64_t j : {std::int64_t(0), o.n / 2, o.n - 1}) {
    double mean = 0;
    for (std::int64_t i = 0; i < o.rows; ++i) mean += uniform(seed, i * o.n + j);
    mean /= static_cast<double>(o.rows);
    for (std::int64_t i : {std::int64_t(0), o.rows - 1}) {
      const double want = uniform(seed, i * o.n + j) - mean, got = B(i, j).item();
      if (!near(got, want, 1e-12)) c = {false, true, format("(%.0f, %.0f): got %.17g", i, j, got)};
    }
  }
  set_check(r, c);
  r.checksum = ts::sum(B).item();
  return r;
}

// k-means' assignment step: the nearest of 16 centroids for each of n points in 8 dimensions,
// by broadcasting: argmin(sum(square(P[:, None, :] - C[None, :, :]), 2), 1).
Result kmeans_assign(ts::Runtime& rt, const Options& o) {
  constexpr std::int64_t kDims = 8, kCentroids = 16;
  const std::uint64_t seed_p = 13, seed_c = 14;
  auto P = ts::random<double>({o.n, kDims}, seed_p);
  auto C = ts::random<double>({kCentroids, kDims}, seed_c);
  ts::Array<std::int64_t> nearest;
  Result r;
  measure(rt, o, r, [&] {
    // One statement: no handle holds the differences or the distances when the window runs, so
    // both stay temporaries of one nested kernel (docs/FUSION.md, nested reductions).
    nearest =
        ts::argmin(ts::sum(ts::square(P(ts::all, ts::newaxis, ts::all) - C(ts::newaxis, ts::all, ts::all)), 2), 1);
    end_iteration();
  });
  r.ops_per_iter = 4;
  r.min_bytes_per_iter = static_cast<double>(o.n) * (8.0 * kDims + 8.0);
  Check c{true, true, "64 points' nearest centroids found on the host"};
  for (int k = 0; k < 64; ++k) {
    const std::int64_t i = o.n * k / 64;
    std::int64_t best = 0;
    double best_d = 0;
    for (std::int64_t j = 0; j < kCentroids; ++j) {
      double dist = 0;
      for (std::int64_t m = 0; m < kDims; ++m) {
        const double e = uniform(seed_p, i * kDims + m) - uniform(seed_c, j * kDims + m);
        dist += e * e;
      }
      if (j == 0 || dist < best_d) best = j, best_d = dist;
    }
    const std::int64_t got = nearest(i).item();
    if (got != best) c = {false, true, format("point %.0f: got %.0f, want %.0f", i, got, best)};
  }
  set_check(r, c);
  r.checksum = static_cast<double>(ts::sum(nearest).item());
  return r;
}

// cuPyNumeric's 27-point stencil on an (n+2)^3 grid, in place.
Result stencil27(ts::Runtime& rt, const Options& o) {
  const std::uint64_t seed = 15;
  const std::int64_t m = o.n + 2;
  auto grid = ts::random<double>({m, m, m}, seed);
  Result r;
  measure(rt, o, r, [&] { stencil27_step(grid); });
  r.ops_per_iter = 28;
  r.min_bytes_per_iter = 16.0 * static_cast<double>(o.n) * static_cast<double>(o.n) * static_cast<double>(o.n);
  const int steps = o.warmup + o.iters;
  Check c{true, true, "points (p, p, p) for p = 1, the middle and n recomputed on the host"};
  for (std::int64_t p : {std::int64_t(1), m / 2, o.n}) {
    const double want = host_stencil27_point(m, p, steps, seed), got = grid(p, p, p).item();
    if (!near(got, want, 1e-11)) c = {false, true, format("point %.0f: got %.17g, want %.17g", p, got, want)};
  }
  set_check(r, c);
  r.checksum = ts::sum(grid).item();
  return r;
}

// A Lax-Wendroff shallow-water step on an (n+2)^2 grid with reflective boundaries.
Result shallow_water(ts::Runtime& rt, const Options& o) {
  const Water w;
  const std::int64_t n = o.n, m = n + 2;
  auto H = 1.0 + 0.1 * ts::random<double>({m, m}, kSeedH);
  auto U = 0.01 * (ts::random<double>({m, m}, kSeedU) - 0.5);
  auto V = 0.01 * (ts::random<double>({m, m}, kSeedV) - 0.5);
  Result r;
  measure(rt, o, r, [&] { shallow_water_step(H, U, V, n, w); });
  r.ops_per_iter = 0;
  r.min_bytes_per_iter = 48.0 * static_cast<double>(n) * static_cast<double>(n);  // H, U, V read and written
  const int steps = o.warmup + o.iters;
  const std::int64_t p = m / 2;
  Check c{false, true, ""};
  if (p - steps - 1 < 1 || p + steps + 1 > n) {
    c = {true, false, "the grid is too small for a sample that the boundaries cannot reach"};
  } else {
    const std::vector<double> want = host_water_point(n, p, steps, w);
    const double h = H(p, p).item(), u = U(p, p).item(), v = V(p, p).item();
    c.ok = near(h, want[0], 1e-10) && near(u, want[1], 1e-10) && near(v, want[2], 1e-10);
    c.detail = c.ok ? "H, U, V at the middle recomputed on the host"
                    : format("H U V at the middle: %.17g %.17g %.17g", h, u, v) +
                          format(", want %.17g %.17g %.17g", want[0], want[1], want[2]);
  }
  set_check(r, c);
  r.checksum = ts::sum(H).item();
  return r;
}

}  // namespace bench::tessera_system
