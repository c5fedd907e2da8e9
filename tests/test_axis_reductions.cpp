// Reductions along an axis (sum prod min max mean argmin argmax count_nonzero, with keepdims and
// negative axes), flat argmin/argmax and count_nonzero, bincount, NumPy's dtypes, ties and NaN, views as
// inputs, results feeding later ops where they are (no redistribution), and the bad inputs.
// The reference reduces row-major host arrays serially.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "support.hpp"

namespace {

using std::int64_t;

enum class Kind { Sum, Prod, Min, Max, Mean, ArgMin, ArgMax, CountNonzero };

// The shape without `axis` (or with it of extent 1).
ts::Shape reduced_shape(const ts::Shape& s, int axis, bool keepdims) {
  ts::Shape out;
  for (int d = 0; d < static_cast<int>(s.size()); ++d)
    if (d != axis)
      out.push_back(s[d]);
    else if (keepdims)
      out.push_back(1);
  return out;
}

// NumPy's reductions along `axis` of a row-major array, in double (exact for the test's values).
template <class T>
std::vector<double> host_reduce(const std::vector<T>& a, const ts::Shape& s, int axis, Kind kind) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s[d];
  for (int d = axis + 1; d < static_cast<int>(s.size()); ++d) inner *= s[d];
  const int64_t n = s[axis];
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double acc = kind == Kind::Prod ? 1 : 0;
      int64_t best = -1;
      for (int64_t k = 0; k < n; ++k) {
        const double x = static_cast<double>(a[(o * n + k) * inner + i]);
        switch (kind) {
          case Kind::Sum:
          case Kind::Mean: acc += x; break;
          case Kind::Prod: acc *= x; break;
          case Kind::CountNonzero: acc += x != 0; break;
          case Kind::Min:
          case Kind::Max:
            if (k == 0 || std::isnan(x) || (!std::isnan(acc) && (kind == Kind::Min ? x < acc : x > acc))) acc = x;
            break;
          default: {  // first occurrence, NaN first
            const double y = best < 0 ? 0 : static_cast<double>(a[(o * n + best) * inner + i]);
            const bool better = best < 0 || (std::isnan(x) && !std::isnan(y)) ||
                                (!std::isnan(x) && !std::isnan(y) && (kind == Kind::ArgMin ? x < y : x > y));
            if (better) best = k;
          }
        }
      }
      if (kind == Kind::Mean) acc /= static_cast<double>(n);
      out.push_back(kind == Kind::ArgMin || kind == Kind::ArgMax ? static_cast<double>(best) : acc);
    }
  return out;
}

template <class R>
std::vector<double> as_double(const ts::Array<R>& a) {
  std::vector<double> out;
  for (R x : a.to_host()) out.push_back(static_cast<double>(x));
  return out;
}

template <class T>
ts::Array<double> run(Kind kind, const ts::Array<T>& a, int axis, bool keepdims) {
  switch (kind) {
    case Kind::Sum: return ts::sum(a, axis, keepdims).template astype<double>();
    case Kind::Prod: return ts::prod(a, axis, keepdims).template astype<double>();
    case Kind::Min: return ts::min(a, axis, keepdims).template astype<double>();
    case Kind::Max: return ts::max(a, axis, keepdims).template astype<double>();
    case Kind::Mean: return ts::mean(a, axis, keepdims).template astype<double>();
    case Kind::ArgMin: return ts::argmin(a, axis, keepdims).template astype<double>();
    case Kind::ArgMax: return ts::argmax(a, axis, keepdims).template astype<double>();
    default: return ts::count_nonzero(a, axis, keepdims).template astype<double>();
  }
}

const std::vector<ts::Shape> kShapes = {{11}, {7, 5}, {5, 3, 7}, {2, 9}, {9, 1}, {3, 1, 4}, {1, 6, 2}};
const Kind kKinds[] = {Kind::Sum,  Kind::Prod,   Kind::Min,    Kind::Max,
                       Kind::Mean, Kind::ArgMin, Kind::ArgMax, Kind::CountNonzero};

template <class T>
void check_all_axes(int salt) {
  for (const auto& shape : kShapes) {
    const int nd = static_cast<int>(shape.size());
    const auto h = test_values<T>(volume_of(shape), salt);
    auto a = ts::from_host<T>(shape, h);
    for (int axis = -nd; axis < nd; ++axis)
      for (bool keepdims : {false, true})
        for (Kind kind : kKinds) {
          SCOPED_TRACE(::testing::Message() << ::testing::PrintToString(shape) << " axis " << axis << " keepdims "
                                            << keepdims << " kind " << static_cast<int>(kind));
          const int ax = axis < 0 ? axis + nd : axis;
          auto r = run(kind, a, axis, keepdims);
          EXPECT_EQ(r.shape(), reduced_shape(shape, ax, keepdims));
          EXPECT_TRUE(close(r.to_host(), host_reduce(h, shape, ax, kind), 1e-12));
        }
  }
}

}  // namespace

TEST_F(TesseraTest, AlongEveryAxisFloat64) { check_all_axes<double>(1); }
TEST_F(TesseraTest, AlongEveryAxisInt32) { check_all_axes<std::int32_t>(2); }
TEST_F(TesseraTest, AlongEveryAxisBool) { check_all_axes<bool>(3); }

// Columns long enough that a GPU cuts them into hundreds of chunks, folded by many threads per
// output (the finish kernel's lanes, jit/codegen.cpp): 3001 x 300 as a column reduction, 70001 x 5
// as a narrow one (the sweep kernel's bands). Several kinds in one window share a kernel; the
// values repeat, so argmin and argmax find ties across chunks.
TEST_F(TesseraTest, TallColumnsFoldedInManyChunks) {
  const Kind kinds[] = {Kind::Sum, Kind::Min, Kind::ArgMax, Kind::ArgMin, Kind::Mean, Kind::CountNonzero};
  for (const ts::Shape& shape : {ts::Shape{3001, 300}, ts::Shape{70001, 5}}) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const auto h = test_values<double>(volume_of(shape), 4);
    auto a = ts::from_host<double>(shape, h);
    std::vector<ts::Array<double>> results;
    for (Kind kind : kinds) results.push_back(run(kind, a, 0, false));
    for (std::size_t k = 0; k < results.size(); ++k) {
      SCOPED_TRACE(::testing::Message() << "kind " << static_cast<int>(kinds[k]));
      EXPECT_TRUE(close(results[k].to_host(), host_reduce(h, shape, 0, kinds[k]), 1e-12));
    }
  }
}

// Rows long enough that a GPU's row kernel loads two columns at a time (pairable_loads in
// jit/codegen.cpp: 256 columns and more per pass), where a row starts on a vector's boundary.
// An odd row length makes every other row start off it, and a view from column 1 shifts them
// all, so each kernel folds some rows in pairs and the others one column at a time. The values
// repeat, so argmin and argmax find ties across pairs.
TEST_F(TesseraTest, LongRowsFoldedInPairsOrOneByOne) {
  const Kind kinds[] = {Kind::Sum, Kind::Max, Kind::ArgMin, Kind::ArgMax, Kind::Mean, Kind::CountNonzero};
  const ts::Shape shape{7, 1001};
  const auto h = test_values<double>(volume_of(shape), 5);
  const auto hi = test_values<std::int32_t>(volume_of(shape), 6);
  auto a = ts::from_host<double>(shape, h);
  auto ai = ts::from_host<std::int32_t>(shape, hi);
  std::vector<double> shifted;  // columns 1.. of every row
  std::vector<std::int32_t> shifted_i;
  for (std::int64_t r = 0; r < shape[0]; ++r)
    for (std::int64_t c = 1; c < shape[1]; ++c) {
      shifted.push_back(h[r * shape[1] + c]);
      shifted_i.push_back(hi[r * shape[1] + c]);
    }
  const ts::Shape view_shape{shape[0], shape[1] - 1};
  for (Kind kind : kinds) {
    SCOPED_TRACE(::testing::Message() << "kind " << static_cast<int>(kind));
    EXPECT_TRUE(close(run(kind, a, 1, false).to_host(), host_reduce(h, shape, 1, kind), 1e-12));
    EXPECT_TRUE(close(run(kind, ai, 1, false).to_host(), host_reduce(hi, shape, 1, kind), 1e-12));
    EXPECT_TRUE(close(run(kind, a(ts::all, ts::slice(1, ts::end)), 1, false).to_host(),
                      host_reduce(shifted, view_shape, 1, kind), 1e-12));
    EXPECT_TRUE(close(run(kind, ai(ts::all, ts::slice(1, ts::end)), 1, true).to_host(),
                      host_reduce(shifted_i, view_shape, 1, kind), 1e-12));
  }
}

TEST_F(TesseraTest, ResultTypesFollowNumPy) {
  auto f = ts::ones<float>({3, 4});
  auto i = ts::ones<std::int32_t>({3, 4});
  auto b = ts::ones<bool>({3, 4});
  static_assert(std::is_same_v<decltype(ts::sum(f, 1)), ts::Array<float>>);
  static_assert(std::is_same_v<decltype(ts::sum(i, 1)), ts::Array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(ts::prod(b, 0)), ts::Array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(ts::mean(i, 0)), ts::Array<double>>);
  static_assert(std::is_same_v<decltype(ts::mean(f, 0)), ts::Array<float>>);
  static_assert(std::is_same_v<decltype(ts::min(i, 1)), ts::Array<std::int32_t>>);
  static_assert(std::is_same_v<decltype(ts::argmax(f, 1)), ts::Array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(ts::count_nonzero(f, 0)), ts::Array<std::int64_t>>);
  EXPECT_EQ(ts::sum(i, 1).to_host(), (std::vector<std::int64_t>{4, 4, 4}));
  EXPECT_EQ(ts::mean(f, 0).to_host(), (std::vector<float>{1, 1, 1, 1}));
}

TEST_F(TesseraTest, FlatArgAndCountNonzero) {
  const ts::Shape shape{5, 3, 7};
  auto h = test_values<double>(105, 4);
  h[17] = -100;  // a unique minimum and two equal maxima: the first wins
  h[40] = 100;
  h[90] = 100;
  auto a = ts::from_host<double>(shape, h);
  EXPECT_EQ(ts::argmin(a).item(), 17);
  EXPECT_EQ(ts::argmax(a).item(), 40);
  EXPECT_EQ(ts::argmin(a).shape(), ts::Shape{});
  int64_t nz = 0;
  for (double x : h) nz += x != 0;
  EXPECT_EQ(ts::count_nonzero(a).item(), nz);
  EXPECT_EQ(ts::count_nonzero(a > 0.0).item(), std::count_if(h.begin(), h.end(), [](double x) { return x > 0; }));
  // Over a strided view: flat indices of the view.
  auto v = a(ts::slice(1, ts::end, 2), ts::all, ts::slice(0, ts::end, 3));
  std::vector<double> hv;
  for (int64_t i = 1; i < 5; i += 2)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 7; k += 3) hv.push_back(h[(i * 3 + j) * 7 + k]);
  EXPECT_EQ(ts::argmax(v).item(), std::max_element(hv.begin(), hv.end()) - hv.begin());
  EXPECT_EQ(ts::argmin(v).item(), std::min_element(hv.begin(), hv.end()) - hv.begin());
}

TEST_F(TesseraTest, NaNAndTiesAsNumPy) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const ts::Shape shape{4, 6};
  std::vector<double> h = {1, nan, 3, nan, 0,  0,  // NaN first: argmin/argmax 1, min/max NaN
                           2, 2,   1, 1,   5,  5,  // ties: the first
                           7, -1,  7, -1,  -1, 7,  //
                           0, 0,   0, 0,   0,  nan};
  auto a = ts::from_host<double>(shape, h);
  for (int axis : {0, 1}) {
    for (Kind kind : {Kind::Min, Kind::Max, Kind::ArgMin, Kind::ArgMax, Kind::Sum}) {
      SCOPED_TRACE(::testing::Message() << "axis " << axis << " kind " << static_cast<int>(kind));
      EXPECT_TRUE(close(run(kind, a, axis, false).to_host(), host_reduce(h, shape, axis, kind)));
    }
  }
  EXPECT_EQ(ts::argmin(a).item(), 1);
  EXPECT_TRUE(std::isnan(ts::max(a).item()));
}

// A reduction along an axis feeding an elementwise op: one reducing kernel, one allreduce over the
// ranks of the grid axis that cut the reduced one (none when it is not cut), and its result is
// read where it is (no redistribution) by the consumer.
TEST_F(TesseraTest, AxisReductionFeedsElementwiseInPlace) {
  const int64_t n = 13, m = 10;
  const auto h = test_values<double>(n * m, 5);
  auto A = ts::from_host<double>({n, m}, h);
  for (int axis : {0, 1}) {
    SCOPED_TRACE(::testing::Message() << "axis " << axis);
    reset_stats_now(rt());
    auto B = axis == 0 ? A - ts::mean(A, 0, true) : A - ts::mean(A, 1)(ts::all, ts::newaxis);
    const ts::Stats st = stats_now(rt());
    const auto means = host_reduce(h, {n, m}, axis, Kind::Mean);
    std::vector<double> want;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) want.push_back(h[i * m + j] - means[axis == 0 ? j : i]);
    EXPECT_TRUE(close(B.to_host(), want));
    EXPECT_EQ(st.kernels, 2);  // the reduction (with its elementwise input) and the subtraction
    EXPECT_EQ(st.redistributions, 0);
    EXPECT_LE(st.allreduces, 1);
  }
  // The elementwise work before the reduction fuses into it.
  reset_stats_now(rt());
  auto s = ts::sum(A * A + 1.0, 1);
  const ts::Stats st = stats_now(rt());
  EXPECT_EQ(st.kernels, 1);
  std::vector<double> want(n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) want[i] += h[i * m + j] * h[i * m + j] + 1.0;
  EXPECT_TRUE(close(s.to_host(), want));
}

// A write into a reduction's result in the same window: where the reduced axis has extent 1
// (keepdims) the result has its operand's shape, so the write could join the reducing group, whose
// results are stored after the kernel and overwrote it (found by the fuzzer; rule 4 now ends the
// group before a write of a store reduced in it, as before a read).
TEST(AxisReductionResults, WrittenInTheSameWindowKeepTheWrite) {
  fused_and_unfused([] {
    auto a = ts::ones<double>({2, 3, 7});
    auto s = ts::sum(ts::sum(a, 0, true), 0, true);  // (1, 3, 7): along an axis of extent 1
    s.assign(-3.0);
    EXPECT_TRUE(close(s.to_host(), std::vector<double>(21, -3.0), 0.0));
    auto m = ts::mean(ts::mean(ts::ones<bool>({2, 3, 7}), 0, true), 0, true);
    m += 0.5;
    EXPECT_TRUE(close(m.to_host(), std::vector<double>(21, 1.5), 0.0));
    auto x = ts::arange<double>(1);                          // (1,)
    auto d = ts::sum(x(ts::all, ts::newaxis) - x, 1, true);  // (1, 1)
    d.assign(ts::full<double>({4, 6}, 2.5)(ts::slice(2, 3), ts::slice(1, 2)));
    EXPECT_TRUE(close(d.to_host(), std::vector<double>{2.5}, 0.0));
  });
}

// k-means' assignment step: distances by broadcasting, summed along the last axis, argmin.
TEST_F(TesseraTest, NearestCentroidByBroadcastAndArgmin) {
  const int64_t n = 29, c = 4, d = 3;
  const auto hp = test_values<double>(n * d, 6), hc = test_values<double>(c * d, 7);
  auto P = ts::from_host<double>({n, d}, hp);
  auto C = ts::from_host<double>({c, d}, hc);
  auto diff = P(ts::all, ts::newaxis, ts::all) - C(ts::newaxis, ts::all, ts::all);
  auto nearest = ts::argmin(ts::sum(diff * diff, 2), 1);
  std::vector<std::int64_t> want;
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = 0;
    double best_d = 0;
    for (int64_t j = 0; j < c; ++j) {
      double dist = 0;
      for (int64_t k = 0; k < d; ++k) dist += (hp[i * d + k] - hc[j * d + k]) * (hp[i * d + k] - hc[j * d + k]);
      if (j == 0 || dist < best_d) best = j, best_d = dist;
    }
    want.push_back(best);
  }
  EXPECT_EQ(nearest.to_host(), want);
}

TEST_F(TesseraTest, BadReductionInputs) {
  auto a = ts::zeros<double>({4, 5});
  expect_collective_error("axis 2", [&] { auto r = ts::sum(a, 2); }, {"axis 2", "out of bounds", "dimension 2"});
  expect_collective_error("axis -3", [&] { auto r = ts::max(a, -3); }, {"axis -3", "dimension 2"});
  auto empty = ts::zeros<double>({3, 0});
  expect_collective_error("min of nothing", [&] { auto r = ts::min(empty, 1); }, {"zero-size", "minimum"});
  expect_collective_error("argmax of nothing", [&] { auto r = ts::argmax(empty); }, {"argmax", "empty sequence"});
  // Along an axis of nothing sum is 0, and reducing the other axis gives an empty result.
  EXPECT_EQ(ts::sum(empty, 1).to_host(), (std::vector<double>{0, 0, 0}));
  EXPECT_TRUE(ts::min(empty, 0).to_host().empty());
  EXPECT_EQ(ts::count_nonzero(empty, 0).shape(), ts::Shape{0});
}

class UnfusedAxisReductionTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.fusion = false;
    return c;
  }
};

TEST_F(UnfusedAxisReductionTest, AlongEveryAxisFloat64) { check_all_axes<double>(8); }

// A reduction along one axis is tiled with copies along the grid axis that cut it (every rank of a
// grid row holds its row sums); a full reduction of it counts each element once, not once per copy.
void reduce_row_sums(std::int64_t n, std::int64_t m) {
  const auto h = host_values(n * m, 13);
  auto a = ts::from_host<double>({n, m}, h);
  std::vector<double> rows(n, 0.0);
  for (std::int64_t i = 0; i < n * m; ++i) rows[i / m] += h[i];
  double total = 0, top = rows[0];
  std::int64_t at = 0, positive = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    total += rows[i];
    positive += rows[i] > 0;
    if (rows[i] > top) top = rows[i], at = i;
  }
  auto r = ts::sum(a, 1);
  EXPECT_NEAR(ts::sum(r).item(), total, 1e-12);
  EXPECT_NEAR(ts::mean(r * 1.0).item(), total / n, 1e-12);
  EXPECT_NEAR(
      ts::vdot(r, r).item(),
      [&] {
        double s = 0;
        for (double x : rows) s += x * x;
        return s;
      }(),
      1e-12);
  EXPECT_NEAR(ts::max(r).item(), top, 1e-12);  // the row sums' order of addition is the device's
  EXPECT_EQ(ts::argmax(r).item(), at);
  EXPECT_EQ(ts::count_nonzero(r > 0.0).item(), positive);
}
TEST_F(TesseraTest, FullReductionOfCopiesCountsEachElementOnce) { reduce_row_sums(9, 7); }
TEST_F(ColumnGridTest, FullReductionOfCopiesCountsEachElementOnce) { reduce_row_sums(5, 11); }

// An integer index fixes a grid coordinate: only the ranks at that coordinate hold the view, and
// a reduction of it along another axis has nothing to compute elsewhere (every rank still agrees).
TEST_F(TesseraTest, AlongAnAxisOfAnIntegerIndexedView) {
  const ts::Shape s{4, 3, 7};
  const auto h = test_values<double>(volume_of(s), 14);
  auto a = ts::from_host<double>(s, h);
  for (int64_t plane : {0, 1, 3}) {
    SCOPED_TRACE(::testing::Message() << "plane " << plane);
    const std::vector<double> slab(h.begin() + plane * 21, h.begin() + (plane + 1) * 21);
    EXPECT_TRUE(close(ts::sum(a(plane), 0).to_host(), host_reduce(slab, {3, 7}, 0, Kind::Sum), 1e-12));
    EXPECT_TRUE(close(ts::max(a(plane), 1).to_host(), host_reduce(slab, {3, 7}, 1, Kind::Max), 0.0));
  }
  const ts::Shape s2{5, 9};
  const auto h2 = test_values<double>(volume_of(s2), 15);
  auto b = ts::from_host<double>(s2, h2);
  std::vector<double> column;
  for (int64_t i = 0; i < 5; ++i) column.push_back(h2[i * 9 + 2]);
  auto r = ts::sum(b(ts::all, 2, ts::newaxis), 0);  // (5, 1) summed over its rows: shape (1,)
  EXPECT_EQ(r.shape(), ts::Shape{1});
  EXPECT_TRUE(close(r.to_host(), host_reduce(column, {5, 1}, 0, Kind::Sum), 1e-12));
  EXPECT_TRUE(close(ts::argmin(b(ts::all, 2, ts::newaxis), 0).astype<double>().to_host(),
                    host_reduce(column, {5, 1}, 0, Kind::ArgMin), 0.0));
}

// Independent reductions of one input (a loop that recomputes a result without reading the old
// one) fuse into one kernel up to its 8 reduction slots; the next one starts another kernel.
TEST_F(TesseraTest, MoreReductionsThanOneKernelHolds) {
  const ts::Shape s{13, 6};
  const auto ha = test_values<double>(volume_of(s), 21);
  auto a = ts::from_host<double>(s, ha);
  std::vector<ts::Array<double>> sums;
  for (int k = 0; k < 11; ++k) sums.push_back(ts::sum(a * static_cast<double>(k + 1), 1));
  ts::Array<double> total = ts::sum(a, 0);
  for (int k = 0; k < 11; ++k) {
    const auto got = sums[static_cast<std::size_t>(k)].to_host();
    ASSERT_EQ(got.size(), 13u);
    for (int64_t i = 0; i < 13; ++i) {
      double want = 0;
      for (int64_t j = 0; j < 6; ++j) want += ha[i * 6 + j] * (k + 1);
      EXPECT_NEAR(got[i], want, 1e-12 * std::max(1.0, std::abs(want))) << k << " " << i;
    }
  }
  const auto t = total.to_host();
  for (int64_t j = 0; j < 6; ++j) {
    double want = 0;
    for (int64_t i = 0; i < 13; ++i) want += ha[i * 6 + j];
    EXPECT_NEAR(t[j], want, 1e-12 * std::max(1.0, std::abs(want)));
  }
}

// NumPy's bincount: the counts and weighted sums of each value, of length max(max(x) + 1,
// minlength), for int64, int32 and bool x, plain, viewed and computed, fused and unfused.
template <class W>
std::vector<double> host_bincount(const std::vector<int64_t>& x, const std::vector<W>* w, int64_t length) {
  std::vector<double> out(static_cast<std::size_t>(length), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i)
    out[static_cast<std::size_t>(x[i])] += w ? static_cast<double>((*w)[i]) : 1.0;
  return out;
}

TEST(Bincount, CountsAndWeightsMatchHost) {
  fused_and_unfused([] {
    const int64_t n = 23;
    std::vector<int64_t> hx;
    for (int64_t i = 0; i < n; ++i) hx.push_back((i * 7 + 3) % 6);  // 0..5
    const auto hw = test_values<double>(n, 31);
    const auto hwi = test_values<std::int32_t>(n, 32);
    auto x = ts::from_host<int64_t>({n}, hx);
    auto w = ts::from_host<double>({n}, hw);
    auto wi = ts::from_host<std::int32_t>({n}, hwi);
    for (int64_t minlength : {0, 4, 6, 11}) {
      SCOPED_TRACE(::testing::Message() << "minlength " << minlength);
      const int64_t length = std::max<int64_t>(minlength, 6);
      const auto counts = host_bincount<double>(hx, nullptr, length);
      auto c = ts::bincount(x, minlength);
      EXPECT_EQ(c.shape(), ts::Shape{length});
      EXPECT_TRUE(close(c.astype<double>().to_host(), counts, 0.0));
      auto s = ts::bincount(x, w, minlength);
      EXPECT_TRUE(close(s.to_host(), host_bincount(hx, &hw, length), 1e-12));
      EXPECT_TRUE(
          close(ts::bincount(x.astype<std::int32_t>(), wi, minlength).to_host(), host_bincount(hx, &hwi, length), 0.0));
    }
    // A strided view of x and a computed x (its labels from a comparison), and bool x.
    std::vector<int64_t> odd;
    std::vector<double> odd_w;
    for (int64_t i = 1; i < n; i += 2) odd.push_back(hx[i]), odd_w.push_back(hw[i] * 2);
    EXPECT_TRUE(close(ts::bincount(x(ts::slice(1, n, 2)), w(ts::slice(1, n, 2)) * 2.0, 3).to_host(),
                      host_bincount(odd, &odd_w, 1 + *std::max_element(odd.begin(), odd.end())), 1e-12));
    std::vector<int64_t> big;
    for (int64_t v : hx) big.push_back(v > 2);
    EXPECT_TRUE(
        close(ts::bincount(x > int64_t{2}).astype<double>().to_host(), host_bincount<double>(big, nullptr, 2), 0.0));
    std::vector<int64_t> shifted;
    for (int64_t v : hx) shifted.push_back((v + 4) % 3);
    EXPECT_TRUE(close(ts::bincount((x + int64_t{4}) % int64_t{3}, w).to_host(), host_bincount(shifted, &hw, 3), 1e-12));
  });
}

TEST_F(TesseraTest, BincountOfNothingIsMinlengthZeros) {
  auto empty = ts::zeros<int64_t>({0});
  EXPECT_EQ(ts::bincount(empty).shape(), ts::Shape{0});
  EXPECT_EQ(ts::bincount(empty, 3).to_host(), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(ts::bincount(empty, ts::zeros<double>({0}), 2).to_host(), (std::vector<double>{0, 0}));
}

TEST_F(TesseraTest, BadBincountInputs) {
  auto x = ts::arange<int64_t>(5);
  expect_collective_error("2-D x", [&] { auto r = ts::bincount(ts::zeros<int64_t>({2, 3})); }, {"1-D", "(2, 3)"});
  expect_collective_error("negative minlength", [&] { auto r = ts::bincount(x, -2); }, {"minlength", "-2"});
  expect_collective_error("weights of another length", [&] { auto r = ts::bincount(x, ts::zeros<double>({4})); },
                          {"weights", "(4,)", "(5,)"});
  expect_collective_error("negative elements", [&] { auto r = ts::bincount(x - int64_t{3}); }, {"negative", "-3"});
}

// bincount of argmin's indices with minlength at least the reduced extent reads nothing back
// (their bounds decide the length); once the indices are written, it reads max(x) again and the
// length follows the new values.
TEST(Bincount, OfArgminIndicesReadsNothingBack) {
  fused_and_unfused([](ts::Runtime& rt) {
    const int64_t n = 17, k = 5;
    const auto hd = test_values<double>(n * k, 33);
    auto d = ts::from_host<double>({n, k}, hd);
    std::vector<int64_t> want;
    for (int64_t i = 0; i < n; ++i)
      want.push_back(std::min_element(hd.begin() + i * k, hd.begin() + (i + 1) * k) - (hd.begin() + i * k));
    auto labels = ts::argmin(d, 1);
    const auto gathers = rt.stats().gathers;
    auto counts = ts::bincount(labels, k);
    auto sums = ts::bincount(labels, d(ts::all, 0), k + 2);
    EXPECT_EQ(rt.stats().gathers, gathers);  // no max(x) read back
    std::vector<double> first_column;
    for (int64_t i = 0; i < n; ++i) first_column.push_back(hd[i * k]);
    EXPECT_TRUE(close(counts.astype<double>().to_host(), host_bincount<double>(want, nullptr, k), 0.0));
    EXPECT_TRUE(close(sums.to_host(), host_bincount(want, &first_column, k + 2), 1e-12));
    // Fewer bins than the indices may reach: the length is read.
    const auto before = rt.stats().gathers;
    EXPECT_EQ(ts::bincount(labels, k - 1).shape(), ts::Shape{1 + *std::max_element(want.begin(), want.end())});
    EXPECT_GT(rt.stats().gathers, before);
    // Written in place, the indices lose their bounds.
    labels(ts::slice(2, 3)).assign(int64_t{k + 3});
    want[2] = k + 3;
    EXPECT_TRUE(
        close(ts::bincount(labels, k).astype<double>().to_host(), host_bincount<double>(want, nullptr, k + 4), 0.0));
  });
}

// v *= max(v, 1, keepdims) / v on a (9, 1) array, with an op in between so that the reduction
// starts a group of its own: the divide runs as the reduction's epilogue, its result tiled like the
// reduction's (grid axis 1 holding copies) while the launch domain fixes grid axis 1; on an axis of
// one coordinate both place every element alike. The executor once refused to write it ("writes
// argument 2 through a view not aligned with its domain"; fuzz seed 60437).
TEST_F(TesseraTest, KeepdimsEpilogueWrittenWhereItsDomainIs) {
  const std::vector<double> hv = test_values<double>(9, 11, true);
  auto v = ts::from_host<double>({9, 1}, hv);
  auto flags = ts::ones<bool>({2, 3, 7});
  v *= ts::max(v, 1, true) / v;
  std::vector<double> want(hv.size());
  for (std::size_t i = 0; i < hv.size(); ++i) want[i] = hv[i] * (hv[i] / hv[i]);
  EXPECT_TRUE(close(v.to_host(), want, 0.0));
  const std::vector<bool> f = flags.to_host();
  EXPECT_EQ(std::count(f.begin(), f.end(), true), 42);
}
