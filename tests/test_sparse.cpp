// CSR sparse matrices (src/sparse/): SpMV and diag against a plain host CSR matvec on uneven
// shapes, float32 and float64, from the whole matrix and from uneven blocks of rows; each SpMV
// exchanges exactly the image entries (counted in stats); int32 column indices and the int64
// fallback; vdot(p, A @ p) as the SpMV's epilogue; sparse CG; the errors.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <tessera/sparse/csr_data.hpp>

#include "support.hpp"

namespace {

using std::int64_t;
using ts::slice;

struct HostCsr {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> indptr{0}, indices;
  std::vector<double> values;
};

// About a third of the entries, some rows empty, and the diagonal where it exists.
HostCsr random_csr(int64_t rows, int64_t cols, int salt) {
  HostCsr a;
  a.rows = rows, a.cols = cols;
  const auto v = host_values(static_cast<std::size_t>(std::max<int64_t>(1, rows * cols)), salt);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j)
      if (i == j || (i % 5 != 3 && (i * 7 + j * 3 + salt) % 3 == 0)) {
        a.indices.push_back(j);
        a.values.push_back(v[i * cols + j] + (i == j ? 4.0 : 0.0));
      }
    a.indptr.push_back(static_cast<int64_t>(a.indices.size()));
  }
  return a;
}

// The 5-point Laplacian of an n x n grid, rows in row-major order of the grid points.
HostCsr poisson(int64_t n) {
  HostCsr a;
  a.rows = a.cols = n * n;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t p = i * n + j;
      for (int64_t q : {p - n, p - 1, p, p + 1, p + n}) {
        if (q < 0 || q >= n * n || (q == p - 1 && j == 0) || (q == p + 1 && j == n - 1)) continue;
        a.indices.push_back(q);
        a.values.push_back(q == p ? 4.0 : -1.0);
      }
      a.indptr.push_back(static_cast<int64_t>(a.indices.size()));
    }
  return a;
}

std::vector<double> host_matvec(const HostCsr& a, const std::vector<double>& x) {
  std::vector<double> y(a.rows, 0.0);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t k = a.indptr[i]; k < a.indptr[i + 1]; ++k) y[i] += a.values[k] * x[a.indices[k]];
  return y;
}

template <class T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// The balanced split of n over the ranks (the first n % size parts one longer), as tessera tiles.
std::pair<int64_t, int64_t> balanced_part(int64_t n, int rank, int size) {
  const int64_t base = n / size, extra = n % size;
  const int64_t lo = rank * base + std::min<int64_t>(rank, extra);
  return {lo, lo + base + (rank < extra ? 1 : 0)};
}

// This rank's block of rows under an uneven split: rank r of p gets about (r + 1) / (p (p + 1) / 2)
// of the rows, the last rank none when there are at least two.
template <class T>
ts::CsrMatrix<T> from_uneven_rows(const HostCsr& a, int rank, int size) {
  std::vector<int64_t> starts{0};
  const int64_t weight = size * (size + 1) / 2;
  for (int r = 0; r < size; ++r)
    starts.push_back(r == size - 1 ? a.rows : std::min(a.rows, starts.back() + a.rows * (r + 1) / weight));
  if (size > 1) starts[size - 1] = a.rows;  // the last rank: no rows
  const int64_t lo = starts[rank], hi = starts[rank + 1];
  std::vector<int64_t> ptr{0}, idx(a.indices.begin() + a.indptr[lo], a.indices.begin() + a.indptr[hi]);
  for (int64_t i = lo; i < hi; ++i) ptr.push_back(a.indptr[i + 1] - a.indptr[lo]);
  std::vector<double> val(a.values.begin() + a.indptr[lo], a.values.begin() + a.indptr[hi]);
  return ts::csr_from_rows<T>({a.rows, a.cols}, lo, ptr, idx, as<T>(val));
}

template <class T>
void check_products(ts::Runtime& rt, int64_t rows, int64_t cols, double rtol) {
  SCOPED_TRACE(testing::Message() << rows << " x " << cols);
  const HostCsr h = random_csr(rows, cols, static_cast<int>(rows + cols));
  const auto hx = as<T>(host_values(cols, 3));
  auto want = host_matvec(h, std::vector<double>(hx.begin(), hx.end()));
  auto x = ts::from_host<T>({cols}, hx);
  for (const auto& A : {ts::csr_from_host<T>({rows, cols}, h.indptr, h.indices, as<T>(h.values)),
                        from_uneven_rows<T>(h, rt.rank(), rt.size())}) {
    EXPECT_EQ(A.shape(), (ts::Shape{rows, cols}));
    EXPECT_EQ(A.nnz(), static_cast<int64_t>(h.indices.size()));
    EXPECT_TRUE(close(ts::matmul(A, x).to_host(), as<T>(want), rtol));
    // x through a view of a longer array: copied to x's tiling first.
    std::vector<T> longer(cols + 5, T(0));
    std::copy(hx.begin(), hx.end(), longer.begin() + 2);
    auto big = ts::from_host<T>({cols + 5}, longer);
    EXPECT_TRUE(close(ts::matmul(A, big(slice(2, cols + 2))).to_host(), as<T>(want), rtol));
    std::vector<T> d(std::min(rows, cols), T(0));
    for (int64_t i = 0; i < static_cast<int64_t>(d.size()); ++i)
      for (int64_t k = h.indptr[i]; k < h.indptr[i + 1]; ++k)
        if (h.indices[k] == i) d[i] = static_cast<T>(h.values[k]);
    EXPECT_EQ(ts::diag(A).to_host(), d);
  }
}

// Sparse CG on the 2-D Poisson problem, as SciPy's cg would run it.
std::vector<double> host_cg(const HostCsr& a, const std::vector<double>& b, int iterations) {
  std::vector<double> x(b.size(), 0.0), r = b, p = b;
  auto dot = [](const std::vector<double>& u, const std::vector<double>& v) {
    double s = 0;
    for (std::size_t i = 0; i < u.size(); ++i) s += u[i] * v[i];
    return s;
  };
  double rr = dot(r, r);
  for (int it = 0; it < iterations; ++it) {
    const auto q = host_matvec(a, p);
    const double alpha = rr / dot(p, q);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += alpha * p[i], r[i] -= alpha * q[i];
    const double rr_new = dot(r, r);
    for (std::size_t i = 0; i < x.size(); ++i) p[i] = r[i] + rr_new / rr * p[i];
    rr = rr_new;
  }
  return x;
}

}  // namespace

TEST_F(TesseraTest, SpmvAndDiagonalFloat64) {
  for (auto [r, c] : {std::pair<int64_t, int64_t>{13, 9}, {9, 13}, {17, 17}, {1, 1}, {2, 5}, {5, 0}, {0, 3}})
    check_products<double>(rt(), r, c, 1e-13);
}
TEST_F(TesseraTest, SpmvAndDiagonalFloat32) {
  for (auto [r, c] : {std::pair<int64_t, int64_t>{11, 7}, {7, 11}, {16, 16}}) check_products<float>(rt(), r, c, 1e-5);
}

// A block's column indices are local: int32 for a local column space of up to 2^31 columns.
TEST(Sparse, ColumnIndexWidth) {
  using ts::detail::column_index_width;
  using ts::detail::IndexWidth;
  EXPECT_EQ(column_index_width(0), IndexWidth::Int32);
  EXPECT_EQ(column_index_width(17), IndexWidth::Int32);
  EXPECT_EQ(column_index_width(int64_t(1) << 31), IndexWidth::Int32);  // indices up to 2^31 - 1
  EXPECT_EQ(column_index_width((int64_t(1) << 31) + 1), IndexWidth::Int64);
  EXPECT_EQ(column_index_width(int64_t(1) << 40), IndexWidth::Int64);
}

// Both blocks of an ordinary matrix hold int32 row pointers and column indices; the same matrix
// with int64 ones (the fallbacks beyond 2^31 nonzeros or local columns), in each combination, gives
// the same products.
TEST_F(TesseraTest, SpmvWithInt32AndInt64Indices) {
  using ts::detail::CsrBlock;
  using ts::detail::IndexWidth;
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{23, 19}, {9, 30}}) {
    SCOPED_TRACE(testing::Message() << rows << " x " << cols);
    const HostCsr h = random_csr(rows, cols, 5);
    const auto hx = host_values(cols, 4);
    const auto want = host_matvec(h, hx);
    auto x = ts::from_host<double>({cols}, hx);
    for (const auto& A : {ts::csr_from_host<double>({rows, cols}, h.indptr, h.indices, h.values),
                          from_uneven_rows<double>(h, rt().rank(), rt().size())}) {
      const ts::detail::CsrData& narrow = *A.impl();
      const int64_t entries = static_cast<int64_t>(narrow.owned.col32.extent(0) + narrow.ghost.col32.extent(0));
      EXPECT_EQ(all_sum(entries), static_cast<int64_t>(h.indices.size()));
      for (const CsrBlock* b : {&narrow.owned, &narrow.ghost}) {
        EXPECT_EQ(b->width, IndexWidth::Int32);
        EXPECT_EQ(b->row_width, IndexWidth::Int32);
        EXPECT_EQ(b->col64.extent(0), 0u);
        EXPECT_EQ(b->ptr64.extent(0), 0u);
      }
      if (rt().size() > 1) EXPECT_GT(all_sum(static_cast<int64_t>(narrow.ghost.col32.extent(0))), 0);
      EXPECT_TRUE(close(ts::matmul(A, x).to_host(), want, 1e-13));
      for (auto [wide_rows, wide_columns] : {std::pair{true, false}, {false, true}, {true, true}}) {
        SCOPED_TRACE(testing::Message() << "int64 row pointers " << wide_rows << ", column indices " << wide_columns);
        ts::CsrMatrix<double> wide(ts::detail::csr_with_int64_indices(narrow, wide_rows, wide_columns));
        const ts::detail::CsrData& w = *wide.impl();
        for (auto [b, n] : {std::pair{&w.owned, &narrow.owned}, {&w.ghost, &narrow.ghost}}) {
          EXPECT_EQ(b->row_width, wide_rows ? IndexWidth::Int64 : IndexWidth::Int32);
          EXPECT_EQ(b->width, wide_columns ? IndexWidth::Int64 : IndexWidth::Int32);
          EXPECT_EQ(b->stored_rows(), n->stored_rows());
          EXPECT_EQ(wide_columns ? b->col64.extent(0) : b->col32.extent(0), n->col32.extent(0));
        }
        EXPECT_TRUE(close(ts::matmul(wide, x).to_host(), want, 1e-13));
      }
    }
  }
}

// The ghost block keeps only the rows that reference other ranks' columns, in ascending order
// (none on one rank: its kernel does not run), and the owned block every row.
TEST_F(TesseraTest, GhostBlockKeepsOnlyRowsWithOffRankColumns) {
  const HostCsr h = poisson(9);
  auto A = ts::csr_from_host<double>({h.rows, h.cols}, h.indptr, h.indices, h.values);
  const ts::detail::CsrData& a = *A.impl();
  const auto [lo, hi] = balanced_part(h.rows, rt().rank(), rt().size());
  std::vector<int64_t> want;
  for (int64_t i = lo; i < hi; ++i)
    for (int64_t k = h.indptr[i]; k < h.indptr[i + 1]; ++k)
      if (h.indices[k] < lo || h.indices[k] >= hi) {
        want.push_back(i - lo);
        break;
      }
  EXPECT_TRUE(a.ghost.compressed);
  EXPECT_FALSE(a.owned.compressed);
  EXPECT_EQ(a.owned.stored_rows(), hi - lo);
  auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.ghost.rows);
  EXPECT_EQ(std::vector<int64_t>(rows.data(), rows.data() + rows.extent(0)), want);
  EXPECT_EQ(a.ghost.stored_rows(), static_cast<int64_t>(want.size()));
  if (rt().size() == 1) EXPECT_TRUE(want.empty());
  auto x = ts::from_host<double>({h.cols}, host_values(h.cols, 3));
  EXPECT_TRUE(close(ts::matmul(A, x).to_host(), host_matvec(h, host_values(h.cols, 3)), 1e-13));
}

// Each SpMV receives exactly the entries of x its rows reference outside its tile of x: one image
// exchange, no halo exchange, no redistribution.
TEST_F(TesseraTest, SpmvMovesExactlyTheImage) {
  const int64_t n = 9;
  const HostCsr h = poisson(n);
  auto A = ts::csr_from_host<double>({h.rows, h.cols}, h.indptr, h.indices, h.values);
  const auto hx = host_values(h.cols, 8);
  auto x = ts::from_host<double>({h.cols}, hx);
  const auto [lo, hi] = balanced_part(h.rows, rt().rank(), rt().size());
  std::vector<int64_t> image;
  for (int64_t k = h.indptr[lo]; k < h.indptr[hi]; ++k)
    if (h.indices[k] < lo || h.indices[k] >= hi) image.push_back(h.indices[k]);
  std::sort(image.begin(), image.end());
  image.erase(std::unique(image.begin(), image.end()), image.end());
  reset_stats_now(rt());
  constexpr int kProducts = 3;
  for (int k = 0; k < kProducts; ++k) {
    auto y = ts::matmul(A, x);
    EXPECT_TRUE(close(y.to_host(), host_matvec(h, hx), 1e-13));
  }
  const ts::Stats s = rt().stats();
  EXPECT_EQ(s.image_bytes, kProducts * static_cast<int64_t>(image.size() * sizeof(double)));
  EXPECT_EQ(s.image_exchanges, rt().size() > 1 ? kProducts : 0);
  EXPECT_EQ(s.halo_exchanges, 0);
  EXPECT_EQ(s.redistributions, 0);
  if (rt().size() > 1) EXPECT_GT(all_sum(s.image_bytes), 0);
}

TEST(Sparse, ConjugateGradientsOnPoisson) {
  fused_and_unfused([](ts::Runtime& rt) {
    const int64_t n = 10;
    const HostCsr h = poisson(n);
    const auto hb = host_values(h.rows, 12);
    auto A = ts::csr_from_host<double>({h.rows, h.cols}, h.indptr, h.indices, h.values);
    auto b = ts::from_host<double>({h.rows}, hb);
    auto x = ts::zeros<double>({h.rows});
    auto r = ts::copy(b);
    auto p = ts::copy(b);
    auto rr = ts::dot(r, r);
    reset_stats_now(rt);
    constexpr int kIterations = 8;
    for (int it = 0; it < kIterations; ++it) {
      auto q = ts::matmul(A, p);
      auto alpha = rr / ts::dot(p, q);
      x += alpha * p;
      r -= alpha * q;
      auto rr_new = ts::dot(r, r);
      p.assign(r + (rr_new / rr) * p);
      rr = rr_new;
      EXPECT_GT(rr.item(), 0.0);  // a convergence check synchronizes once per iteration
    }
    EXPECT_TRUE(close(x.to_host(), host_cg(h, hb, kIterations), 1e-10));
    EXPECT_EQ(rt.stats().image_exchanges, rt.size() > 1 ? kIterations : 0);
    // Fused, three kernels an iteration: the SpMV with dot(p, q) as its epilogue; x, r and
    // dot(r, r); p (which reads dot(r, r)). And alpha's one element, stored because its handle
    // is alive at item().
    if (rt.config().fusion) EXPECT_EQ(rt.stats().kernels, (3 + 1) * kIterations);
    // Every iteration's window is the same but the first's: its plan is cached.
    if (rt.config().fusion) EXPECT_GE(rt.stats().plan_cache_hits, kIterations - 2);
  });
}

namespace {

double host_dot(const std::vector<double>& u, const std::vector<double>& v) {
  double s = 0;
  for (std::size_t i = 0; i < u.size(); ++i) s += u[i] * v[i];
  return s;
}

// vdot(p, A @ p) runs inside the SpMV, as its epilogue, where the window holds both: one kernel.
// p may be a view, or tiled otherwise than the rows (rows from uneven blocks: the executor brings
// p to them). Where p changes in between, or the product is read through a view or squared, the
// inner product is a reduction of its own. Every value against the host's.
template <class T>
void check_inner_product_epilogue(ts::Runtime& rt, double rtol) {
  const int64_t n = 29;
  const HostCsr h = random_csr(n, n, 6);
  const auto hp = as<T>(host_values(n, 4));
  const std::vector<double> p64(hp.begin(), hp.end()), q = host_matvec(h, p64);
  const bool fused = rt.config().fusion;
  auto A = ts::csr_from_host<T>({n, n}, h.indptr, h.indices, as<T>(h.values));
  auto p = ts::from_host<T>({n}, hp);
  const auto close_to = [&](T got, double want) {
    return std::abs(got - want) <= rtol * (std::abs(want) + host_dot(p64, p64));
  };

  reset_stats_now(rt);
  EXPECT_PRED2(close_to, ts::vdot(p, ts::matmul(A, p)).item(), host_dot(p64, q));
  EXPECT_EQ(rt.stats().kernels, fused ? 1 : 2);
  reset_stats_now(rt);
  EXPECT_PRED2(close_to, ts::vdot(ts::matmul(A, p), p).item(), host_dot(q, p64));
  EXPECT_EQ(rt.stats().kernels, fused ? 1 : 2);

  auto y = ts::matmul(A, p);
  EXPECT_PRED2(close_to, ts::vdot(y, y).item(), host_dot(q, q));
  y = ts::matmul(A, p);
  EXPECT_PRED2(close_to, ts::vdot(p(slice(1, n)), y(slice(1, n))).item(),
               host_dot({p64.begin() + 1, p64.end()}, {q.begin() + 1, q.end()}));
  auto shifted = ts::copy(p);
  y = ts::matmul(A, shifted);
  shifted += T(1);  // after the product: the sum reads the new values
  std::vector<double> hs = p64;
  for (double& v : hs) v += 1;
  EXPECT_PRED2(close_to, ts::vdot(shifted, y).item(), host_dot(hs, q));

  auto longer = ts::from_host<T>({n + 3}, as<T>(host_values(n + 3, 4)));
  longer(slice(2, n + 2)).assign(p);
  EXPECT_PRED2(close_to, ts::vdot(longer(slice(2, n + 2)), ts::matmul(A, p)).item(), host_dot(p64, q));

  // Stepped views: the epilogue's operand, and the product's input read through the same view.
  auto wide = ts::from_host<T>({2 * n}, as<T>(host_values(2 * n, 5)));
  wide(slice(1, 2 * n, 2)).assign(p);
  reset_stats_now(rt);
  EXPECT_PRED2(close_to, ts::vdot(wide(slice(1, 2 * n, 2)), ts::matmul(A, p)).item(), host_dot(p64, q));
  EXPECT_EQ(rt.stats().kernels, fused ? 1 : 2);
  const auto odd = wide(slice(1, 2 * n, 2));
  EXPECT_PRED2(close_to, ts::vdot(odd, ts::matmul(A, odd)).item(), host_dot(p64, q));

  auto uneven = from_uneven_rows<T>(h, rt.rank(), rt.size());
  EXPECT_PRED2(close_to, ts::vdot(p, ts::matmul(uneven, p)).item(), host_dot(p64, q));
}

}  // namespace

TEST(Sparse, InnerProductIsTheSpmvsEpilogue) {
  fused_and_unfused([](ts::Runtime& rt) {
    check_inner_product_epilogue<double>(rt, 1e-13);
    check_inner_product_epilogue<float>(rt, 1e-5);
  });
}

TEST_F(TesseraTest, SparseBadInputs) {
  const std::vector<int64_t> ptr{0, 2, 3, 5}, idx{0, 2, 1, 0, 2};
  const std::vector<double> val{1, 2, 3, 4, 5};
  using ts::csr_from_host;
  expect_collective_error("shape", [&] { csr_from_host<double>({3}, ptr, idx, val); }, {"csr_from_host", "(3,)"});
  expect_collective_error("indptr length",
                          [&] {
                            csr_from_host<double>({4, 3}, ptr, idx, val);
                          },
                          {"indptr has 4 entries", "4 rows needs 5"});
  expect_collective_error("not monotone",
                          [&] {
                            csr_from_host<double>({3, 3}, {0, 3, 2, 5}, idx, val);
                          },
                          {"indptr is not monotone", "indptr[1] = 3 > indptr[2] = 2", "(row 1)"});
  expect_collective_error("first entry",
                          [&] {
                            csr_from_host<double>({3, 3}, {1, 2, 3, 5}, idx, val);
                          },
                          {"indptr[0] is 1"});
  expect_collective_error("lengths",
                          [&] {
                            csr_from_host<double>({3, 3}, ptr, idx, {1, 2, 3});
                          },
                          {"indptr ends at 5", "5 column indices and 3 values"});
  expect_collective_error("out of range",
                          [&] {
                            csr_from_host<double>({3, 2}, ptr, idx, val);
                          },
                          {"row 0: column index 2 is out of range for a matrix of 2 columns"});
  expect_collective_error("unsorted",
                          [&] {
                            csr_from_host<double>({3, 3}, ptr, {0, 2, 1, 2, 0}, val);
                          },
                          {"row 2: column indices must be sorted and unique, but 0 follows 2"});
  expect_collective_error("duplicate",
                          [&] {
                            csr_from_host<double>({3, 3}, ptr, {0, 2, 1, 1, 1}, val);
                          },
                          {"row 2", "but 1 follows 1"});
  // Blocks of rows: one rank's bad block fails every rank; blocks must cover the rows once.
  const int me = rt().rank(), p = rt().size();
  expect_collective_error("one rank's block",
                          [&] {
                            const bool bad = me == p - 1;
                            ts::csr_from_rows<double>({p, 3}, me, {0, 1}, {bad ? 7 : 0}, {1.0});
                          },
                          {"csr_from_rows: rank " + std::to_string(p - 1) + "'s block: row " + std::to_string(p - 1) +
                           ": column index 7 is out of range"});
  if (p > 1) {
    expect_collective_error("overlap",
                            [&] {
                              ts::csr_from_rows<double>({p, 3}, me == 1 ? 0 : me, {0, 1}, {0}, {1.0});
                            },
                            {"rows [0, 1) are in the blocks of ranks 0 and 1"});
    expect_collective_error(
        "gap",
        [&] {
          ts::csr_from_rows<double>({p + 1, 3}, me == 0 ? 0 : me + 1, {0, 1}, {0}, {1.0});
        },
        {"rows [1, 2) are in no block", "rank 0's block ends at row 1 and rank 1's starts at row 2"});
  }
  expect_collective_error("too few rows",
                          [&] {
                            ts::csr_from_rows<double>({p + 2, 3}, me, {0, 1}, {0}, {1.0});
                          },
                          {"they end at row " + std::to_string(p), "has " + std::to_string(p + 2) + " rows"});
  auto A = csr_from_host<double>({3, 3}, ptr, idx, val);
  expect_collective_error("matmul shape", [&] { auto y = ts::matmul(A, ts::ones<double>({4})); },
                          {"matmul: shapes (3, 3) and (4,) not aligned", "x needs shape (3,)"});
  expect_collective_error("matmul 2-D x",
                          [&] {
                            auto y = ts::matmul(A, ts::ones<double>({3, 1}));
                          },
                          {"(3, 3) and (3, 1) not aligned"});
  ts::CsrMatrix<double> empty;
  expect_collective_error("empty matrix", [&] { auto y = ts::matmul(empty, ts::ones<double>({3})); },
                          {"the CsrMatrix is empty"});
}
