// Tasks with partition constraints (src/tasks/): bodies of the test's own, built on the detail
// layer, checked against host references. Each constraint is satisfied by the machinery fused
// groups use (aligned reads, halos, redistributions, grid-slice sums), a task is a group of its
// own, and the plan cache and the window's temporaries keep working around it.

#include <cstdint>
#include <memory>
#include <vector>

#include <tessera/array/store_factory.hpp>
#include <tessera/fusion/backend.hpp>
#include <tessera/fusion/window.hpp>

#include "support.hpp"

namespace {

namespace td = ts::detail;
using std::int64_t;
using ts::slice;

// Element x (relative to the tile's first) of a 2-D float64 tile argument.
struct Grid2 {
  double* p;
  int64_t s0, s1;
  KOKKOS_INLINE_FUNCTION double& operator()(int64_t i, int64_t j) const { return p[i * s0 + j * s1]; }
};
Grid2 grid2(const td::TileArg& a) { return {reinterpret_cast<double*>(a.data), a.stride[0], a.stride[1]}; }

template <class F>
void parallel_tile(const td::TileContext& c, const char* label, F f) {
  const int64_t n0 = c.tile.extent(0), n1 = c.tile.extent(1);
  if (n0 * n1 == 0) return;
  Kokkos::parallel_for(label, Kokkos::MDRangePolicy<td::ExecSpace, Kokkos::Rank<2>>({0, 0}, {n0, n1}), f);
}

// y[i, j] = sum of x's four neighbours inside [0, n) x [0, m) (x read under bloat(1)).
class NeighbourSum final : public td::TaskBody {
 public:
  NeighbourSum() : TaskBody({{td::Privilege::Write, td::align()}, {td::Privilege::Read, td::bloat(1)}}) {}
  void run(const td::TileContext& c) const override {
    const Grid2 y = grid2(c.args[0]), x = grid2(c.args[1]);
    const int64_t lo0 = c.tile.lo[0], lo1 = c.tile.lo[1], n = c.shape[0], m = c.shape[1];
    parallel_tile(
        c, "test::neighbour_sum", KOKKOS_LAMBDA(int64_t i, int64_t j) {
          double s = 0;
          if (lo0 + i > 0) s += x(i - 1, j);
          if (lo0 + i + 1 < n) s += x(i + 1, j);
          if (lo1 + j > 0) s += x(i, j - 1);
          if (lo1 + j + 1 < m) s += x(i, j + 1);
          y(i, j) = s;
        });
  }
};

// y[i, j] = x[i - 1, j]: the row above, ghost row -1 included (the store's values there).
class RowAbove final : public td::TaskBody {
 public:
  RowAbove() : TaskBody({{td::Privilege::Write, td::align()}, {td::Privilege::Read, td::bloat(1)}}) {}
  void run(const td::TileContext& c) const override {
    const Grid2 y = grid2(c.args[0]), x = grid2(c.args[1]);
    parallel_tile(
        c, "test::row_above", KOKKOS_LAMBDA(int64_t i, int64_t j) { y(i, j) = x(i - 1, j); });
  }
};

// y[i, j] = a[i, j] * v[j], v broadcast along dimension 0.
class ScaleColumns final : public td::TaskBody {
 public:
  ScaleColumns()
      : TaskBody({{td::Privilege::Write, td::align()},
                  {td::Privilege::Read, td::align()},
                  {td::Privilege::Read, td::broadcast(1u << 0)}}) {}
  void run(const td::TileContext& c) const override {
    const Grid2 y = grid2(c.args[0]), a = grid2(c.args[1]), v = grid2(c.args[2]);
    parallel_tile(
        c, "test::scale_columns", KOKKOS_LAMBDA(int64_t i, int64_t j) { y(i, j) = a(i, j) * v(i, j); });
  }
};

// y[i] = sum_j a[i, j]: each rank sums its tile's columns, the reduce privilege adds the ranks'.
class RowSum final : public td::TaskBody {
 public:
  RowSum() : TaskBody({{td::Privilege::Reduce, td::align()}, {td::Privilege::Read, td::align()}}) {}
  void run(const td::TileContext& c) const override {
    double* y = reinterpret_cast<double*>(c.args[0].data);
    const int64_t ys = c.args[0].stride[0];
    const Grid2 a = grid2(c.args[1]);
    const int64_t n0 = c.tile.extent(0), n1 = c.tile.extent(1);
    Kokkos::parallel_for(
        "test::row_sum", Kokkos::RangePolicy<td::ExecSpace>(0, n0), KOKKOS_LAMBDA(int64_t i) {
          double s = 0;
          for (int64_t j = 0; j < n1; ++j) s += a(i, j);
          y[i * ys] = s;
        });
  }
};

td::Arg arg(const ts::detail::ArrayRef& r, bool written) { return td::Arg{r.store, r.view, written, false}; }

// Records a task whose launch domain is argument 0's view.
void submit(const char* label, std::vector<td::Arg> args, std::shared_ptr<const td::TaskBody> body) {
  td::Task t;
  t.args = std::move(args);
  t.label = label;
  std::vector<td::ArgView> views;
  for (const td::Arg& a : t.args) views.push_back({a.store.get(), a.view});
  body->validate(label, views, 0);
  t.body = std::move(body);
  td::runtime().stats().ops++;
  td::submit(std::move(t));
}

template <class T>
ts::Array<T> from(const std::vector<T>& h, const ts::Shape& shape) {
  return ts::from_host<T>(shape, h);
}

std::vector<double> neighbour_sum(const std::vector<double>& x, int64_t n, int64_t m) {
  std::vector<double> y(n * m, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double s = 0;
      if (i > 0) s += x[(i - 1) * m + j];
      if (i + 1 < n) s += x[(i + 1) * m + j];
      if (j > 0) s += x[i * m + j - 1];
      if (j + 1 < m) s += x[i * m + j + 1];
      y[i * m + j] = s;
    }
  return y;
}

// The row sums of A into a 1-D array tiled like A's rows (copies along the grid axis of A's columns).
ts::Array<double> row_sums(const ts::Array<double>& A) {
  const auto& a = A.impl();
  td::ArrayRef y = td::new_array(ts::DType::Float64, td::dropped(*td::induced(a.store->tiling(), a.view), 1), false);
  td::View over = y.view;  // (n,) seen over (n, m): stretched along dimension 1
  over.ndim = 2;
  over.extent[1] = a.view.extent[1];
  submit("tessera::task[row_sum]", {td::Arg{y.store, over, true, true}, arg(a, false)}, std::make_shared<RowSum>());
  return ts::Array<double>(y);
}

void check_neighbour_sums(int64_t n, int64_t m) {
  const auto hx = host_values(n * m, 3);
  auto x = from(hx, {n, m});
  auto y = ts::zeros<double>({n, m});
  submit("tessera::task[neighbour_sum]", {arg(y.impl(), true), arg(x.impl(), false)}, std::make_shared<NeighbourSum>());
  EXPECT_TRUE(close(y.to_host(), neighbour_sum(hx, n, m)));
}

}  // namespace

// bloat(1) over an aligned array: a halo exchange in place (the store's own ghost cells on one rank).
TEST_F(TesseraTest, BloatReadsNeighboursThroughGhostCells) {
  for (auto [n, m] : {std::pair<int64_t, int64_t>{13, 9}, {5, 4}, {2, 7}, {1, 1}}) {
    SCOPED_TRACE(n);
    check_neighbour_sums(n, m);
  }
  // Twice: the second read of the same store finds its halo valid and exchanges nothing.
  const int64_t n = 11, m = 6;
  const auto hx = host_values(n * m, 5);
  auto x = from(hx, {n, m});
  auto y = ts::zeros<double>({n, m});
  reset_stats_now(rt());
  for (int k = 0; k < 2; ++k)
    submit("tessera::task[neighbour_sum]", {arg(y.impl(), true), arg(x.impl(), false)},
           std::make_shared<NeighbourSum>());
  const ts::Stats s = stats_now(rt());
  EXPECT_TRUE(close(y.to_host(), neighbour_sum(hx, n, m)));
  EXPECT_EQ(s.kernels, 2);
  EXPECT_LE(s.halo_exchanges, 1);
  if (rt().size() > 1) EXPECT_EQ(all_sum(s.halo_exchanges), rt().size());
}

TEST_F(RowGridTest, BloatReadsNeighboursThroughGhostCells) { check_neighbour_sums(10, 7); }
TEST_F(ColumnGridTest, BloatReadsNeighboursThroughGhostCells) { check_neighbour_sums(6, 11); }

// Ghost cells inside the store but outside the view hold the store's values; a view tiled unlike
// the launch is redistributed with its ghosts.
TEST_F(TesseraTest, BloatOfViewsReadsTheStoreAroundThem) {
  const int64_t n = 9, m = 5;
  const auto ha = host_values((n + 2) * m, 7);
  auto a = from(ha, {n + 2, m});
  std::vector<double> want(n * m);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) want[i * m + j] = ha[i * m + j];  // a[i + 1 - 1, j]
  // Aligned: both views of stores of n + 2 rows, offset 1.
  auto b = ts::zeros<double>({n + 2, m});
  auto inner_b = b(slice(1, -1), ts::all);
  submit("tessera::task[row_above]", {arg(inner_b.impl(), true), arg(a(slice(1, -1), ts::all).impl(), false)},
         std::make_shared<RowAbove>());
  EXPECT_TRUE(close(inner_b.to_host(), want));
  // Not aligned: an n-row result over a view of the (n + 2)-row store.
  auto y = ts::zeros<double>({n, m});
  submit("tessera::task[row_above]", {arg(y.impl(), true), arg(a(slice(1, -1), ts::all).impl(), false)},
         std::make_shared<RowAbove>());
  EXPECT_TRUE(close(y.to_host(), want));
  // A stepped view: rows 1, 3, 5, ... of a; the row above row 1 is row -1 of the view: a's row -1 does
  // not exist, so start at view row 1.
  auto rows = a(slice(1, ts::end, 2), ts::all);
  const int64_t k = rows.shape()[0];
  auto z = ts::zeros<double>({k, m});
  submit("tessera::task[row_above]", {arg(z.impl(), true), arg(rows.impl(), false)}, std::make_shared<RowAbove>());
  const auto got = z.to_host();
  for (int64_t i = 1; i < k; ++i)
    for (int64_t j = 0; j < m; ++j) EXPECT_EQ(got[i * m + j], ha[(2 * i - 1) * m + j]) << i << "," << j;
}

// broadcast(dim 0): each rank reads its columns' part of v, whatever its grid row.
TEST_F(TesseraTest, BroadcastReadsTheProjectionOfTheTile) {
  const int64_t n = 7, m = 10;
  const auto ha = host_values(n * m, 1), hv = host_values(m, 2);
  auto a = from(ha, {n, m});
  auto v = from(hv, {m});
  auto y = ts::zeros<double>({n, m});
  const td::View stretched = td::broadcast_view(v.impl(), {n, m});
  submit("tessera::task[scale_columns]",
         {arg(y.impl(), true), arg(a.impl(), false), td::Arg{v.impl().store, stretched, false, false}},
         std::make_shared<ScaleColumns>());
  std::vector<double> want(n * m);
  for (int64_t i = 0; i < n * m; ++i) want[i] = ha[i] * hv[i % m];
  EXPECT_TRUE(close(y.to_host(), want));
}

// reduce: partial row sums of each rank's tile, summed across the grid row.
void check_row_sums(int64_t n, int64_t m) {
  const auto ha = host_values(n * m, 4);
  auto y = row_sums(from(ha, {n, m}));
  std::vector<double> want(n, 0.0);
  for (int64_t i = 0; i < n * m; ++i) want[i / m] += ha[i];
  EXPECT_TRUE(close(y.to_host(), want, 1e-13));
}
TEST_F(TesseraTest, ReducePrivilegeSumsAcrossTheGridRow) { check_row_sums(9, 13); }
TEST_F(ColumnGridTest, ReducePrivilegeSumsAcrossTheGridRow) {
  check_row_sums(5, 17);
  check_row_sums(3, 2);  // ranks with no columns contribute nothing
}

// Kernel arguments of every program launched (a task's body launches none of its own).
std::vector<int>& launched_arguments() {
  static std::vector<int> nargs;
  return nargs;
}
void observe(const td::Program&, int nargs, const td::KernelShape&) { launched_arguments().push_back(nargs); }

// A task is a group of its own between fused groups; temporaries on either side are elided, the
// plan is cached, and fusion off gives the same values.
TEST(Tasks, FuseAroundATaskAndHitThePlanCache) {
  fused_and_unfused([](ts::Runtime& rt) {
    const int64_t n = 8, m = 6;
    const auto ha = host_values(n * m, 9);
    auto A = from(ha, {n, m});
    reset_stats_now(rt);
    launched_arguments().clear();
    td::set_launch_observer(&observe);
    constexpr int kIterations = 4;
    for (int it = 0; it < kIterations; ++it) {
      auto y = row_sums(A * 2.0);                   // multiply (stored: the task reads it) | task
      auto total = ts::sum((y + 1.0) * (y + 1.0));  // add, add, multiply, sum: one kernel reading y
      double want = 0;
      for (int64_t i = 0; i < n; ++i) {
        double s = 0;
        for (int64_t j = 0; j < m; ++j) s += 2.0 * ha[i * m + j];
        want += (s + 1.0) * (s + 1.0);
      }
      EXPECT_NEAR(total.item(), want, 1e-12 * want);
    }
    td::set_launch_observer(nullptr);
    const ts::Stats s = rt.stats();
    if (rt.config().fusion) {
      EXPECT_EQ(s.kernels, 3 * kIterations);
      EXPECT_GE(s.plan_cache_hits, kIterations - 1);
      std::vector<int> want;
      for (int it = 0; it < kIterations; ++it) want.insert(want.end(), {2, 1});  // A, t | y
      EXPECT_EQ(launched_arguments(), want);
    } else {
      EXPECT_EQ(s.kernels, 6 * kIterations);
    }
  });
}

TEST_F(TesseraTest, ConstraintsExplainThemselves) {
  auto y = ts::zeros<double>({6, 4});
  auto x = ts::zeros<double>({5, 4});
  expect_collective_error("align of another shape",
                          [&] {
                            submit("tessera::task[neighbour_sum]", {arg(y.impl(), true), arg(x.impl(), false)},
                                   std::make_shared<NeighbourSum>());
                          },
                          {"neighbour_sum", "bloat(1) of argument 1", "(6, 4)", "(5, 4)"});
  auto v = ts::zeros<double>({6, 4});  // not stretched along dimension 0
  expect_collective_error("broadcast of a view that is not stretched",
                          [&] {
                            submit("tessera::task[scale_columns]",
                                   {arg(y.impl(), true), arg(y.impl(), false), arg(v.impl(), false)},
                                   std::make_shared<ScaleColumns>());
                          },
                          {"broadcast(along dim 0) of argument 2", "moves along it"});
}
