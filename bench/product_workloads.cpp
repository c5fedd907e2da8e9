// Workloads of products (issue 18): cuPyNumeric's dense Jacobi, a square GEMM and cuPyNumeric's
// logistic regression, written as an application would write them. Inputs come from ts::random
// (bench::uniform on the host); each run checks its result against the host (workloads.cpp).

#include <algorithm>
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

// Indices where the checks look: both ends, where the ranks' tiles meet, and a few between.
std::vector<std::int64_t> sample_indices(std::int64_t extent, int ranks, int between) {
  std::vector<std::int64_t> v = {0, extent - 1};
  for (int k = 1; k < ranks; ++k) v.insert(v.end(), {k * extent / ranks - 1, k * extent / ranks});
  for (int k = 1; k <= between; ++k) v.push_back(k * extent / (between + 1));
  for (auto& x : v) x = std::clamp<std::int64_t>(x, 0, extent - 1);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

// x = (b - R @ x) / d: one matvec over R per iteration, the vectors' work around it.
Result jacobi(ts::Runtime& rt, const Options& o) {
  const std::int64_t n = o.n;
  auto A = ts::random<double>({n, n}, jacobi::kSeedA) + static_cast<double>(n) * ts::eye<double>(n);
  auto b = ts::random<double>({n}, jacobi::kSeedB);
  auto d = ts::diag(A);
  auto R = A - ts::diag(d);
  A = ts::Array<double>();  // only R and d are needed: give A's memory back
  auto x = ts::zeros<double>({n});
  rt.flush();
  Result res;
  measure(rt, o, res, [&] { x = (b - ts::matmul(R, x)) / d; });
  res.ops_per_iter = 3;
  res.min_bytes_per_iter = jacobi::min_bytes(n);
  auto x_next = (b - ts::matmul(R, x)) / d;
  const std::vector<std::int64_t> rows = sample_indices(n, rt.size(), 12);
  std::vector<double> next;
  for (std::int64_t i : rows) next.push_back(x_next(i).item());
  set_check(res, jacobi::check_rows(n, rows, x.to_host(), next));
  res.checksum = ts::sum(x).item();
  return res;
}

// C = A @ B, n x n: one GEMM per iteration (SUMMA's panels across the ranks).
Result gemm(ts::Runtime& rt, const Options& o) {
  const std::int64_t n = o.n;
  auto A = ts::random<double>({n, n}, gemm::kSeedA);
  auto B = ts::random<double>({n, n}, gemm::kSeedB);
  ts::Array<double> C;
  rt.flush();
  Result res;
  measure(rt, o, res, [&] { C = ts::matmul(A, B); });
  res.ops_per_iter = 1;
  res.min_bytes_per_iter = 24.0 * static_cast<double>(n) * static_cast<double>(n);
  res.flops_per_iter = gemm::flops(n);
  std::vector<std::int64_t> rows, cols;
  const std::vector<std::int64_t> at = sample_indices(n, rt.size(), 2);
  for (std::int64_t i : at)
    for (std::int64_t j : at) rows.push_back(i), cols.push_back(j);
  std::vector<double> got;
  for (std::size_t k = 0; k < rows.size(); ++k) got.push_back(C(rows[k], cols[k]).item());
  set_check(res, gemm::check_entries(n, rows, cols, got));
  res.checksum = ts::sum(C).item();
  return res;
}

// cuPyNumeric's logistic regression step: X @ w, the sigmoid and the error, error @ X.
Result logreg(ts::Runtime& rt, const Options& o) {
  const std::int64_t n = o.n, f = logreg::kFeatures;
  auto X = ts::random<double>({n, f}, logreg::kSeedX);
  auto y = ts::random<double>({n}, logreg::kSeedY);
  auto w = ts::zeros<double>({f});
  const double rate = logreg::kRate / static_cast<double>(n);
  auto error_of = [&](const ts::Array<double>& weights) { return y - 1.0 / (1.0 + ts::exp(-ts::matmul(X, weights))); };
  rt.flush();
  Result res;
  measure(rt, o, res, [&] { w += rate * ts::matmul(error_of(w), X); });
  res.ops_per_iter = 8;
  res.min_bytes_per_iter = logreg::min_bytes(n);
  // The next gradient two ways: the products, and elementwise products with an axis sum (no BLAS).
  auto error = error_of(w);
  const std::vector<double> by_product = ts::matmul(error, X).to_host();
  const std::vector<double> by_sum = ts::sum(X * error(ts::all, ts::newaxis), 0).to_host();
  const std::vector<double> weights = w.to_host();
  Check c{true, true, ""};
  double worst = 0;
  for (std::int64_t k = 0; k < f; ++k) {
    const double err = std::abs(by_product[k] - by_sum[k]) / std::max(1.0, std::abs(by_sum[k]));
    worst = std::max(worst, std::isnan(err) ? INFINITY : err);
  }
  c.ok = worst <= 1e-9;
  c.detail = "error @ X against sum(X * error[:, None], 0): max rel. diff " + format("%.1e", worst);
  if (c.ok && n * f <= logreg::kHostElements) {
    const std::vector<double> host = logreg::host_weights(n, o.warmup + o.iters);
    double diff = 0;
    for (std::int64_t k = 0; k < f; ++k)
      diff = std::max(diff, std::abs(weights[k] - host[k]) / std::max(1.0, std::abs(host[k])));
    c.ok = diff <= 1e-10;
    c.detail += "; w against the host's " + std::to_string(o.warmup + o.iters) + " steps: max rel. diff " +
                format("%.1e", diff);
  }
  set_check(res, c);
  res.checksum = ts::sum(w).item();
  return res;
}

}  // namespace bench::tessera_system
