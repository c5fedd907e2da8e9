// cuPyNumeric's 27-point 3-D stencil (examples/stencil_27.py): an (n+2)^3 grid whose faces hold
// -273.15 (the three low faces) and 273.15 (the three high ones), interior 0; each iteration
// replaces every interior point by 0.037 times the sum of its 27 neighbours (itself included).
//
//   mpirun -n 4 ./tessera-stencil27 --n 100 --iters 100 [--warmup 2] [--check]
//
// Prints the "average energy" sum(interior) / n^2 as cuPyNumeric does, the sum and 2-norm of the
// grid and its middle value. --check recomputes the grid with plain loops on the host (every
// rank, O(27 n^3 iters): meant for small n) and fails unless they agree to 1e-12.
// The NumPy twin is stencil27.py.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

namespace {

// The faces, in cuPyNumeric's order: the high faces are written last and win on the edges.
void initialize(ts::Array<double>& grid) {
  grid(ts::all, ts::all, 0).assign(-273.15);
  grid(ts::all, 0, ts::all).assign(-273.15);
  grid(0, ts::all, ts::all).assign(-273.15);
  grid(ts::all, ts::all, -1).assign(273.15);
  grid(ts::all, -1, ts::all).assign(273.15);
  grid(-1, ts::all, ts::all).assign(273.15);
}

// The same computation as plain loops over a host copy, summed in the same order.
std::vector<double> host_stencil(std::int64_t m, std::int64_t iters) {
  std::vector<double> g(static_cast<std::size_t>(m * m * m), 0.0);
  auto at = [m](std::int64_t i, std::int64_t j, std::int64_t k) {
    return static_cast<std::size_t>((i * m + j) * m + k);
  };
  for (std::int64_t a = 0; a < m; ++a)
    for (std::int64_t b = 0; b < m; ++b) g[at(a, b, 0)] = g[at(a, 0, b)] = g[at(0, a, b)] = -273.15;
  for (std::int64_t a = 0; a < m; ++a)
    for (std::int64_t b = 0; b < m; ++b) g[at(a, b, m - 1)] = g[at(a, m - 1, b)] = g[at(m - 1, a, b)] = 273.15;
  for (std::int64_t it = 0; it < iters; ++it) {
    const std::vector<double> old = g;
    for (std::int64_t i = 1; i < m - 1; ++i)
      for (std::int64_t j = 1; j < m - 1; ++j)
        for (std::int64_t k = 1; k < m - 1; ++k) {
          double planes[3];
          for (int a = 0; a < 3; ++a) {
            double rows[3];
            for (int b = 0; b < 3; ++b) {
              const std::size_t c = at(i + a - 1, j + b - 1, k);
              rows[b] = old[c - 1] + old[c] + old[c + 1];
            }
            planes[a] = rows[0] + rows[1] + rows[2];
          }
          g[at(i, j, k)] = 0.037 * (planes[0] + planes[1] + planes[2]);
        }
  }
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-stencil27", argc, argv);
  const std::int64_t n = args.integer("--n", 100, 1);
  const std::int64_t iters = args.integer("--iters", 100, 0);
  const std::int64_t warmup = args.integer("--warmup", 0, 0);
  const bool check = args.flag("--check");
  if (!args.ok()) {
    if (rt.rank() == 0) args.report();
    return args.help() ? 0 : 2;
  }

  // `steps` iterations from the initial grid, timed from the first; the grid and the energy stay.
  ts::Array<double> grid;
  double energy = 0, ms = 0;
  LoopCounts loop;
  auto run = [&](std::int64_t steps) {
    grid = ts::zeros<double>({n + 2, n + 2, n + 2});
    initialize(grid);

    // The 27 shifted views g[a][b][c] = grid[a:a+n, b:b+n, c:c+n], made once: views share the
    // grid's storage, so each iteration reads the values the previous one wrote.
    auto s = [](int k) { return k == 0 ? ts::slice(0, -2) : k == 1 ? ts::slice(1, -1) : ts::slice(2, ts::end); };
    ts::Array<double> g[3][3][3];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c) g[a][b][c] = grid(s(a), s(b), s(c));

    rt.flush();
    loop.start(rt);
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t it = 0; it < steps; ++it) {
      // Sums along the last axis, then the rows of each plane, then the planes, as cuPyNumeric.
      ts::Array<double> rows[3][3], planes[3];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) rows[a][b] = g[a][b][0] + g[a][b][1] + g[a][b][2];
      for (int a = 0; a < 3; ++a) planes[a] = rows[a][0] + rows[a][1] + rows[a][2];
      g[1][1][1].assign(0.037 * (planes[0] + planes[1] + planes[2]));  // g111[:] = work
    }
    energy = ts::sum(g[1][1][1]).item() / static_cast<double>(n * n);
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    loop.stop(rt);
  };
  if (warmup > 0) run(std::min(warmup, iters));  // untimed: kernels loaded, memory pool grown
  run(iters);
  const double total = ts::sum(grid).item();
  const double norm = ts::norm(grid).item();
  const double middle = grid(n / 2 + 1, n / 2 + 1, n / 2 + 1).item();

  bool ok = true;
  double worst = 0;
  if (check) {
    const std::vector<double> got = grid.to_host(), want = host_stencil(n + 2, iters);
    for (std::size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, std::abs(got[i] - want[i]) / std::max(1.0, std::abs(want[i])));
    ok = worst <= 1e-12;
  }
  if (rt.rank() == 0) {
    std::printf("stencil27: n=%lld iters=%lld ranks=%d\n", static_cast<long long>(n), static_cast<long long>(iters),
                rt.size());
    std::printf("energy %.17g\n", energy);
    std::printf("sum %.17g\n", total);
    std::printf("norm %.17g\n", norm);
    std::printf("middle %.17g\n", middle);
    std::printf("time per iteration %.3f ms\n", iters > 0 ? ms / static_cast<double>(iters) : 0.0);
    loop.print(iters);
    if (check) std::printf("check %s: largest difference from host loops %.3g\n", ok ? "passed" : "FAILED", worst);
  }
  return ok ? 0 : 1;
}
