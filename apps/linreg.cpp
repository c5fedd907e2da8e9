// cuPyNumeric's linear regression (examples/linreg.py): gradient descent on the squared error,
//   error = X @ w - y;  w += lr * (-(1 / n) * (error @ X)),   lr = 1e-5,
// with an optional intercept column (np.hstack of ones and X).
//
//   mpirun -n 4 ./tessera-linreg --n 10000 --features 32 --iters 1000 [--intercept] [--warmup 2] [--check]
//
// cuPyNumeric draws X = randn(n, f) and y = rand(n); here X[i, j] = 2 sin(0.5 + 0.37 i + 1.31 j)
// and y[i] = ((53 i) % 11) / 11, so that the NumPy twin (linreg.py) has the same data. Prints the
// 2-norm, sum and first entry of w and the final sum of squared errors (cuPyNumeric's "error");
// --check fails unless every step lowered that error.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-linreg", argc, argv);
  const std::int64_t n = args.integer("--n", 10000, 1);
  const std::int64_t f = args.integer("--features", 32, 1);
  const std::int64_t iters = args.integer("--iters", 1000, 0);
  const std::int64_t warmup = args.integer("--warmup", 0, 0);
  const bool intercept = args.flag("--intercept");
  const bool check = args.flag("--check");
  if (!args.ok()) {
    if (rt.rank() == 0) args.report();
    return args.help() ? 0 : 2;
  }
  const double lr = 1e-5;

  auto i = ts::arange<double>(n)(ts::all, ts::newaxis), j = ts::arange<double>(f)(ts::newaxis, ts::all);
  ts::Array<double> X = 2.0 * ts::sin(0.5 + 0.37 * i + 1.31 * j);
  auto y = ((ts::arange<std::int64_t>(n) * 53) % 11).astype<double>() / 11.0;
  if (intercept) X = ts::hstack({ts::ones<double>({n, 1}), X});

  // `steps` steps from w = 0, timed from the first.
  ts::Array<double> w;
  bool decreasing = true;
  double previous = INFINITY, w_norm = 0, ms = 0;
  LoopCounts loop;
  auto run = [&](std::int64_t steps) {
    w = ts::zeros<double>({X.shape()[1]});
    decreasing = true;
    previous = INFINITY;
    // X and y are lazy until the window runs: build them before the clock starts, as eager
    // TESSERA_FUSION=0 does (the fused-versus-unfused comparison timed building X before).
    rt.flush();
    loop.start(rt);
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t step = 0; step < steps; ++step) {
      auto error = ts::matmul(X, w) - y;
      auto gradient = -(1.0 / static_cast<double>(n)) * ts::matmul(error, X);  // error.dot(features)
      w += lr * gradient;
      if (check) {  // cuPyNumeric prints sum(error^2) every `sample` steps; this reads it every step
        const double error_sum = ts::sum(ts::square(error)).item();
        decreasing = decreasing && error_sum < previous;
        previous = error_sum;
      }
    }
    w_norm = ts::norm(w).item();
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    loop.stop(rt);
  };
  if (warmup > 0) run(std::min(warmup, iters));  // untimed: kernels loaded, memory pool grown
  run(iters);
  const double w_sum = ts::sum(w).item(), w_first = w(0).item();
  const double error = ts::sum(ts::square(ts::matmul(X, w) - y)).item();

  const bool ok = !check || (std::isfinite(error) && decreasing && (iters == 0 || error < previous));
  if (rt.rank() == 0) {
    std::printf("linreg: n=%lld features=%lld iters=%lld intercept=%d ranks=%d\n", static_cast<long long>(n),
                static_cast<long long>(f), static_cast<long long>(iters), intercept ? 1 : 0, rt.size());
    std::printf("w_norm %.17g\n", w_norm);
    std::printf("w_sum %.17g\n", w_sum);
    std::printf("w_first %.17g\n", w_first);
    std::printf("error %.17g\n", error);
    std::printf("time per iteration %.3f ms\n", iters > 0 ? ms / static_cast<double>(iters) : 0.0);
    loop.print(iters);
    if (check)
      std::printf("check %s: the squared error fell at every step, to %.6g\n", ok ? "passed" : "FAILED", error);
  }
  return ok ? 0 : 1;
}
