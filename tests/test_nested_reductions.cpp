// Nested reductions (docs/FUSION.md, "Nested reductions"): an outer reduction along an axis of an
// inner reduction's result, both in one kernel. k-means' assignment step (ties to the lowest
// index), other pairs of kinds, keepdims, a mean, integers, a 2-D case; each fused and unfused
// against a serial host reference. Then the structure: the assignment is one kernel that stores
// nothing, and the cases that must not nest (a held intermediate, an operand cut along a reduced
// axis) still get today's two kernels.

#include <cstdint>
#include <vector>

#include <tessera/fusion/backend.hpp>
#include <tessera/program/interpreter.hpp>

#include "support.hpp"

namespace {

using std::int64_t;
namespace td = tessera::detail;

enum class Kind { Sum, Min, Max, Mean, ArgMin, ArgMax };

// A row-major host array of up to 3 dimensions reduced along `axis` (ties and the first index as
// NumPy), in double; the arg kinds give the index.
HostArray<double> reduce_host(const HostArray<double>& a, int axis, Kind kind, bool keepdims = false) {
  std::vector<int64_t> shape = a.shape;
  while (shape.size() < 3) shape.insert(shape.begin(), 1);
  const int ax = axis + 3 - static_cast<int>(a.shape.size());
  int64_t n[3] = {shape[0], shape[1], shape[2]}, m[3] = {shape[0], shape[1], shape[2]};
  m[ax] = 1;
  std::vector<double> out(static_cast<std::size_t>(m[0] * m[1] * m[2]));
  for (int64_t i = 0; i < m[0]; ++i)
    for (int64_t j = 0; j < m[1]; ++j)
      for (int64_t k = 0; k < m[2]; ++k) {
        double acc = 0;
        int64_t at = 0;
        for (int64_t r = 0; r < n[ax]; ++r) {
          int64_t x[3] = {i, j, k};
          x[ax] = r;
          const double v = a.data[(x[0] * n[1] + x[1]) * n[2] + x[2]];
          const bool first = r == 0;
          switch (kind) {
            case Kind::Sum:
            case Kind::Mean: acc += v; break;
            case Kind::Min: acc = first || v < acc ? v : acc; break;
            case Kind::Max: acc = first || v > acc ? v : acc; break;
            case Kind::ArgMin:
              if (first || v < acc) acc = v, at = r;
              break;
            case Kind::ArgMax:
              if (first || v > acc) acc = v, at = r;
              break;
          }
        }
        if (kind == Kind::Mean) acc /= static_cast<double>(n[ax]);
        if (kind == Kind::ArgMin || kind == Kind::ArgMax) acc = static_cast<double>(at);
        out[(i * m[1] + j) * m[2] + k] = acc;
      }
  std::vector<int64_t> result;
  for (int d = 0; d < static_cast<int>(a.shape.size()); ++d)
    if (d != axis || keepdims) result.push_back(d == axis ? 1 : a.shape[d]);
  return {result, out};
}

// E[i, j, l] = f(A[i, l], B[j, l]) on the host.
template <class T, class F>
HostArray<double> outer_host(const std::vector<T>& a, const std::vector<T>& b, int64_t n, int64_t k, int64_t d, F f) {
  std::vector<double> e;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j)
      for (int64_t l = 0; l < d; ++l) e.push_back(static_cast<double>(f(a[i * d + l], b[j * d + l])));
  return {{n, k, d}, e};
}

template <class T>
std::vector<T> as_vector(const HostArray<double>& h) {
  std::vector<T> out;
  for (double v : h.data) out.push_back(static_cast<T>(v));
  return out;
}

// argmin(sum(square(P[:, None, :] - C[None, :, :]), 2), 1) with C's last row a copy of its first:
// every point's distances to them tie, and the lower index wins. The host reference computes in
// T as the kernels do (the differences and squares in T, the sum in double, rounded to T).
template <class T>
void check_kmeans(int64_t n, int64_t k, int64_t d) {
  const std::vector<T> hp = test_values<T>(n * d, 3);
  std::vector<T> hc = test_values<T>(k * d, 8);
  for (int64_t l = 0; l < d; ++l) hc[(k - 1) * d + l] = hc[l];
  std::vector<int64_t> want;
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = 0;
    T best_d = 0;
    for (int64_t j = 0; j < k; ++j) {
      double acc = 0;
      for (int64_t l = 0; l < d; ++l) {
        const T e = static_cast<T>(hp[i * d + l] - hc[j * d + l]);
        acc += static_cast<double>(static_cast<T>(e * e));
      }
      const T dist = static_cast<T>(acc);
      if (j == 0 || dist < best_d) best = j, best_d = dist;
    }
    want.push_back(best);
  }
  fused_and_unfused([&] {
    auto P = ts::from_host<T>({n, d}, hp);
    auto C = ts::from_host<T>({k, d}, hc);
    auto nearest =
        ts::argmin(ts::sum(ts::square(P(ts::all, ts::newaxis, ts::all) - C(ts::newaxis, ts::all, ts::all)), 2), 1);
    EXPECT_EQ(nearest.shape(), ts::Shape{n});
    EXPECT_EQ(nearest.to_host(), want);
  });
}

TEST(NestedReductions, KMeansAssignmentFloat64) {
  check_kmeans<double>(37, 4, 3);
  check_kmeans<double>(5, 16, 8);
}

TEST(NestedReductions, KMeansAssignmentFloat32) { check_kmeans<float>(37, 5, 2); }

const int64_t kN = 23, kK = 5, kD = 4;

// A (kN, kD) and B (kK, kD) as arrays and on the host.
struct Operands {
  std::vector<double> ha = test_values<double>(kN * kD, 1), hb = test_values<double>(kK * kD, 2);
  ts::Array<double> a = ts::from_host<double>({kN, kD}, ha), b = ts::from_host<double>({kK, kD}, hb);
  ts::Array<double> product() const { return a(ts::all, ts::newaxis, ts::all) * b(ts::newaxis, ts::all, ts::all); }
  HostArray<double> host_product() const {
    return outer_host(ha, hb, kN, kK, kD, [](double x, double y) { return x * y; });
  }
};

TEST(NestedReductions, SumOfMax) {
  fused_and_unfused([] {
    Operands o;
    auto got = ts::sum(ts::max(o.product(), 2), 1);
    const auto want = reduce_host(reduce_host(o.host_product(), 2, Kind::Max), 1, Kind::Sum);
    EXPECT_EQ(got.shape(), ts::Shape(want.shape));
    EXPECT_TRUE(close(got.to_host(), want.data));
  });
}

TEST(NestedReductions, MinOfSumWithKeepdims) {
  fused_and_unfused([] {
    Operands o;
    const auto e = o.host_product();
    auto inner_kept = ts::min(ts::sum(o.product(), 2, true), 1);  // (n, 1, 1) -> (n, 1)
    const auto want1 = reduce_host(reduce_host(e, 2, Kind::Sum, true), 1, Kind::Min);
    EXPECT_EQ(inner_kept.shape(), ts::Shape(want1.shape));
    EXPECT_TRUE(close(inner_kept.to_host(), want1.data));
    auto outer_kept = ts::min(ts::sum(o.product(), 2), 1, true);  // (n, k) -> (n, 1)
    const auto want2 = reduce_host(reduce_host(e, 2, Kind::Sum), 1, Kind::Min, true);
    EXPECT_EQ(outer_kept.shape(), ts::Shape(want2.shape));
    EXPECT_TRUE(close(outer_kept.to_host(), want2.data));
  });
}

// The inner reduction along the middle axis and the outer along the last: the inner dimension is
// not the kernel's innermost one.
TEST(NestedReductions, MeanOfMeanAndArgmaxOfSumAlongTheFirstAxis) {
  fused_and_unfused([] {
    Operands o;
    const auto e = o.host_product();
    auto means = ts::mean(ts::mean(o.product(), 1), 1);  // (n, k, d) -> (n, d) -> (n,)
    const auto want = reduce_host(reduce_host(e, 1, Kind::Mean), 1, Kind::Mean);
    EXPECT_TRUE(close(means.to_host(), want.data));
    auto best = ts::argmax(ts::sum(o.product(), 0), 1);  // (k, d) -> (k,)
    EXPECT_EQ(best.to_host(), as_vector<int64_t>(reduce_host(reduce_host(e, 0, Kind::Sum), 1, Kind::ArgMax)));
  });
}

TEST(NestedReductions, IntegersAndTwoDimensions) {
  fused_and_unfused([] {
    const auto hi = test_values<int64_t>(kN * kD, 4), hj = test_values<int64_t>(kK * kD, 5);
    auto I = ts::from_host<int64_t>({kN, kD}, hi);
    auto J = ts::from_host<int64_t>({kK, kD}, hj);
    auto got = ts::max(ts::sum(I(ts::all, ts::newaxis, ts::all) - J(ts::newaxis, ts::all, ts::all), 2), 1);
    const auto e = outer_host(hi, hj, kN, kK, kD, [](int64_t x, int64_t y) { return x - y; });
    EXPECT_EQ(got.to_host(), as_vector<int64_t>(reduce_host(reduce_host(e, 2, Kind::Sum), 1, Kind::Max)));
    // A matrix: the largest row sum, as a (1,) array (the reduced axes of length 1 kept).
    const auto ha = test_values<double>(kN * kD, 6);
    auto A = ts::from_host<double>({kN, kD}, ha);
    auto top = ts::max(ts::sum(A * 2.0, 1, true), 0);
    HostArray<double> twice{{kN, kD}, ha};
    for (double& v : twice.data) v *= 2.0;
    const auto want = reduce_host(reduce_host(twice, 1, Kind::Sum, true), 0, Kind::Max);
    EXPECT_EQ(top.shape(), ts::Shape(want.shape));
    EXPECT_TRUE(close(top.to_host(), want.data));
  });
}

// Axes of length 0: a sum over no coordinates is 0 (so every centroid ties and the first wins),
// and a sum over no centroids is 0 too.
TEST(NestedReductions, EmptyAxes) {
  fused_and_unfused([] {
    auto P = ts::zeros<double>({7, 0}), C = ts::zeros<double>({3, 0});
    auto nearest =
        ts::argmin(ts::sum(ts::square(P(ts::all, ts::newaxis, ts::all) - C(ts::newaxis, ts::all, ts::all)), 2), 1);
    EXPECT_EQ(nearest.to_host(), std::vector<int64_t>(7, 0));
    auto A = ts::from_host<double>({7, 2}, test_values<double>(14, 1));
    auto none = ts::zeros<double>({0, 2});
    auto sums = ts::sum(ts::max(A(ts::all, ts::newaxis, ts::all) * none(ts::newaxis, ts::all, ts::all), 2), 1);
    EXPECT_EQ(sums.to_host(), std::vector<double>(7, 0.0));
  });
}

// ---- Structure ----

bool stores_anything(const td::Program& p) {
  for (const td::Instr& in : p.code)
    if (in.op == td::OpCode::Store) return true;
  return false;
}

class NestedStructureTest : public TesseraTest {};

// The assignment step in steady state: one kernel, the nested one (the sum along the points'
// coordinates inside the argmin over centroids), storing nothing: neither the (n, k, d)
// differences nor the (n, k) distances exist anywhere, and nothing is allocated.
TEST_F(NestedStructureTest, KMeansAssignmentIsOneKernelThatStoresNothing) {
  const int64_t n = 1000, k = 16, d = 8;
  const auto hp = host_values(n * d, 21), hc = host_values(k * d, 22);
  auto P = ts::from_host<double>({n, d}, hp);
  auto C = ts::from_host<double>({k, d}, hc);
  const auto assign = [&] {
    return ts::argmin(ts::sum(ts::square(P(ts::all, ts::newaxis, ts::all) - C(ts::newaxis, ts::all, ts::all)), 2), 1);
  };
  {
    auto warm = assign();  // plans the window; its result's buffer goes back to the pool
    rt().flush();
  }
  const ts::Stats before = rt().stats();
  launched_programs().clear();
  td::set_launch_observer(&record_launch);
  auto nearest = assign();
  rt().flush();
  td::set_launch_observer(nullptr);
  const ts::Stats after = rt().stats();
  EXPECT_EQ(after.kernels - before.kernels, 1);
  EXPECT_EQ(after.stores_allocated - before.stores_allocated, 0);
  ASSERT_EQ(launched_programs().size(), 1u);
  const td::Program& p = launched_programs().front();
  EXPECT_EQ(p.nested.dim, 2);  // the sum along d
  EXPECT_EQ(p.reduce_dim, 1);  // the argmin along k
  EXPECT_EQ(p.nested.kind, td::ReduceKind::Sum);
  ASSERT_EQ(p.reduce_kinds.size(), 1u);
  EXPECT_EQ(p.reduce_kinds.front(), td::ReduceKind::ArgMin);
  EXPECT_FALSE(stores_anything(p)) << p.describe();
  std::vector<int64_t> want;
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = 0;
    double best_d = 0;
    for (int64_t j = 0; j < k; ++j) {
      double dist = 0;
      for (int64_t l = 0; l < d; ++l) dist += (hp[i * d + l] - hc[j * d + l]) * (hp[i * d + l] - hc[j * d + l]);
      if (j == 0 || dist < best_d) best = j, best_d = dist;
    }
    want.push_back(best);
  }
  EXPECT_EQ(nearest.to_host(), want);
}

// Not nested: the distances are held by the user (so they are stored), or the summed array is a
// stored one cut along the reduced axis k (at np 4: nesting would gather it; the inner kernel
// reduces it where it is, as before). The results are the same either way.
TEST_F(NestedStructureTest, HeldIntermediatesAndOperandsCutAlongAReducedAxisAreNotNested) {
  const int64_t n = 19, k = 6, d = 5;
  Operands o;
  const auto e = o.host_product();
  rt().flush();
  ts::Stats before = rt().stats();
  auto d2 = ts::sum(o.product(), 2);
  auto held = ts::argmin(d2, 1);
  rt().flush();
  EXPECT_EQ(rt().stats().kernels - before.kernels, 2);
  EXPECT_EQ(held.to_host(), as_vector<int64_t>(reduce_host(reduce_host(e, 2, Kind::Sum), 1, Kind::ArgMin)));

  const auto hx = test_values<double>(n * k * d, 9);
  auto X = ts::from_host<double>({n, k, d}, hx);
  rt().flush();
  before = rt().stats();
  auto top = ts::max(ts::sum(X, 2), 1);
  rt().flush();
  const bool k_cut = td::runtime().grid(3).dim(1) > 1;
  EXPECT_EQ(rt().stats().kernels - before.kernels, k_cut ? 2 : 1);
  const auto want = reduce_host(reduce_host(HostArray<double>{{n, k, d}, hx}, 2, Kind::Sum), 1, Kind::Max);
  EXPECT_TRUE(close(top.to_host(), want.data));
}

// k-means' assignment and distance together: argmin and min of the same distances, read by
// nothing else, both nest into the one kernel (two outer slots, the distances never stored);
// with another op between them, or the distances read elsewhere, they do not, and every result
// is the same either way. Fused and unfused.
TEST(NestedReductions, ArgminAndMinOfOneSumAreOneKernel) {
  const int64_t n = 29, k = 6, d = 3;
  const auto hp = host_values(n * d, 31), hc = host_values(k * d, 32);
  std::vector<int64_t> want_label;
  std::vector<double> want_min, want_max;
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = 0;
    double lo = 0, hi = 0;
    for (int64_t j = 0; j < k; ++j) {
      double dist = 0;
      for (int64_t l = 0; l < d; ++l) dist += (hp[i * d + l] - hc[j * d + l]) * (hp[i * d + l] - hc[j * d + l]);
      if (j == 0 || dist < lo) best = j, lo = dist;
      if (j == 0 || dist > hi) hi = dist;
    }
    want_label.push_back(best);
    want_min.push_back(lo);
    want_max.push_back(hi);
  }
  fused_and_unfused([&](ts::Runtime& rt) {
    auto P = ts::from_host<double>({n, d}, hp);
    auto C = ts::from_host<double>({k, d}, hc);
    const auto distances = [&] {
      return ts::sum(ts::square(P(ts::all, ts::newaxis, ts::all) - C(ts::newaxis, ts::all, ts::all)), 2);
    };
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(::testing::Message() << "variant " << variant);
      rt.flush();
      const ts::Stats before = rt.stats();
      ts::Array<std::int64_t> label;
      ts::Array<double> lo, hi, other;
      {
        auto d2 = distances();
        label = ts::argmin(d2, 1);
        if (variant == 1) other = ts::exp(P(ts::all, 0));  // an op between the two outer reductions
        lo = ts::min(d2, 1);
        hi = ts::max(d2, 1);
        if (variant == 2) other = ts::sum(d2, 0);  // a reader of the distances along the other axis
      }
      rt.flush();
      if (rt.config().fusion && variant == 0) EXPECT_EQ(rt.stats().kernels - before.kernels, 1);
      if (rt.config().fusion && variant > 0) EXPECT_GE(rt.stats().kernels - before.kernels, 2);
      EXPECT_EQ(label.to_host(), want_label);
      EXPECT_TRUE(close(lo.to_host(), want_min, 1e-12));
      EXPECT_TRUE(close(hi.to_host(), want_max, 1e-12));
    }
  });
}

}  // namespace
