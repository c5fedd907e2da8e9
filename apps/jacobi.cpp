// cuPyNumeric's dense Jacobi iteration (examples/jacobi.py): x = (b - R @ x) / d with d the
// diagonal of a diagonally dominant A and R = A - diag(d), from x = 0.
//
//   mpirun -n 4 ./tessera-jacobi --n 4096 --iters 100 [--warmup 2] [--check]
//
// cuPyNumeric draws A = rand(n, n) + n I and b = rand(n); here the same ranges come from index
// formulas, A[i, j] = (1 + sin(0.7 i + 1.3 j + 0.01 i j)) / 2 + n [i == j], b[i] = (1 + cos(0.9 i)) / 2,
// so that the NumPy twin (jacobi.py) builds the same system. Prints the sum and 2-norm of x and
// its first and last entries; --check is cuPyNumeric's: allclose(A @ x, b) (rtol 1e-5, atol 1e-8),
// which needs enough iterations to converge (each one shrinks the error about twofold).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-jacobi", argc, argv);
  const std::int64_t n = args.integer("--n", 4096, 1);
  const std::int64_t iters = args.integer("--iters", 100, 0);
  const std::int64_t warmup = args.integer("--warmup", 0, 0);
  const bool check = args.flag("--check");
  if (!args.ok()) {
    if (rt.rank() == 0) args.report();
    return args.help() ? 0 : 2;
  }

  auto i = ts::arange<double>(n)(ts::all, ts::newaxis), j = ts::arange<double>(n)(ts::newaxis, ts::all);
  auto A = 0.5 * (1.0 + ts::sin(0.7 * i + 1.3 * j + 0.01 * i * j)) + static_cast<double>(n) * ts::eye<double>(n);
  auto b = 0.5 * (1.0 + ts::cos(0.9 * ts::arange<double>(n)));

  auto d = ts::diag(A);
  auto R = A - ts::diag(d);
  // `steps` iterations from x = 0, timed from the first.
  ts::Array<double> x;
  double x_sum = 0, ms = 0;
  LoopCounts loop;
  auto run = [&](std::int64_t steps) {
    x = ts::zeros<double>({n});
    rt.flush();
    loop.start(rt);
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t it = 0; it < steps; ++it) x = (b - ts::matmul(R, x)) / d;
    x_sum = ts::sum(x).item();
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    loop.stop(rt);
  };
  if (warmup > 0) run(std::min(warmup, iters));  // untimed: kernels loaded, memory pool grown
  run(iters);
  const double x_norm = ts::norm(x).item(), x_first = x(0).item(), x_last = x(-1).item();

  bool ok = true;
  double residual = 0;
  if (check) {
    auto r = ts::matmul(A, x) - b;
    ok = ts::count_nonzero(ts::abs(r) > 1e-8 + 1e-5 * ts::abs(b)).item() == 0;
    residual = ts::norm(r).item() / ts::norm(b).item();
  }
  if (rt.rank() == 0) {
    std::printf("jacobi: n=%lld iters=%lld ranks=%d\n", static_cast<long long>(n), static_cast<long long>(iters),
                rt.size());
    std::printf("x_sum %.17g\n", x_sum);
    std::printf("x_norm %.17g\n", x_norm);
    std::printf("x_first %.17g\n", x_first);
    std::printf("x_last %.17g\n", x_last);
    std::printf("time per iteration %.3f ms\n", iters > 0 ? ms / static_cast<double>(iters) : 0.0);
    loop.print(iters);
    if (check)
      std::printf("check %s: allclose(A @ x, b), |A x - b| / |b| = %.3g\n", ok ? "passed" : "FAILED", residual);
  }
  return ok ? 0 : 1;
}
