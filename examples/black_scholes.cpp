// Black-Scholes option pricing in cuNumeric's formulation (examples/black_scholes.py of
// nv-legate/cunumeric): polynomial approximation of the normal CDF selected with where(), three
// inputs S, X, T drawn uniformly from realistic ranges, two outputs call and put.
//
//   mpirun -n 4 ./tessera-black-scholes --n 1000000 --iters 10
//
// The formula is kept exactly as cuNumeric writes it, including
//   d1 = log(S / X) + (R + V^2 / 2) * T / (V * sqrt(T)),
// whose precedence differs from the textbook d1: the point is to compute the same thing as the
// reference workload. Rank 0 prints the sums of call and put, the same for any number of ranks up
// to rounding.
#include <chrono>
#include <cstdio>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

namespace {

constexpr double kRate = 0.02;       // R: risk-free rate (cuNumeric's value)
constexpr double kVolatility = 0.3;  // V: volatility (cuNumeric's value)

// Uniform in [lo, hi): random in [0, 1) scaled, as cuNumeric's generate_random.
ts::Array<double> uniform(std::int64_t n, double lo, double hi, std::uint64_t seed) {
  return ts::random<double>({n}, seed) * (hi - lo) + lo;
}

// Cumulative normal distribution, Abramowitz-Stegun polynomial (absolute error < 7.5e-8).
ts::Array<double> cnd(const ts::Array<double>& d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double rsqrt2pi = 0.39894228040143267793994605993438;
  auto k = 1.0 / (1.0 + 0.2316419 * ts::abs(d));
  auto tail = rsqrt2pi * ts::exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return ts::where(d > 0.0, 1.0 - tail, tail);
}

}  // namespace

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-black-scholes", argc, argv);
  const std::int64_t n = args.integer("--n", 1000000, 1);
  const std::int64_t iters = args.integer("--iters", 10, 1);
  if (!args.ok()) {
    if (rt.rank() == 0) args.report();
    return args.help() ? 0 : 2;
  }

  auto S = uniform(n, 5.0, 30.0, 1);   // stock price
  auto X = uniform(n, 1.0, 100.0, 2);  // strike price
  auto T = uniform(n, 0.25, 10.0, 3);  // years to expiry
  const double R = kRate, V = kVolatility;

  ts::Array<double> call, put;
  rt.flush();
  auto start = std::chrono::steady_clock::now();
  for (std::int64_t it = 0; it < iters; ++it) {
    auto sqrt_t = ts::sqrt(T);
    auto d1 = ts::log(S / X) + (R + 0.5 * V * V) * T / (V * sqrt_t);
    auto d2 = d1 - V * sqrt_t;
    auto cnd_d1 = cnd(d1);
    auto cnd_d2 = cnd(d2);
    auto exp_rt = ts::exp(-R * T);
    call = S * cnd_d1 - X * exp_rt * cnd_d2;
    put = X * exp_rt * (1.0 - cnd_d2) - S * (1.0 - cnd_d1);
  }
  double call_sum = ts::sum(call).item();
  double put_sum = ts::sum(put).item();
  auto stop = std::chrono::steady_clock::now();
  double ms = std::chrono::duration<double, std::milli>(stop - start).count() / static_cast<double>(iters);

  if (rt.rank() == 0) {
    std::printf("black-scholes: n=%lld iters=%lld ranks=%d\n", static_cast<long long>(n), static_cast<long long>(iters),
                rt.size());
    std::printf("call checksum %.15e\n", call_sum);
    std::printf("put checksum  %.15e\n", put_sum);
    std::printf("time per iteration %.3f ms\n", ms);
  }
  return 0;
}
