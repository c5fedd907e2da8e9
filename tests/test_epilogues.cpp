// Epilogues (docs/FUSION.md, "Epilogues"): elementwise work on the results of reductions along the
// last axis runs in the reduction's kernel, once per row, where that axis is cut on no rank.
// Jacobi's update with the product written out, means and norms of rows, two reductions read by
// one expression, integer and index results, 3-D rows, empty rows; each fused and unfused against
// a serial host reference. Then the structure: one kernel that stores only the epilogue's result,
// a second kernel (and the grid row's allreduce) where the reduced axis is cut, and the cases that
// must not take an epilogue.

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

// Row sums of a row-major (n, k) host matrix times x.
std::vector<double> row_products(const std::vector<double>& a, const std::vector<double>& x, int64_t n, int64_t k) {
  std::vector<double> y(static_cast<std::size_t>(n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) y[i] += a[i * k + j] * x[j];
  return y;
}

struct Jacobi {
  int64_t n, k;
  std::vector<double> ha = test_values<double>(n * k, 1), hx = test_values<double>(k, 2),
                      hb = test_values<double>(n, 3), hd = test_values<double>(n, 4, true);
  ts::Array<double> a = ts::from_host<double>({n, k}, ha), x = ts::from_host<double>({k}, hx),
                    b = ts::from_host<double>({n}, hb), d = ts::from_host<double>({n}, hd);
  ts::Array<double> step() const { return (b - ts::sum(a * x(ts::newaxis, ts::all), 1)) / d; }
  std::vector<double> host_step() const {
    std::vector<double> y = row_products(ha, hx, n, k);
    for (int64_t i = 0; i < n; ++i) y[i] = (hb[i] - y[i]) / hd[i];
    return y;
  }
};

TEST(Epilogues, JacobiUpdateWithTheProductWrittenOut) {
  fused_and_unfused([] {
    for (const auto& [n, k] : {std::pair<int64_t, int64_t>{37, 23}, {5, 101}, {64, 1}}) {
      Jacobi j{n, k};
      auto y = j.step();
      EXPECT_EQ(y.shape(), ts::Shape{n});
      EXPECT_TRUE(close(y.to_host(), j.host_step()));
    }
  });
}

// A temporary whose values depend on the element's position (`arange`, whose handle is gone
// before the flush) is not recomputed in an epilogue, which runs once per row: there it took the
// row's first element's position in the (n, k) domain, i * k, for i (found by the fuzzer at np 2).
TEST(Epilogues, PositionalTemporariesKeepTheirOwnPositions) {
  fused_and_unfused([] {
    const int64_t n = 9, k = 6;
    const std::vector<double> ha = test_values<double>(2 * n * k, 5), hx = test_values<double>(k, 6);
    auto a = ts::from_host<double>({2 * n, k}, ha);
    auto x = ts::from_host<double>({k}, hx);
    ts::Array<double> y, z;
    {
      auto position = ts::arange<double>(n);
      y = position - ts::matmul(a(ts::slice(0, ts::end, 2)), x);
      z = ts::sum(a(ts::slice(1, ts::end, 2)) * x(ts::newaxis, ts::all), 1) + position;
    }
    std::vector<double> want_y(n), want_z(n);
    for (int64_t i = 0; i < n; ++i) {
      double even = 0, odd = 0;
      for (int64_t j = 0; j < k; ++j) even += ha[(2 * i) * k + j] * hx[j], odd += ha[(2 * i + 1) * k + j] * hx[j];
      want_y[i] = static_cast<double>(i) - even;
      want_z[i] = odd + static_cast<double>(i);
    }
    EXPECT_TRUE(close(y.to_host(), want_y));
    EXPECT_TRUE(close(z.to_host(), want_z));
  });
}

// The root of the mean square of each row, kept as a column, scales the row's first element: the
// epilogue's result has the reduction's keepdims shape.
TEST(Epilogues, MeansAndNormsOfRowsWithKeepdims) {
  fused_and_unfused([] {
    const int64_t n = 29, k = 11;
    const auto ha = test_values<double>(n * k, 5);
    auto a = ts::from_host<double>({n, k}, ha);
    auto rms = ts::sqrt(ts::mean(ts::square(a), 1, true)) + 1.0;
    auto norms = 2.0 * ts::sqrt(ts::sum(ts::square(a), 1));
    std::vector<double> want_rms, want_norms;
    for (int64_t i = 0; i < n; ++i) {
      double s = 0;
      for (int64_t j = 0; j < k; ++j) s += ha[i * k + j] * ha[i * k + j];
      want_rms.push_back(std::sqrt(s / k) + 1.0);
      want_norms.push_back(2.0 * std::sqrt(s));
    }
    EXPECT_EQ(rms.shape(), (ts::Shape{n, 1}));
    EXPECT_TRUE(close(rms.to_host(), want_rms));
    EXPECT_TRUE(close(norms.to_host(), want_norms));
  });
}

// Two reductions of one domain, both read by the epilogue: the range of each row.
TEST(Epilogues, TwoReductionsReadByOneExpression) {
  fused_and_unfused([] {
    const int64_t n = 31, k = 7;
    const auto ha = test_values<double>(n * k, 6);
    auto a = ts::from_host<double>({n, k}, ha);
    auto range = (ts::max(a, 1) - ts::min(a, 1)) * 0.5;
    std::vector<double> want;
    for (int64_t i = 0; i < n; ++i) {
      const auto row = ha.begin() + i * k;
      want.push_back((*std::max_element(row, row + k) - *std::min_element(row, row + k)) * 0.5);
    }
    EXPECT_TRUE(close(range.to_host(), want));
  });
}

// Integer results: a count and an index, each shifted by the epilogue (int64, as NumPy's).
TEST(Epilogues, CountsAndIndicesOfRows) {
  fused_and_unfused([] {
    const int64_t n = 19, k = 13;
    const auto ha = test_values<double>(n * k, 7);
    auto a = ts::from_host<double>({n, k}, ha);
    auto positives = ts::count_nonzero(a > 0.0, 1) * int64_t(2);
    auto best = ts::argmax(a, 1) + int64_t(1);
    std::vector<int64_t> want_positives, want_best;
    for (int64_t i = 0; i < n; ++i) {
      const auto row = ha.begin() + i * k;
      want_positives.push_back(2 * std::count_if(row, row + k, [](double v) { return v > 0; }));
      want_best.push_back(1 + (std::max_element(row, row + k) - row));
    }
    EXPECT_EQ(positives.to_host(), want_positives);
    EXPECT_EQ(best.to_host(), want_best);
  });
}

// Rows of a 3-D array, in float32: the epilogue runs over the two kept axes.
TEST(Epilogues, RowsOfAThreeDimensionalArrayInFloat32) {
  fused_and_unfused([] {
    const int64_t n = 7, m = 5, k = 9;
    const auto hx = test_values<float>(n * m * k, 8), hw = test_values<float>(n * m, 9);
    auto x = ts::from_host<float>({n, m, k}, hx);
    auto w = ts::from_host<float>({n, m}, hw);
    auto got = ts::sum(x, 2) * w - 1.0f;
    std::vector<float> want;
    for (int64_t r = 0; r < n * m; ++r) {
      float s = 0;
      for (int64_t j = 0; j < k; ++j) s += hx[r * k + j];
      want.push_back(s * hw[r] - 1.0f);
    }
    EXPECT_EQ(got.shape(), (ts::Shape{n, m}));
    EXPECT_TRUE(close(got.to_host(), want, 1e-5));
  });
}

// Rows of length 0 sum to 0: the epilogue still runs for every row.
TEST(Epilogues, EmptyRows) {
  fused_and_unfused([] {
    const int64_t n = 9;
    const auto hb = test_values<double>(n, 10);
    auto b = ts::from_host<double>({n}, hb);
    auto none = ts::zeros<double>({n, 0});
    auto got = ts::sum(none, 1) + b;
    EXPECT_TRUE(close(got.to_host(), hb));
  });
}

// ---- Structure ----

class EpilogueStructureTest : public TesseraTest {};

// Jacobi's update in steady state: where the columns of the matrix are cut on no rank (grid
// column dimension 1), one kernel, whose epilogue stores the new vector and nothing else (the row
// sums never exist); where they are cut, the reduction's kernel, one allreduce across the grid
// row, and the update's kernel, as before.
TEST_F(EpilogueStructureTest, JacobiUpdateIsOneKernel) {
  Jacobi j{45, 45};
  for (int warm = 0; warm < 2; ++warm) {
    j.x = j.step();
    rt().flush();
  }
  const ts::Stats before = rt().stats();
  launched_programs().clear();
  td::set_launch_observer(&record_launch);
  auto y = j.step();
  rt().flush();
  td::set_launch_observer(nullptr);
  const ts::Stats after = rt().stats();
  const bool columns_cut = td::runtime().grid(2).dim(1) > 1;
  EXPECT_EQ(after.kernels - before.kernels, columns_cut ? 2 : 1);
  EXPECT_EQ(after.allreduces - before.allreduces, columns_cut ? 1 : 0);
  if (!columns_cut) {
    ASSERT_EQ(launched_programs().size(), 1u);
    const td::Program& p = launched_programs().front();
    EXPECT_GE(p.epilogue, 0) << p.describe();
    EXPECT_EQ(p.reduce_dim, 2);
    EXPECT_EQ(stores_in(p), 1) << p.describe();
  }
  j.hx = j.x.to_host();
  EXPECT_TRUE(close(y.to_host(), j.host_step()));
}

// No epilogue: the row sums are held (so they are stored), or read through a view, or the
// expression that reads them also reads the summed matrix (another domain), or the reduction's
// side of the kernel stores a held array.
TEST_F(EpilogueStructureTest, HeldResultsAndOtherDomainsTakeNoEpilogue) {
  const int64_t n = 21, k = 6;
  const auto ha = test_values<double>(n * k, 11), hb = test_values<double>(n, 12);
  auto a = ts::from_host<double>({n, k}, ha);
  auto b = ts::from_host<double>({n}, hb);
  rt().flush();
  const bool columns_cut = td::runtime().grid(2).dim(1) > 1;
  std::vector<double> sums(static_cast<std::size_t>(n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) sums[i] += ha[i * k + j];

  ts::Stats before = rt().stats();
  auto held = ts::sum(a, 1);
  auto shifted = held + b;
  rt().flush();
  EXPECT_EQ(rt().stats().kernels - before.kernels, 2);
  std::vector<double> want = sums;
  for (int64_t i = 0; i < n; ++i) want[i] += hb[i];
  EXPECT_TRUE(close(shifted.to_host(), want));
  EXPECT_TRUE(close(held.to_host(), sums));

  before = rt().stats();
  auto centered = a - ts::sum(a, 1, true);
  rt().flush();
  EXPECT_EQ(rt().stats().kernels - before.kernels, 2);
  std::vector<double> want_centered;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) want_centered.push_back(ha[i * k + j] - sums[i]);
  EXPECT_TRUE(close(centered.to_host(), want_centered));

  before = rt().stats();
  auto tail = ts::sum(a, 1)(ts::slice(1, n)) * 2.0;
  rt().flush();
  EXPECT_EQ(rt().stats().kernels - before.kernels, 2);
  std::vector<double> want_tail;
  for (int64_t i = 1; i < n; ++i) want_tail.push_back(2.0 * sums[i]);
  EXPECT_TRUE(close(tail.to_host(), want_tail));

  // The summed values are held (stored by the reduction's kernel, over its own tiling).
  before = rt().stats();
  auto doubled = a * 2.0;
  auto with_b = ts::sum(doubled, 1) + b;
  rt().flush();
  EXPECT_EQ(rt().stats().kernels - before.kernels, 2);
  std::vector<double> want_with_b;
  for (int64_t i = 0; i < n; ++i) want_with_b.push_back(2.0 * sums[i] + hb[i]);
  EXPECT_TRUE(close(with_b.to_host(), want_with_b));

  before = rt().stats();
  auto fused = ts::sum(a, 1) * 2.0;
  rt().flush();
  EXPECT_EQ(rt().stats().kernels - before.kernels, columns_cut ? 2 : 1);
  std::vector<double> want_fused;
  for (double s : sums) want_fused.push_back(2.0 * s);
  EXPECT_TRUE(close(fused.to_host(), want_fused));
}

}  // namespace
