// cuPyNumeric's logistic regression (examples/logreg.py): gradient ascent on the log-likelihood,
//   scores = X @ w;  error = y - sigmoid(scores);  w += lr * (error @ X),   lr = 1e-5,
// with an optional intercept column (np.hstack of ones and X).
//
//   mpirun -n 4 ./tessera-logreg --n 10000 --features 32 --iters 1000 [--intercept] [--warmup 2] [--check]
//
// cuPyNumeric draws X = randn(n, f) and y = floor(2 rand(n)); here X[i, j] = 2 sin(0.5 + 0.37 i
// + 1.31 j) and y[i] = 1 where (37 i) % 7 < 3, else 0, so the NumPy twin (logreg.py) has the same
// data. Prints the 2-norm, sum and first entry of w and the final log-likelihood
// sum(y * scores - log(1 + exp(scores))) (in a form that does not overflow); --check fails unless it rose
// above its value at w = 0.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

namespace {

ts::Array<double> sigmoid(const ts::Array<double>& x) { return 1.0 / (1.0 + ts::exp(-x)); }

ts::Array<double> log_likelihood(const ts::Array<double>& X, const ts::Array<double>& y, const ts::Array<double>& w) {
  auto scores = ts::matmul(X, w);
  // log(1 + exp(s)) as max(s, 0) + log(1 + exp(-|s|)): the same value, without exp overflowing
  // to inf once the scores pass 709 (at 4e6 rows and 100 steps they do).
  return ts::sum(y * scores - (ts::maximum(scores, 0.0) + ts::log(1.0 + ts::exp(-ts::abs(scores)))));
}

}  // namespace

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-logreg", argc, argv);
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
  auto y = ((ts::arange<std::int64_t>(n) * 37) % 7 < 3).astype<double>();
  if (intercept) X = ts::hstack({ts::ones<double>({n, 1}), X});

  const double start_likelihood = log_likelihood(X, y, ts::zeros<double>({X.shape()[1]})).item();
  // `steps` steps from w = 0, timed from the first.
  ts::Array<double> w;
  double w_norm = 0, ms = 0;
  LoopCounts loop;
  auto run = [&](std::int64_t steps) {
    w = ts::zeros<double>({X.shape()[1]});
    rt.flush();
    loop.start(rt);
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t step = 0; step < steps; ++step) {
      auto scores = ts::matmul(X, w);
      auto error = y - sigmoid(scores);
      auto gradient = ts::matmul(error, X);  // np.dot(error, features): (n,) @ (n, f)
      w += lr * gradient;
    }
    w_norm = ts::norm(w).item();
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    loop.stop(rt);
  };
  if (warmup > 0) run(std::min(warmup, iters));  // untimed: kernels loaded, memory pool grown
  run(iters);
  const double w_sum = ts::sum(w).item(), w_first = w(0).item();
  const double likelihood = log_likelihood(X, y, w).item();

  const bool ok = !check || (std::isfinite(likelihood) && (iters == 0 || likelihood > start_likelihood));
  if (rt.rank() == 0) {
    std::printf("logreg: n=%lld features=%lld iters=%lld intercept=%d ranks=%d\n", static_cast<long long>(n),
                static_cast<long long>(f), static_cast<long long>(iters), intercept ? 1 : 0, rt.size());
    std::printf("w_norm %.17g\n", w_norm);
    std::printf("w_sum %.17g\n", w_sum);
    std::printf("w_first %.17g\n", w_first);
    std::printf("likelihood %.17g\n", likelihood);
    std::printf("time per iteration %.3f ms\n", iters > 0 ? ms / static_cast<double>(iters) : 0.0);
    loop.print(iters);
    if (check)
      std::printf("check %s: log-likelihood %.6g from %.6g at w = 0\n", ok ? "passed" : "FAILED", likelihood,
                  start_likelihood);
  }
  return ok ? 0 : 1;
}
