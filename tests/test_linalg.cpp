// Dense products (src/linalg/): matmul of (n,k)@(k,), (k,)@(k,m), (n,k)@(k,m) and NumPy's dot
// against a naive host reference, on uneven shapes, float32 and float64, views as operands, on
// every grid shape; what moves (a matvec's one sum across the grid row, SUMMA's panels); Jacobi;
// the errors.

#include <cstdint>
#include <vector>

#include <tessera/program/program.hpp>

#include "support.hpp"

namespace {

using std::int64_t;
using ts::slice;

// C = A B on the host, row-major; A n x k, B k x m (a vector is k x 1 or 1 x k).
std::vector<double> host_matmul(const std::vector<double>& a, const std::vector<double>& b, int64_t n, int64_t k,
                                int64_t m) {
  std::vector<double> c(n * m, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < m; ++j) c[i * m + j] += a[i * k + p] * b[p * m + j];
  return c;
}

template <class T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}
template <class T>
std::vector<double> widen(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

template <class T>
void check_shapes(int64_t n, int64_t k, int64_t m, double rtol) {
  SCOPED_TRACE(testing::Message() << n << " x " << k << " x " << m);
  const auto ha = as<T>(host_values(n * k, 1)), hb = as<T>(host_values(k * m, 2));
  const auto hx = as<T>(host_values(k, 3)), hv = as<T>(host_values(n, 4));
  auto A = ts::from_host<T>({n, k}, ha);
  auto B = ts::from_host<T>({k, m}, hb);
  auto x = ts::from_host<T>({k}, hx);
  auto v = ts::from_host<T>({n}, hv);
  auto y = ts::matmul(A, x);
  EXPECT_EQ(y.shape(), ts::Shape{n});
  EXPECT_TRUE(close(widen(y.to_host()), host_matmul(widen(ha), widen(hx), n, k, 1), rtol));
  auto z = ts::matmul(v, A);
  EXPECT_EQ(z.shape(), ts::Shape{k});
  EXPECT_TRUE(close(widen(z.to_host()), host_matmul(widen(hv), widen(ha), 1, n, k), rtol));
  auto C = ts::matmul(A, B);
  EXPECT_EQ(C.shape(), (ts::Shape{n, m}));
  EXPECT_TRUE(close(widen(C.to_host()), host_matmul(widen(ha), widen(hb), n, k, m), rtol));
  // dot: the same products; of 1-D operands the inner product.
  EXPECT_TRUE(close(widen(ts::dot(A, x).to_host()), widen(y.to_host()), 0));
  EXPECT_TRUE(close(widen(ts::dot(A, B).to_host()), widen(C.to_host()), 0));
  double inner = 0;
  for (int64_t i = 0; i < k; ++i) inner += static_cast<double>(hx[i]) * hx[i];
  EXPECT_NEAR(ts::dot(x, x).item(), inner, rtol * std::max(1.0, inner));
  EXPECT_NEAR(ts::matmul(x, x).item(), inner, rtol * std::max(1.0, inner));
}

void all_shapes() {
  for (auto [n, k, m] : {std::tuple<int64_t, int64_t, int64_t>{7, 5, 4},
                         {13, 29, 6},
                         {1, 9, 1},
                         {4, 1, 3},
                         {31, 17, 23},
                         {2, 3, 0},
                         {0, 4, 2},
                         {3, 0, 5},
                         {40, 70, 9}})
    check_shapes<double>(n, k, m, 1e-13);
  for (auto [n, k, m] : {std::tuple<int64_t, int64_t, int64_t>{9, 14, 5}, {16, 16, 16}})
    check_shapes<float>(n, k, m, 1e-5);
}

}  // namespace

TEST_F(TesseraTest, ProductsAgainstTheHost) { all_shapes(); }
TEST_F(RowGridTest, ProductsAgainstTheHost) { all_shapes(); }
TEST_F(ColumnGridTest, ProductsAgainstTheHost) { all_shapes(); }
// A matvec as a reduction program (TESSERA_MATVEC=generated) agrees with the GEMV task.
class GeneratedMatvecTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.matvec = "generated";
    return c;
  }
};
TEST_F(GeneratedMatvecTest, ProductsAgainstTheHost) { all_shapes(); }
TEST(Linalg, ProductsAgainstTheHostUnfused) {
  ts::Config c;
  c.fusion = false;
  int argc = 0;
  char** argv = nullptr;
  ts::Runtime rt(argc, argv, c);
  check_shapes<double>(11, 8, 6, 1e-13);
}

// Views, strided views (copied for BLAS first), mixed types (promoted as NumPy).
TEST_F(TesseraTest, ProductsOfViewsAndMixedTypes) {
  const int64_t n = 9, k = 7, m = 5;
  const auto hbig = host_values((n + 3) * (2 * k), 5), h3 = host_values(k * m * 3, 6);
  auto big = ts::from_host<double>({n + 3, 2 * k}, hbig);
  auto A = big(slice(2, n + 2), slice(0, 2 * k, 2));  // rows 2.., every other column
  std::vector<double> ha;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = 0; p < k; ++p) ha.push_back(hbig[(i + 2) * 2 * k + 2 * p]);
  auto cube = ts::from_host<double>({k, m, 3}, h3);
  auto B = cube(ts::all, ts::all, 1);  // (k, m) with a stride of 3
  std::vector<double> hb;
  for (int64_t i = 0; i < k * m; ++i) hb.push_back(h3[i * 3 + 1]);
  EXPECT_TRUE(close(ts::matmul(A, B).to_host(), host_matmul(ha, hb, n, k, m), 1e-13));
  // A matrix that is a slice of a 3-D array (tiled over the 3-D grid) times vectors, both sides.
  const auto hk = host_values(k, 10), hm = host_values(m, 11);
  auto xk = ts::from_host<double>({k}, hk);
  auto xm = ts::from_host<double>({m}, hm);
  EXPECT_TRUE(close(ts::matmul(B, xm).to_host(), host_matmul(hb, hm, k, m, 1), 1e-13));
  EXPECT_TRUE(close(ts::matmul(xk, B).to_host(), host_matmul(hk, hb, 1, k, m), 1e-13));
  auto x = ts::from_host<float>({k}, as<float>(host_values(k, 7)));
  auto y = ts::matmul(A, x);  // float64 @ float32: float64
  static_assert(std::is_same_v<decltype(y), ts::Array<double>>);
  EXPECT_TRUE(close(y.to_host(), host_matmul(ha, widen(x.to_host()), n, k, 1), 1e-13));
  auto col = big(ts::all, 3);  // a column of the grid: (n + 3,)
  std::vector<double> hcol;
  for (int64_t i = 0; i < n + 3; ++i) hcol.push_back(hbig[i * 2 * k + 3]);
  EXPECT_TRUE(close(ts::matmul(col(slice(0, n)), A).to_host(), host_matmul(hcol, ha, 1, n, k), 1e-13));
  // 0-d operands of dot multiply.
  auto s = ts::sum(x);
  EXPECT_TRUE(close(ts::dot(s, x).to_host(), (s * x).to_host(), 0));
}

// A matvec is one task: each rank's GEMV of its tile, one sum across the grid row (none where the
// grid has one column), x moved to the ranks that need its part; a GEMM is one task per panel.
TEST_F(TesseraTest, WhatAProductMoves) {
  const int64_t n = 24, k = 18, m = 10;
  auto A = ts::random<double>({n, k}, 1);
  auto B = ts::random<double>({k, m}, 2);
  auto x = ts::random<double>({k}, 3);
  const auto grid = ts::detail::runtime().grid(2);
  reset_stats_now(rt());
  auto y = ts::matmul(A, x);
  ts::Stats s = stats_now(rt());
  EXPECT_EQ(s.kernels, 1);
  EXPECT_EQ(s.allreduces, grid.dim(1) > 1 ? 1 : 0);
  EXPECT_LE(s.redistributions, 1);
  EXPECT_LE(s.redistribution_bytes, static_cast<int64_t>(sizeof(double)) * (k / grid.dim(1) + 1));
  reset_stats_now(rt());
  auto C = ts::matmul(A, B);
  s = stats_now(rt());
  const int panels = std::max(grid.dim(0), grid.dim(1));
  EXPECT_EQ(s.kernels, panels);
  EXPECT_LE(s.redistributions, 2 * panels);
  EXPECT_EQ(s.allreduces, 0);
  (void)y.to_host(), (void)C.to_host();
}

// A long inner dimension with small outer ones (k-means' centroid update, onehot^T @ data) is
// one panel per grid part, not one per 1,024 columns of k: each panel is a task through the
// window, and thousands of them per product cost the host far more than the product.
TEST_F(TesseraTest, ALongInnerDimensionIsFewPanels) {
  const int64_t n = 5, k = 5000, m = 3;
  auto A = ts::random<double>({n, k}, 4);
  auto B = ts::random<double>({k, m}, 5);
  const std::vector<double> ha = A.to_host(), hb = B.to_host();
  const auto grid = ts::detail::runtime().grid(2);
  reset_stats_now(rt());
  auto C = ts::matmul(A, B);
  const ts::Stats s = stats_now(rt());
  EXPECT_EQ(s.kernels, std::max(grid.dim(0), grid.dim(1)));
  EXPECT_TRUE(close(C.to_host(), host_matmul(ha, hb, n, k, m), 1e-12));
}

// Jacobi for A x = b with A = D + R diagonally dominant: x = (b - R @ x) / d, iterated; the
// window and its plan repeat.
namespace {
void jacobi_iterations(ts::Runtime& rt) {
  const int64_t n = 21;
  auto hr = host_values(n * n, 8);
  std::vector<double> hd(n), hb = host_values(n, 9);
  for (int64_t i = 0; i < n; ++i) hr[i * n + i] = 0.0, hd[i] = 2.0 * n;
  auto R = ts::from_host<double>({n, n}, hr);
  auto d = ts::from_host<double>({n}, hd);
  auto b = ts::from_host<double>({n}, hb);
  auto x = ts::zeros<double>({n});
  std::vector<double> hx(n, 0.0);
  reset_stats_now(rt);
  constexpr int kIterations = 6;
  for (int it = 0; it < kIterations; ++it) {
    x = (b - ts::matmul(R, x)) / d;
    const auto rx = host_matmul(hr, hx, n, n, 1);
    for (int64_t i = 0; i < n; ++i) hx[i] = (hb[i] - rx[i]) / hd[i];
    EXPECT_TRUE(close(x.to_host(), hx, 1e-13));
  }
  // The product, then one kernel for (b - y) / d; with the matvec generated (TESSERA_MATVEC=auto
  // does for rows this short), (b - y) / d is the product kernel's epilogue, except where the
  // grid row's partial sums are combined first.
  if (rt.config().fusion) {
    const std::string& matvec = rt.config().matvec;
    const bool generated = matvec == "generated" || (matvec == "auto" && n <= ts::detail::kMaxSweepColumns);
    const bool one_kernel = generated && ts::detail::runtime().grid(2).dim(1) == 1;
    EXPECT_EQ(rt.stats().kernels, (one_kernel ? 1 : 2) * kIterations);
    EXPECT_GE(rt.stats().plan_cache_hits, kIterations - 1);
  }
}
}  // namespace

TEST(Linalg, JacobiIteration) {
  fused_and_unfused([](ts::Runtime& rt) { jacobi_iterations(rt); });
}
TEST_F(GeneratedMatvecTest, JacobiIteration) { jacobi_iterations(rt()); }

TEST_F(TesseraTest, ProductBadInputs) {
  auto A = ts::zeros<double>({7, 5});
  auto x = ts::zeros<double>({4});
  auto B = ts::zeros<double>({4, 3});
  expect_collective_error("matvec", [&] { auto y = ts::matmul(A, x); },
                          {"matmul: Input operand 1 has a mismatch in its core dimension 0",
                           "(size 4 is different from 5)", "(7, 5) and (4,)"});
  expect_collective_error("gemm", [&] { auto y = ts::matmul(A, B); }, {"(7, 5) and (4, 3)"});
  expect_collective_error("vecmat", [&] { auto y = ts::matmul(x, A); },
                          {"size 7 is different from 4", "(4,) and (7, 5)"});
  expect_collective_error("dot", [&] { auto y = ts::dot(A, x); },
                          {"dot: shapes (7, 5) and (4,) not aligned: 5 (dim 1) != 4 (dim 0)"});
  expect_collective_error("0-d", [&] { auto y = ts::matmul(ts::sum(A), A); }, {"does not take 0-d operands", "()"});
  auto cube = ts::zeros<double>({2, 3, 4});
  expect_collective_error("3-D dot", [&] { auto y = ts::dot(cube, cube); },
                          {"(2, 3, 4) and (2, 3, 4)", "use ts::vdot"});
  auto ints = ts::zeros<std::int32_t>({3, 3});
  expect_collective_error("integers", [&] { auto y = ts::matmul(ints, ints); },
                          {"products of int32 matrices are not supported", "astype<double>()"});
  EXPECT_EQ(ts::dot(ts::ones<std::int64_t>({4}), ts::ones<std::int64_t>({4})).item(), 4);  // 1-D: any type
}

// Operands that BLAS cannot take as they are (another type, a strided view) are copied by an op
// before the product task; a window that fills up between the copies and the task must keep them
// (test_fuzz seed 1030 at window 3: float32 @ int64 read a copy that was never computed, and gave
// 0 or NaN). Windows of 1 to 5 ops with 0 to 3 ops before the product put the cut everywhere.
TEST(Linalg, OperandCopiesSurviveAFullWindow) {
  const int64_t n = 4, k = 3, m = 5;
  const auto ha = as<float>(host_values(n * k, 1)), hx = as<float>(host_values(k, 3));
  std::vector<int64_t> hb;  // k x (m + 1), read as b(:, 0:m)
  for (double v : host_values(k * (m + 1), 2)) hb.push_back(static_cast<int64_t>(v * 8));
  std::vector<double> hbv;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < m; ++j) hbv.push_back(static_cast<double>(hb[p * (m + 1) + j]));
  for (int window = 1; window <= 5; ++window)
    for (int before = 0; before <= 3; ++before) {
      SCOPED_TRACE(testing::Message() << "window " << window << ", " << before << " ops before");
      ts::Config cfg;
      cfg.window = window;
      int argc = 0;
      char** argv = nullptr;
      ts::Runtime rt(argc, argv, cfg);
      auto a = ts::from_host<float>({n, k}, ha);
      auto b = ts::from_host<int64_t>({k, m + 1}, hb);
      auto x = ts::from_host<double>({k}, widen(hx));
      rt.flush();
      auto y = ts::ones<double>({7});
      for (int i = 0; i < before; ++i) y = y * 2.0;
      auto c = ts::matmul(a, b(ts::all, slice(0, m)));  // float32 @ int64: both copied to float64
      auto v = ts::matmul(a, x);                        // a copied (matvec)
      auto w = ts::matmul(x, b(ts::all, slice(0, m)));  // b copied (vecmat)
      EXPECT_TRUE(close(c.to_host(), host_matmul(widen(ha), hbv, n, k, m), 1e-13));
      EXPECT_TRUE(close(v.to_host(), host_matmul(widen(ha), widen(hx), n, k, 1), 1e-13));
      EXPECT_TRUE(close(w.to_host(), host_matmul(widen(hx), hbv, 1, k, m), 1e-13));
      EXPECT_EQ(y.to_host(), std::vector<double>(7, static_cast<double>(1 << before)));
    }
}

// A product of k = 1 on a grid that cuts k: the ranks of k's empty part hold copies of y too,
// which the sum across the grid slice fills. It skipped k = 1, so they stayed 0, and an op that
// read y from such a copy got 0s: `v(0::2) += A @ x` with A (4, 1) at np 4 (test_fuzz seeds 1052
// and 1139), fused and unfused. y and z are read here through another tiling (strided views).
void check_one_term_products() {
  for (int64_t n : {4, 7}) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    const auto ha = host_values(n, 1), hb = host_values(n, 2);
    auto a = ts::from_host<double>({n, 1}, ha);
    auto b = ts::from_host<double>({1, n}, hb);
    auto y = ts::matmul(a, ts::full<double>({1}, 1.5));   // matvec: (n, 1) @ (1,)
    auto z = ts::matmul(ts::full<double>({1}, -2.0), b);  // vecmat: (1,) @ (1, n)
    auto out = ts::zeros<double>({2 * n});
    out(slice(0, 2 * n, 2)) += y;
    out(slice(1, 2 * n, 2)) += z;
    std::vector<double> want(2 * n);
    for (int64_t i = 0; i < n; ++i) want[2 * i] = 1.5 * ha[i], want[2 * i + 1] = -2.0 * hb[i];
    EXPECT_TRUE(close(out.to_host(), want, 1e-15));
  }
}

TEST_F(TesseraTest, ProductsOfOneTermFeedOtherTilings) { check_one_term_products(); }
TEST_F(RowGridTest, ProductsOfOneTermFeedOtherTilings) { check_one_term_products(); }
TEST_F(ColumnGridTest, ProductsOfOneTermFeedOtherTilings) { check_one_term_products(); }
TEST(Linalg, ProductsOfOneTermFeedOtherTilingsUnfused) {
  ts::Config c;
  c.fusion = false;
  int argc = 0;
  char** argv = nullptr;
  ts::Runtime rt(argc, argv, c);
  check_one_term_products();
}
