// Sweeps (docs/FUSION.md, "Sweeps"): a reduction along the columns of a matrix that reads the
// results of reductions along its rows runs in their kernel, sweeping each row once more while
// its elements are still at hand: logistic regression's gradient (y - sigmoid(X @ w)) @ X reads X
// once. Logistic and linear regression's gradients, other kinds on both sides, index results,
// keepdims row results, float32, rows of 1 and 128 elements and one longer than a sweep takes;
// each fused and unfused against a serial host reference. Then the structure: one kernel that
// stores nothing but the gradient where no rank cuts the rows, and the cases that take no sweep.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <tessera/fusion/backend.hpp>
#include <tessera/program/interpreter.hpp>

#include "support.hpp"

namespace {

using std::int64_t;
namespace td = tessera::detail;

template <class T>
struct Regression {
  int64_t n, k;
  std::vector<T> hx = test_values<T>(n * k, 1), hw = test_values<T>(k, 2), hy = test_values<T>(n, 3);
  ts::Array<T> X = ts::from_host<T>({n, k}, hx), w = ts::from_host<T>({k}, hw), y = ts::from_host<T>({n}, hy);

  ts::Array<T> logistic() const { return ts::matmul(y - T(1) / (T(1) + ts::exp(-ts::matmul(X, w))), X); }
  ts::Array<T> linear() const { return ts::matmul(y - ts::matmul(X, w), X); }

  // error(row, score) per row, then the gradient sum_i error_i X[i, :].
  template <class Error>
  std::vector<T> host_gradient(Error error) const {
    std::vector<T> g(static_cast<std::size_t>(k), T(0));
    for (int64_t i = 0; i < n; ++i) {
      T score = 0;
      for (int64_t j = 0; j < k; ++j) score += hx[i * k + j] * hw[j];
      const T e = error(i, score);
      for (int64_t j = 0; j < k; ++j) g[j] += e * hx[i * k + j];
    }
    return g;
  }
  std::vector<T> host_logistic() const {
    return host_gradient([&](int64_t i, T s) { return hy[i] - T(1) / (T(1) + std::exp(-s)); });
  }
  std::vector<T> host_linear() const {
    return host_gradient([&](int64_t i, T s) { return hy[i] - s; });
  }
};

const std::vector<std::pair<int64_t, int64_t>> kShapes = {{37, 5}, {101, 32}, {9, 128}, {13, 1}, {2, 7}};

TEST(Sweeps, LogisticRegressionGradient) {
  fused_and_unfused([] {
    for (const auto& [n, k] : kShapes) {
      SCOPED_TRACE(std::to_string(n) + " x " + std::to_string(k));
      const Regression<double> r{n, k};
      auto g = r.logistic();
      EXPECT_EQ(g.shape(), ts::Shape{k});
      EXPECT_TRUE(close(g.to_host(), r.host_logistic(), 1e-11));
    }
  });
}

TEST(Sweeps, LinearRegressionGradientInFloat32) {
  fused_and_unfused([] {
    for (const auto& [n, k] : kShapes) {
      SCOPED_TRACE(std::to_string(n) + " x " + std::to_string(k));
      const Regression<float> r{n, k};
      EXPECT_TRUE(close(r.linear().to_host(), r.host_linear(), 2e-4));
    }
  });
}

// Rows longer than a sweep takes: the same values from separate kernels.
TEST(Sweeps, RowsLongerThanASweepTakes) {
  fused_and_unfused([] {
    const Regression<double> r{11, td::kMaxSweepColumns + 1};
    EXPECT_TRUE(close(r.logistic().to_host(), r.host_logistic(), 1e-11));
  });
}

// Other kinds on both sides, through the axis reductions: each column's largest element of the
// rows centred on their mean (a keepdims result), and the row of that element, with ties to the
// lowest row; the product of each column scaled by its row's range.
TEST(Sweeps, OtherKindsAndIndexResults) {
  fused_and_unfused([] {
    const int64_t n = 43, k = 6;
    auto hx = test_values<double>(n * k, 4);
    for (int64_t j = 0; j < k; ++j) hx[20 * k + j] = hx[3 * k + j];  // rows 3 and 20: ties
    auto X = ts::from_host<double>({n, k}, hx);
    auto centred = X - ts::mean(X, 1, true);
    auto best = ts::max(centred, 0);
    auto where = ts::argmax(X - ts::mean(X, 1, true), 0);
    auto scaled = ts::prod(X * (0.5 * (ts::max(X, 1) - ts::min(X, 1)))(ts::all, ts::newaxis) + 1.0, 0);
    std::vector<double> want_best(k, -INFINITY), want_scaled(k, 1.0);
    std::vector<int64_t> want_where(k, 0);
    for (int64_t i = 0; i < n; ++i) {
      const auto row = hx.begin() + i * k;
      double mean = 0;
      for (int64_t j = 0; j < k; ++j) mean += row[j];
      mean /= k;
      const double range = 0.5 * (*std::max_element(row, row + k) - *std::min_element(row, row + k));
      for (int64_t j = 0; j < k; ++j) {
        if (row[j] - mean > want_best[j]) want_best[j] = row[j] - mean, want_where[j] = i;
        want_scaled[j] *= row[j] * range + 1.0;
      }
    }
    EXPECT_TRUE(close(best.to_host(), want_best));
    EXPECT_EQ(where.to_host(), want_where);
    EXPECT_TRUE(close(scaled.to_host(), want_scaled, 1e-10));
  });
}

// ---- Structure ----

class SweepStructureTest : public TesseraTest {};

// The gradient step in steady state: where no rank cuts the rows (grid column dimension 1), one
// kernel, which stores nothing (the scores and errors never exist; the gradient is its reduction's
// output); where they are cut, the rows' kernel, the grid row's allreduce and the gradient's own.
TEST_F(SweepStructureTest, LogisticRegressionGradientIsOneKernel) {
  Regression<double> r{45, 8};
  const double rate = 1e-3;
  for (int warm = 0; warm < 2; ++warm) {
    r.w += rate * r.logistic();
    rt().flush();
  }
  r.hw = r.w.to_host();
  rt().flush();
  const ts::Stats before = rt().stats();
  launched_programs().clear();
  td::set_launch_observer(&record_launch);
  auto g = r.logistic();
  rt().flush();
  td::set_launch_observer(nullptr);
  const ts::Stats after = rt().stats();
  const bool rows_cut = td::runtime().grid(2).dim(1) > 1;
  if (!rows_cut) {
    EXPECT_EQ(after.kernels - before.kernels, 1);
    ASSERT_EQ(launched_programs().size(), 1u);
    const td::Program& p = launched_programs().front();
    EXPECT_GE(p.sweep, 0) << p.describe();
    EXPECT_EQ(p.reduce_dim, 1);
    EXPECT_EQ(p.row_slots, 1);
    EXPECT_EQ(td::output_slots(p), 1);
    EXPECT_EQ(stores_in(p), 0) << p.describe();
  } else {
    EXPECT_GE(after.kernels - before.kernels, 2);
    for (const td::Program& p : launched_programs()) EXPECT_LT(p.sweep, 0) << p.describe();
  }
  EXPECT_TRUE(close(g.to_host(), r.host_logistic(), 1e-11));
}

// No sweep: the scores are held (stored by the rows' kernel and read later), the errors are held,
// or the rows are longer than a sweep takes; the values are the same.
TEST_F(SweepStructureTest, HeldResultsAndLongRowsTakeNoSweep) {
  const auto sweeps = [] {
    int count = 0;
    for (const td::Program& p : launched_programs()) count += p.sweep >= 0;
    return count;
  };
  Regression<double> r{31, 6};
  rt().flush();
  launched_programs().clear();
  td::set_launch_observer(&record_launch);
  auto scores = ts::matmul(r.X, r.w);
  auto g = ts::matmul(r.y - scores, r.X);
  rt().flush();
  EXPECT_EQ(sweeps(), 0);
  EXPECT_TRUE(close(g.to_host(), r.host_linear(), 1e-11));
  std::vector<double> want_scores(static_cast<std::size_t>(r.n), 0.0);
  for (int64_t i = 0; i < r.n; ++i)
    for (int64_t j = 0; j < r.k; ++j) want_scores[i] += r.hx[i * r.k + j] * r.hw[j];
  EXPECT_TRUE(close(scores.to_host(), want_scores));

  launched_programs().clear();
  auto error = r.y - ts::matmul(r.X, r.w);
  auto g2 = ts::matmul(error, r.X);
  rt().flush();
  EXPECT_EQ(sweeps(), 0);
  EXPECT_TRUE(close(g2.to_host(), r.host_linear(), 1e-11));

  launched_programs().clear();
  const Regression<double> wide{7, td::kMaxSweepColumns + 3};
  auto g3 = wide.linear();
  rt().flush();
  td::set_launch_observer(nullptr);
  EXPECT_EQ(sweeps(), 0);
  EXPECT_TRUE(close(g3.to_host(), wide.host_linear(), 1e-11));
}

}  // namespace
