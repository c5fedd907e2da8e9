// The lid-driven cavity of Lorena Barba's "12 steps to Navier-Stokes" (step 11): incompressible
// flow in a square box whose lid moves at speed 1. Each time step builds the source term of the
// pressure Poisson equation from the velocities, relaxes the pressure with `--nit` Jacobi
// iterations (with its boundary conditions after each), then advances u and v and sets their
// boundary conditions. As the tutorial: a 2 x 2 box on an n x n grid, rho = 1, nu = 0.1, and
// dt = 0.001 (smaller on fine grids, where the explicit diffusion needs dt <= dx^2 / (4 nu)).
//
//   mpirun -n 4 ./tessera-cfd --n 41 --iters 500 --nit 50 [--warmup 2] [--check]
//
// Prints the 2-norms of u, v and p and their values at the middle of the box. --check fails
// unless every value is finite and the boundary conditions hold. The NumPy twin is cfd.py.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-cfd", argc, argv);
  const std::int64_t n = args.integer("--n", 41, 3);
  const std::int64_t iters = args.integer("--iters", 500, 0);
  const std::int64_t nit = args.integer("--nit", 50, 1);
  const std::int64_t warmup = args.integer("--warmup", 0, 0);
  const bool check = args.flag("--check");
  if (!args.ok()) {
    if (rt.rank() == 0) args.report();
    return args.help() ? 0 : 2;
  }
  const double dx = 2.0 / static_cast<double>(n - 1), dy = dx, rho = 1.0, nu = 0.1;
  const double dt = std::min(0.001, 0.1 * dx * dx / nu);

  // The tutorial's slices: rows are y, columns x.
  const auto in = ts::slice(1, -1), lo = ts::slice(0, -2), hi = ts::slice(2, ts::end);
  const auto all = ts::all;

  // `steps` time steps from rest, timed from the first.
  ts::Array<double> u, v, p, b;
  double u_norm = 0, ms = 0;
  LoopCounts loop;
  auto run = [&](std::int64_t steps) {
    u = ts::zeros<double>({n, n}), v = ts::zeros<double>({n, n}), p = ts::zeros<double>({n, n});
    b = ts::zeros<double>({n, n});
    rt.flush();
    loop.start(rt);
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t step = 0; step < steps; ++step) {
      const auto un = ts::copy(u), vn = ts::copy(v);
      // build_up_b: the source term from the velocity gradients.
      auto du_dx = (u(in, hi) - u(in, lo)) / (2 * dx), du_dy = (u(hi, in) - u(lo, in)) / (2 * dy);
      auto dv_dx = (v(in, hi) - v(in, lo)) / (2 * dx), dv_dy = (v(hi, in) - v(lo, in)) / (2 * dy);
      b(in, in).assign(rho * (1 / dt * (du_dx + dv_dy) - ts::square(du_dx) - 2 * (du_dy * dv_dx) - ts::square(dv_dy)));

      // pressure_poisson. The tutorial copies p to pn first; NumPy (and tessera) compute the right-hand
      // side before writing it, so the Jacobi sweep reads the old p without the copy.
      for (std::int64_t q = 0; q < nit; ++q) {
        p(in, in).assign(((p(in, hi) + p(in, lo)) * (dy * dy) + (p(hi, in) + p(lo, in)) * (dx * dx)) /
                             (2 * (dx * dx + dy * dy)) -
                         dx * dx * dy * dy / (2 * (dx * dx + dy * dy)) * b(in, in));
        p(all, -1).assign(p(all, -2));  // dp/dx = 0 at x = 2
        p(0, all).assign(p(1, all));    // dp/dy = 0 at y = 0
        p(all, 0).assign(p(all, 1));    // dp/dx = 0 at x = 0
        p(-1, all).assign(0.0);         // p = 0 at y = 2
      }

      auto uc = un(in, in), vc = vn(in, in);
      u(in, in).assign(uc - uc * dt / dx * (uc - un(in, lo)) - vc * dt / dy * (uc - un(lo, in)) -
                       dt / (2 * rho * dx) * (p(in, hi) - p(in, lo)) +
                       nu * (dt / (dx * dx) * (un(in, hi) - 2 * uc + un(in, lo)) +
                             dt / (dy * dy) * (un(hi, in) - 2 * uc + un(lo, in))));
      v(in, in).assign(vc - uc * dt / dx * (vc - vn(in, lo)) - vc * dt / dy * (vc - vn(lo, in)) -
                       dt / (2 * rho * dy) * (p(hi, in) - p(lo, in)) +
                       nu * (dt / (dx * dx) * (vn(in, hi) - 2 * vc + vn(in, lo)) +
                             dt / (dy * dy) * (vn(hi, in) - 2 * vc + vn(lo, in))));
      u(0, all).assign(0.0);
      u(all, 0).assign(0.0);
      u(all, -1).assign(0.0);
      u(-1, all).assign(1.0);  // the lid
      v(0, all).assign(0.0);
      v(-1, all).assign(0.0);
      v(all, 0).assign(0.0);
      v(all, -1).assign(0.0);
    }
    loop.recorded();
    u_norm = ts::norm(u).item();
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    loop.stop(rt);
  };
  if (warmup > 0) run(std::min(warmup, iters));  // untimed: kernels loaded, memory pool grown
  run(iters);
  const double v_norm = ts::norm(v).item(), p_norm = ts::norm(p).item();
  const std::int64_t m = n / 2;
  const double u_mid = u(m, m).item(), v_mid = v(m, m).item(), p_mid = p(m, m).item();

  bool ok = true;
  if (check) {
    const std::int64_t finite = ts::count_nonzero(ts::isfinite(u) & ts::isfinite(v) & ts::isfinite(p)).item();
    const double walls =
        ts::sum(ts::abs(u(0, all)) + ts::abs(v(0, all)) + ts::abs(v(-1, all))).item() +
        ts::sum(ts::abs(u(all, 0)) + ts::abs(u(all, -1)) + ts::abs(v(all, 0)) + ts::abs(v(all, -1))).item() -
        2.0;  // u is 1 in the lid's corners
    const std::int64_t lid = ts::count_nonzero(u(-1, all) == 1.0).item();
    ok = finite == n * n && walls == 0.0 && lid == n;
  }
  if (rt.rank() == 0) {
    std::printf("cfd: n=%lld iters=%lld nit=%lld ranks=%d\n", static_cast<long long>(n), static_cast<long long>(iters),
                static_cast<long long>(nit), rt.size());
    std::printf("u_norm %.17g\n", u_norm);
    std::printf("v_norm %.17g\n", v_norm);
    std::printf("p_norm %.17g\n", p_norm);
    std::printf("u_mid %.17g\n", u_mid);
    std::printf("v_mid %.17g\n", v_mid);
    std::printf("p_mid %.17g\n", p_mid);
    std::printf("time per iteration %.3f ms\n", iters > 0 ? ms / static_cast<double>(iters) : 0.0);
    loop.print(iters);
    if (check) std::printf("check %s: finite values and boundary conditions\n", ok ? "passed" : "FAILED");
  }
  return ok ? 0 : 1;
}
