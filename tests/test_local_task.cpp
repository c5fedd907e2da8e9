// ts::local_task: kernels of the user's own on the rank's tiles (src/kernels/local_task.hpp),
// against host references: tiles and their ghost cells, TileInfo, views and arrays tiled unlike
// the first written one, ops recorded before and after the task, and the errors.

#include <cstdint>
#include <vector>

#include "support.hpp"

namespace {

using std::int64_t;
using ts::slice;

// One Jacobi sweep of -lap(u) = f with zero boundary values, on the host: interior points only.
std::vector<double> host_sweep(const std::vector<double>& u, const std::vector<double>& f, int64_t n, int64_t m) {
  std::vector<double> out(u);
  for (int64_t i = 1; i + 1 < n; ++i)
    for (int64_t j = 1; j + 1 < m; ++j)
      out[i * m + j] =
          0.25 * (f[i * m + j] + u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1]);
  return out;
}

// The same on the device: u_new's interior from u's neighbours (ghost cells at -1 and n).
void sweep(ts::Array<double>& u_new, const ts::Array<double>& u, const ts::Array<double>& f) {
  ts::local_task("jacobi", ts::writes(u_new), ts::reads(f), ts::reads(u, 1),
                 [](ts::Tile<double, 2> out, ts::Tile<const double, 2> rhs, ts::Tile<const double, 2> old,
                    const ts::TileInfo& info) {
                   const int64_t n0 = info.hi[0] - info.lo[0], n1 = info.hi[1] - info.lo[1];
                   const int64_t lo0 = info.lo[0], lo1 = info.lo[1], n = info.shape[0], m = info.shape[1];
                   Kokkos::parallel_for(
                       "test::jacobi", Kokkos::MDRangePolicy<ts::ExecSpace, Kokkos::Rank<2>>({0, 0}, {n0, n1}),
                       KOKKOS_LAMBDA(int64_t i, int64_t j) {
                         const int64_t gi = lo0 + i, gj = lo1 + j;
                         if (gi == 0 || gj == 0 || gi == n - 1 || gj == m - 1) {
                           out(i, j) = old(i, j);
                           return;
                         }
                         out(i, j) = 0.25 * (rhs(i, j) + old(i - 1, j) + old(i + 1, j) + old(i, j - 1) + old(i, j + 1));
                       });
                 });
}

void jacobi(int64_t n, int64_t m, int sweeps) {
  auto hu = host_values(n * m, 1), hf = host_values(n * m, 2);
  auto u = ts::from_host<double>({n, m}, hu);
  auto f = ts::from_host<double>({n, m}, hf);
  auto v = ts::empty_like(u);
  for (int k = 0; k < sweeps; ++k) {
    sweep(v, u, f);
    std::swap(u, v);
    hu = host_sweep(hu, hf, n, m);
  }
  EXPECT_TRUE(close(u.to_host(), hu, 1e-13));
}

// The tile's owned box is info's, index 0 its first element; ghosts are at -w..-1 and n..n+w-1;
// every rank calls the function once, also with an empty tile.
void tiles_and_tile_info(const ts::Shape& shape) {
  const int64_t n = shape[0], m = shape[1];
  auto index = ts::zeros<std::int64_t>(shape);
  auto x = ts::zeros<std::int64_t>(shape);
  int calls = 0;
  bool extents_ok = true;
  ts::local_task("index", ts::writes(index), ts::reads(x, 2),
                 [&](ts::Tile<std::int64_t, 2> t, ts::Tile<const std::int64_t, 2> g, const ts::TileInfo& info) {
                   ++calls;
                   const int64_t n0 = info.hi[0] - info.lo[0], n1 = info.hi[1] - info.lo[1];
                   extents_ok = extents_ok && info.shape == ts::Shape{n, m} && info.lo.size() == 2 &&
                                static_cast<int64_t>(t.extent(0)) == n0 && static_cast<int64_t>(t.extent(1)) == n1 &&
                                t.begin(0) == 0;
                   if (n0 * n1 > 0)
                     extents_ok = extents_ok && g.begin(0) == -2 && g.end(0) == n0 + 2 && g.begin(1) == -2 &&
                                  static_cast<int64_t>(g.extent(1)) == n1 + 4;
                   else
                     extents_ok = extents_ok && g.extent(0) * g.extent(1) == 0;
                   const int64_t lo0 = info.lo[0], lo1 = info.lo[1], mm = m;
                   Kokkos::parallel_for(
                       "test::index", Kokkos::MDRangePolicy<ts::ExecSpace, Kokkos::Rank<2>>({0, 0}, {n0, n1}),
                       KOKKOS_LAMBDA(int64_t i, int64_t j) { t(i, j) = (lo0 + i) * mm + lo1 + j; });
                 });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(extents_ok);
  std::vector<std::int64_t> want(n * m);
  for (int64_t i = 0; i < n * m; ++i) want[i] = i;
  EXPECT_EQ(index.to_host(), want);
}

// float32 1-D and int32 3-D tiles; views as arguments; a read of an array tiled unlike the
// written one (redistributed, ghosts included).
void types_views_and_other_tilings() {
  const int64_t n = 23;
  auto hx = test_values<float>(n + 4, 3);
  auto x = ts::from_host<float>({n + 4}, hx);
  auto y = ts::zeros<float>({n});
  // y[i] = x[i + 1] + x[i + 3]: the view x[2:n+2] with a halo of 1 reads x[1:n+3].
  ts::local_task("shifted", ts::writes(y), ts::reads(x(slice(2, n + 2)), 1),
                 [](ts::Tile<float, 1> out, ts::Tile<const float, 1> in, const ts::TileInfo& info) {
                   Kokkos::parallel_for(
                       "test::shifted", Kokkos::RangePolicy<ts::ExecSpace>(0, info.hi[0] - info.lo[0]),
                       KOKKOS_LAMBDA(int64_t i) { out(i) = in(i - 1) + in(i + 1); });
                 });
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = hx[i + 1] + hx[i + 3];
  EXPECT_TRUE(close(y.to_host(), want));

  const ts::Shape s3{4, 5, 6};
  auto hb = test_values<std::int32_t>(4 * 5 * 6, 4);
  auto b = ts::from_host<std::int32_t>(s3, hb);
  auto c = ts::zeros<std::int32_t>({6, 7, 8});
  auto inner = c(slice(1, 5), slice(1, 6), slice(1, 7));  // a view of the same shape as b
  ts::local_task("cube", ts::writes(inner), ts::reads(b),
                 [](ts::Tile<std::int32_t, 3> o, ts::Tile<const std::int32_t, 3> a) {
                   const int64_t n0 = o.extent(0), n1 = o.extent(1), n2 = o.extent(2);
                   Kokkos::parallel_for(
                       "test::cube", Kokkos::MDRangePolicy<ts::ExecSpace, Kokkos::Rank<3>>({0, 0, 0}, {n0, n1, n2}),
                       KOKKOS_LAMBDA(int64_t i, int64_t j, int64_t k) { o(i, j, k) = 3 * a(i, j, k) + 1; });
                 });
  std::vector<std::int32_t> wc(6 * 7 * 8, 0);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t k = 0; k < 6; ++k) wc[((i + 1) * 7 + j + 1) * 8 + k + 1] = 3 * hb[(i * 5 + j) * 6 + k] + 1;
  EXPECT_EQ(c.to_host(), wc);
}

// Ops recorded before the task run first; ops after it see what it wrote, and a shifted read
// after it exchanges the written array's halo again.
void ordered_with_the_ops_around_it() {
  const int64_t n = 17;
  auto hx = host_values(n, 5);
  auto x = ts::from_host<double>({n}, hx);
  for (int step = 0; step < 3; ++step) {
    auto doubled = 2.0 * x;  // pending when the task runs
    ts::local_task("add_one", ts::writes(doubled), [](ts::Tile<double, 1> t) {
      Kokkos::parallel_for(
          "test::add_one", Kokkos::RangePolicy<ts::ExecSpace>(0, t.extent(0)), KOKKOS_LAMBDA(int64_t i) { t(i) += 1; });
    });
    x(slice(1, ts::end)).assign(doubled(slice(0, -1)) - doubled(slice(1, ts::end)));
    std::vector<double> next(hx);
    for (int64_t i = 1; i < n; ++i) next[i] = (2.0 * hx[i - 1] + 1) - (2.0 * hx[i] + 1);
    hx = next;
  }
  EXPECT_TRUE(close(x.to_host(), hx, 1e-13));
}

}  // namespace

// The free functions above hold the tests' kernels: nvcc takes no extended lambda inside a
// GoogleTest body (a private member function).
TEST_F(TesseraTest, JacobiSweepsReadGhostCells) {
  jacobi(13, 9, 5);
  jacobi(3, 17, 3);
  jacobi(2, 2, 2);  // no interior: the sweep copies
}
TEST_F(RowGridTest, JacobiSweepsReadGhostCells) { jacobi(11, 6, 4); }
TEST_F(ColumnGridTest, JacobiSweepsReadGhostCells) { jacobi(6, 11, 4); }

TEST_F(TesseraTest, TilesAndTileInfo) {
  for (const ts::Shape& shape : {ts::Shape{10, 7}, ts::Shape{2, 3}, ts::Shape{1, 1}}) tiles_and_tile_info(shape);
}
TEST_F(TesseraTest, TypesViewsAndOtherTilings) { types_views_and_other_tilings(); }
TEST(LocalTask, OrderedWithTheOpsAroundIt) {
  fused_and_unfused([] { ordered_with_the_ops_around_it(); });
}

TEST_F(TesseraTest, LocalTaskBadInputs) {
  auto u = ts::zeros<double>({6, 4});
  auto v = ts::zeros<double>({6, 5});
  auto f = ts::zeros<float>({6, 4});
  const auto noop2 = [](ts::Tile<double, 2>, ts::Tile<const double, 2>) {};
  expect_collective_error("ndim", [&] { ts::local_task("t", ts::writes(u), [](ts::Tile<double, 1>) {}); },
                          {"local_task \"t\": argument 0 (ts::writes)", "float64 array of shape (6, 4)",
                           "ts::Tile<double, 1>", "ts::Tile<double, 2>"});
  expect_collective_error("dtype", [&] { ts::local_task("t", ts::writes(u), ts::reads(f), noop2); },
                          {"argument 1 (ts::reads) is a float32 array", "ts::Tile<const double, 2>",
                           "take it as ts::Tile<const float, 2>"});
  expect_collective_error(
      "read-only written",
      [&] { ts::local_task("t", ts::writes(u), ts::reads(u * 2.0), [](ts::Tile<double, 2>, ts::Tile<double, 2>) {}); },
      {"argument 1 (ts::reads) is read-only", "could write it", "ts::Tile<const double, 2>"});
  expect_collective_error("shapes", [&] { ts::local_task("t", ts::writes(u), ts::reads(v), noop2); },
                          {"argument 1 (ts::reads) has shape (6, 5)", "argument 0 has shape (6, 4)"});
  expect_collective_error("same array", [&] { ts::local_task("t", ts::writes(u), ts::reads(u, 1), noop2); },
                          {"arguments 0 and 1 name the same array"});
  expect_collective_error("negative halo",
                          [&] { ts::local_task("t", ts::writes(u), ts::reads(v(ts::all, slice(0, 4)), -1), noop2); },
                          {"halo -1 is negative"});
  ts::Array<double> empty;
  expect_collective_error("empty array", [&] { ts::local_task("t", ts::writes(empty), [](ts::Tile<double, 2>) {}); },
                          {"local_task \"t\"", "the array is empty"});
  auto big = ts::zeros<double>({9, 4});
  expect_collective_error("written arrays tiled differently",
                          [&] {
                            ts::local_task("t", ts::writes(u), ts::writes(big(slice(3, 9), ts::all)),
                                           [](ts::Tile<double, 2>, ts::Tile<double, 2>) {});
                          },
                          {"the written arguments 0 and 1 are tiled differently"});
}
