// A geometric multigrid V-cycle for the 2-D Poisson problem -laplace(u) = f on the unit square,
// u = 0 on the boundary, 5-point finite differences on an n x n grid (n = 2^k + 1 points a side,
// boundary included). The cycle smooths with weighted Jacobi (omega = 4/5, two sweeps before and
// after) on interior slices, restricts the residual by full weighting and prolongs the correction
// bilinearly through step-2 slices (fine(ts::slice(1, ts::end, 2), ...)), and solves the 3 x 3
// grid exactly. It runs twice: --iters V-cycles as a solver, then --iters iterations of conjugate
// gradients preconditioned by one V-cycle (the cycle is symmetric, so it is a valid preconditioner).
//
//   mpirun -n 4 ./tessera-multigrid --n 257 --iters 10 [--warmup 2] [--check]
//
// f(x, y) = 1 + sin(3 x + 2 y). Prints, for both, the relative residual |f - A u| / |f| and the
// 2-norm of u, and the solver's mean residual reduction per cycle; --check fails unless that
// reduction is below 0.25 per cycle and PCG's residual below the solver's, where a residual of
// at most kRoundOff counts as converged (both solvers reach it at 2049^2 within 20 cycles, and
// the mean over cycles that only repeat round-off says nothing of the cycle). The NumPy twin is
// multigrid.py.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;
using ts::end;
using ts::slice;

namespace {

const auto in = slice(1, -1), lo = slice(0, -2), hi = slice(2, end);

struct Level {
  std::int64_t n;
  double h;
  ts::Array<double> u, f, r;  // solution (or correction), right-hand side, residual
};

// out = A u = (4 u - the four neighbours) / h^2 on the interior; out's boundary is left alone.
void apply_laplacian(const ts::Array<double>& u, ts::Array<double>& out, double h) {
  out(in, in).assign((4.0 * u(in, in) - u(lo, in) - u(hi, in) - u(in, lo) - u(in, hi)) / (h * h));
}

void smooth(Level& L, int sweeps) {
  const double omega = 0.8;
  for (int s = 0; s < sweeps; ++s)
    L.u(in, in).assign((1 - omega) * L.u(in, in) +
                       omega * 0.25 *
                           (L.u(lo, in) + L.u(hi, in) + L.u(in, lo) + L.u(in, hi) + L.h * L.h * L.f(in, in)));
}

// Full weighting: coarse point (I, J) is fine point (2I, 2J) weighted 4, its edge neighbours 2,
// its corners 1, over 16.
void restrict_residual(const ts::Array<double>& r, ts::Array<double>& coarse) {
  const auto c = slice(2, -2, 2), m = slice(1, -3, 2), p = slice(3, -1, 2);
  coarse(in, in).assign(
      (4.0 * r(c, c) + 2.0 * (r(m, c) + r(p, c) + r(c, m) + r(c, p)) + (r(m, m) + r(m, p) + r(p, m) + r(p, p))) / 16.0);
}

// Bilinear interpolation of the coarse correction e, added to u: coincident points take e,
// points between two coarse ones their mean, cell centres the mean of four.
void prolong_add(const ts::Array<double>& e, ts::Array<double>& u) {
  const auto even = slice(0, end, 2), odd = slice(1, end, 2), a = slice(0, -1), b = slice(1, end);
  u(even, even) += e;
  u(odd, even) += 0.5 * (e(a, ts::all) + e(b, ts::all));
  u(even, odd) += 0.5 * (e(ts::all, a) + e(ts::all, b));
  u(odd, odd) += 0.25 * (e(a, a) + e(a, b) + e(b, a) + e(b, b));
}

void vcycle(std::vector<Level>& levels, std::size_t l) {
  Level& L = levels[l];
  if (L.n == 3) {  // one unknown: 4 u / h^2 = f
    L.u(1, 1).assign(L.f(1, 1) * (L.h * L.h / 4.0));
    return;
  }
  smooth(L, 2);
  apply_laplacian(L.u, L.r, L.h);
  L.r(in, in).assign(L.f(in, in) - L.r(in, in));
  Level& C = levels[l + 1];
  restrict_residual(L.r, C.f);
  C.u.assign(0.0);
  vcycle(levels, l + 1);
  prolong_add(C.u, L.u);
  smooth(L, 2);
}

// The levels n, (n - 1) / 2 + 1, ..., 3, every array 0.
std::vector<Level> make_levels(std::int64_t n) {
  std::vector<Level> levels;
  for (std::int64_t m = n; m >= 3; m = (m - 1) / 2 + 1) {
    levels.push_back({m, 1.0 / static_cast<double>(m - 1), ts::zeros<double>({m, m}), ts::zeros<double>({m, m}),
                      ts::zeros<double>({m, m})});
    if (m == 3) break;
  }
  return levels;
}

double relative_residual(const ts::Array<double>& u, const ts::Array<double>& f, double h) {
  auto Au = ts::zeros_like(u);
  apply_laplacian(u, Au, h);
  return ts::norm(f(in, in) - Au(in, in)).item() / ts::norm(f(in, in)).item();
}

}  // namespace

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-multigrid", argc, argv);
  const std::int64_t n = args.integer("--n", 257, 3);
  const std::int64_t iters = args.integer("--iters", 10, 1);
  const std::int64_t warmup = args.integer("--warmup", 0, 0);
  const bool check = args.flag("--check");
  bool power = false;
  for (std::int64_t m = n - 1; m >= 2 && m % 2 == 0; m /= 2) power = m == 2;
  if (!args.ok() || !power) {
    if (rt.rank() == 0) {
      if (args.ok()) std::fprintf(stderr, "tessera-multigrid: error: --n must be 2^k + 1, got %lld\n", (long long)n);
      args.report();
    }
    return args.help() ? 0 : 2;
  }

  const double h = 1.0 / static_cast<double>(n - 1);
  auto x = ts::linspace<double>(0.0, 1.0, n);
  const ts::Array<double> f = 1.0 + ts::sin(3.0 * x(ts::all, ts::newaxis) + 2.0 * x(ts::newaxis, ts::all));

  // Multigrid as the solver: `steps` V-cycles from u = 0, timed from the first.
  std::vector<Level> levels;
  double mg_residual = 0, mg_ms = 0;
  LoopCounts mg_counts, pcg_counts;
  auto solver = [&](std::int64_t steps) {
    levels = make_levels(n);
    levels[0].f.assign(f);
    rt.flush();
    mg_counts.start(rt);
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t it = 0; it < steps; ++it) vcycle(levels, 0);
    mg_counts.recorded();
    mg_residual = relative_residual(levels[0].u, f, h);
    mg_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    mg_counts.stop(rt);
  };
  if (warmup > 0) solver(std::min(warmup, iters));  // untimed: kernels loaded, memory pool grown
  solver(iters);
  const double mg_norm = ts::norm(levels[0].u).item();
  const double rate = std::pow(mg_residual, 1.0 / static_cast<double>(iters));

  // Multigrid as CG's preconditioner: z = V-cycle(r) from z = 0.
  auto precondition = [&](const ts::Array<double>& r) {
    Level& top = levels[0];
    top.f.assign(r);
    top.u.assign(0.0);
    vcycle(levels, 0);
    return ts::copy(top.u);
  };
  // `steps` PCG iterations from u = 0, timed from the first V-cycle.
  ts::Array<double> u;
  double pcg_residual = 0, pcg_ms = 0;
  auto pcg = [&](std::int64_t steps) {
    levels = make_levels(n);
    u = ts::zeros<double>({n, n});
    auto q = ts::zeros<double>({n, n});
    auto r = ts::copy(f);
    r(0, ts::all).assign(0.0);  // the residual of the boundary rows and columns is not an unknown's
    r(-1, ts::all).assign(0.0);
    r(ts::all, 0).assign(0.0);
    r(ts::all, -1).assign(0.0);
    rt.flush();
    pcg_counts.start(rt);
    const auto start = std::chrono::steady_clock::now();
    auto z = precondition(r);
    auto p = ts::copy(z);
    auto rz = ts::vdot(r, z);
    for (std::int64_t it = 0; it < steps; ++it) {
      apply_laplacian(p, q, h);
      auto alpha = rz / ts::vdot(p, q);
      u += alpha * p;
      r -= alpha * q;
      z = precondition(r);
      auto rz_next = ts::vdot(r, z);
      p = z + (rz_next / rz) * p;
      rz = rz_next;
    }
    pcg_counts.recorded();
    pcg_residual = relative_residual(u, f, h);
    pcg_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    pcg_counts.stop(rt);
  };
  if (warmup > 0) pcg(std::min(warmup, iters));  // likewise
  pcg(iters);
  const double pcg_norm = ts::norm(u).item();

  const double kRoundOff = 1e-9;
  const bool mg_ok = rate < 0.25 || mg_residual <= kRoundOff;
  const bool ok = !check || (mg_ok && (pcg_residual < mg_residual || pcg_residual <= kRoundOff));
  if (rt.rank() == 0) {
    std::printf("multigrid: n=%lld levels=%zu iters=%lld ranks=%d\n", static_cast<long long>(n), levels.size(),
                static_cast<long long>(iters), rt.size());
    std::printf("mg_residual %.17g\n", mg_residual);
    std::printf("mg_rate %.17g\n", rate);
    std::printf("mg_norm %.17g\n", mg_norm);
    std::printf("pcg_residual %.17g\n", pcg_residual);
    std::printf("pcg_norm %.17g\n", pcg_norm);
    std::printf("time per V-cycle %.3f ms, per PCG iteration %.3f ms\n", mg_ms / static_cast<double>(iters),
                pcg_ms / static_cast<double>(iters));
    mg_counts.print(iters, "V-cycle");
    pcg_counts.print(iters, "PCG iteration");
    if (check)
      std::printf("check %s: %.3g reduction per V-cycle, PCG residual %.3g (solver %.3g)\n", ok ? "passed" : "FAILED",
                  rate, pcg_residual, mg_residual);
  }
  return ok ? 0 : 1;
}
