// 2-D heat equation, explicit 5-point stencil, zero Dirichlet boundary, written with views.
//
//   mpirun -n 4 ./tessera-heat --n 512 --steps 1000 --every 100
//
// u is n x n; the boundary rows and columns stay 0 and the interior starts as a hot square of 1s
// in the middle. Each step applies u[1:-1,1:-1] += alpha * (north + south + east + west - 4 center),
// with alpha = dt / h^2 = 0.2 (the explicit scheme is stable for alpha <= 0.25). Every `every`
// steps rank 0 prints the 2-norm of the update (it shrinks as the grid cools); at the end it
// prints the sum of the grid, which is the same for any number of ranks up to rounding.
#include <cstdio>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-heat", argc, argv);
  const std::int64_t n = args.integer("--n", 256, 3);
  const std::int64_t steps = args.integer("--steps", 500, 0);
  const std::int64_t every = args.integer("--every", 100, 1);
  if (!args.ok()) {
    if (rt.rank() == 0) args.report();
    return args.help() ? 0 : 2;
  }
  const double alpha = 0.2;

  auto u = ts::zeros<double>({n, n});
  u(ts::slice(n / 4, 3 * n / 4), ts::slice(n / 4, 3 * n / 4)).assign(1.0);

  // Views of u: they share its storage, so they see every update.
  const auto inner = ts::slice(1, -1);
  auto center = u(inner, inner);
  auto north = u(ts::slice(0, -2), inner);
  auto south = u(ts::slice(2, ts::end), inner);
  auto west = u(inner, ts::slice(0, -2));
  auto east = u(inner, ts::slice(2, ts::end));

  if (rt.rank() == 0)
    std::printf("heat: n=%lld steps=%lld every=%lld ranks=%d\n", static_cast<long long>(n),
                static_cast<long long>(steps), static_cast<long long>(every), rt.size());
  for (std::int64_t step = 1; step <= steps; ++step) {
    auto update = alpha * (north + south + east + west - 4.0 * center);
    center.assign(center + update);
    if (step % every == 0 || step == steps) {
      double residual = ts::norm(update).item();
      if (rt.rank() == 0) std::printf("step %8lld  residual %.12e\n", static_cast<long long>(step), residual);
    }
  }

  double checksum = ts::sum(u).item();
  if (rt.rank() == 0) std::printf("checksum %.15e\n", checksum);
  return 0;
}
