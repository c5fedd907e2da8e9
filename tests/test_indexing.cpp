// Basic indexing beyond boxes: slices with steps, integer indices (negative from the end; the axis
// is dropped), ts::newaxis, in any combination and composed (views of views), read, assigned and
// updated in place with NumPy's evaluate-then-write semantics; 0-d views; the bad inputs.
// The reference resolves every index expression on the host from first principles: the flat index
// of every element of the view in its base array.

#include <cstdint>
#include <optional>
#include <vector>

#include "support.hpp"

namespace {

using std::int64_t;

// One index entry as the test writes it.
struct Entry {
  enum Kind { Range, Integer, NewAxis } kind = Range;
  int64_t start = 0;
  std::optional<int64_t> stop;  // nullopt: ts::end
  int64_t step = 1;
  bool whole = false;

  ts::IndexEntry to_ts() const {
    if (kind == Integer) return ts::IndexEntry(start);
    if (kind == NewAxis) return ts::IndexEntry(ts::newaxis);
    if (whole) return ts::IndexEntry(ts::all);
    return stop ? ts::IndexEntry(ts::slice(start, *stop, step)) : ts::IndexEntry(ts::slice(start, ts::end, step));
  }
};
Entry all_of() { return Entry{Entry::Range, 0, std::nullopt, 1, true}; }
Entry range(int64_t a, std::optional<int64_t> b, int64_t step = 1) { return Entry{Entry::Range, a, b, step}; }
Entry at(int64_t i) { return Entry{Entry::Integer, i}; }
Entry new_axis() { return Entry{Entry::NewAxis}; }

// A view on the host: its shape and, row-major, the flat index of each element in the base.
struct HostView {
  ts::Shape shape;
  std::vector<int64_t> flat;
};

HostView whole(const ts::Shape& shape) {
  HostView v{shape, {}};
  for (int64_t i = 0; i < volume_of(shape); ++i) v.flat.push_back(i);
  return v;
}

// NumPy's basic indexing of `in` (itself a view), or nullopt where tessera must raise.
std::optional<HostView> host_index(const HostView& in, const std::vector<Entry>& entries) {
  struct Axis {
    int64_t from_axis = -1, lo = 0, step = 1, extent = 1;  // from_axis -1: a new axis
  };
  std::vector<Axis> axes;
  std::vector<int64_t> fixed(in.shape.size(), -1);
  std::size_t next = 0;
  for (const Entry& e : entries) {
    if (e.kind == Entry::NewAxis) {
      axes.push_back(Axis{});
      continue;
    }
    if (next >= in.shape.size()) return std::nullopt;  // too many indices
    const int64_t n = in.shape[next];
    if (e.kind == Entry::Integer) {
      const int64_t i = e.start < 0 ? e.start + n : e.start;
      if (i < 0 || i >= n) return std::nullopt;
      fixed[next++] = i;
      continue;
    }
    int64_t lo = 0, hi = n;
    if (!e.whole) {
      if (e.step < 1) return std::nullopt;
      lo = e.start < 0 ? e.start + n : e.start;
      hi = !e.stop ? n : *e.stop < 0 ? *e.stop + n : *e.stop;
      if (lo < 0 || hi > n || lo > hi) return std::nullopt;
    }
    const int64_t step = e.whole ? 1 : e.step;
    axes.push_back(Axis{static_cast<int64_t>(next++), lo, step, (hi - lo + step - 1) / step});
  }
  for (; next < in.shape.size(); ++next) axes.push_back(Axis{static_cast<int64_t>(next), 0, 1, in.shape[next]});
  if (axes.size() > 3) return std::nullopt;
  HostView out;
  for (const Axis& a : axes) out.shape.push_back(a.extent);
  const int64_t count = volume_of(out.shape);
  std::vector<int64_t> x(axes.size(), 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t rest = k;
    for (int d = static_cast<int>(axes.size()) - 1; d >= 0; --d) x[d] = rest % axes[d].extent, rest /= axes[d].extent;
    std::vector<int64_t> coord = fixed;
    for (std::size_t d = 0; d < axes.size(); ++d)
      if (axes[d].from_axis >= 0) coord[axes[d].from_axis] = axes[d].lo + x[d] * axes[d].step;
    int64_t flat = 0;
    for (std::size_t d = 0; d < in.shape.size(); ++d) flat = flat * in.shape[d] + coord[d];
    out.flat.push_back(in.flat[flat]);
  }
  return out;
}

template <class T>
ts::Array<T> ts_index(const ts::Array<T>& a, const std::vector<Entry>& e) {
  switch (e.size()) {
    case 1: return a(e[0].to_ts());
    case 2: return a(e[0].to_ts(), e[1].to_ts());
    case 3: return a(e[0].to_ts(), e[1].to_ts(), e[2].to_ts());
    default: return a(e[0].to_ts(), e[1].to_ts(), e[2].to_ts(), e[3].to_ts());
  }
}

template <class T>
std::vector<T> gather(const std::vector<T>& base, const HostView& v) {
  std::vector<T> out;
  for (int64_t f : v.flat) out.push_back(base[f]);
  return out;
}

const std::vector<ts::Shape> kShapes = {{11}, {7, 5}, {5, 3, 7}, {2, 9}, {9, 1}, {3, 1, 4}};

// Index expressions for an array of this shape: steps, integers, new axes, mixed. Some are
// invalid on purpose (the reference says which).
std::vector<std::vector<Entry>> expressions(const ts::Shape& s) {
  const int64_t n0 = s[0];
  std::vector<std::vector<Entry>> out = {
      {range(0, std::nullopt, 2)},
      {range(1, std::nullopt, 3)},
      {range(-4, -1, 2)},
      {range(1, n0 - 1, 4)},
      {at(0)},
      {at(-1)},
      {at(n0 / 2)},
      {new_axis()},
      {all_of(), new_axis()},
      {range(0, std::nullopt, 2), new_axis()},
      {at(1), new_axis()},
      {range(0, 0, 5)},  // empty
      {at(n0)},          // out of bounds
      {range(0, 2, 0)},  // step 0
  };
  if (s.size() >= 2) {
    const int64_t n1 = s[1];
    out.push_back({all_of(), at(n1 - 1)});
    out.push_back({all_of(), range(0, std::nullopt, 2)});
    out.push_back({range(1, std::nullopt, 2), range(0, std::nullopt, 3)});
    out.push_back({at(-1), range(1, std::nullopt, 2)});
    out.push_back({at(0), at(-1)});  // 0-d
    out.push_back({new_axis(), all_of(), at(0)});
    out.push_back({range(0, std::nullopt, 2), new_axis(), all_of()});
    out.push_back({all_of(), all_of(), new_axis()});
    out.push_back({at(0), at(0), at(0)});  // too many for 2-D, 0-d for 3-D
  }
  if (s.size() >= 3) {
    out.push_back({all_of(), at(1), range(0, std::nullopt, 2)});
    out.push_back({at(-1), all_of(), at(2)});
    out.push_back({range(1, std::nullopt, 2), range(0, std::nullopt, 2), range(1, std::nullopt, 3)});
    out.push_back({all_of(), all_of(), all_of(), new_axis()});  // 4-D: tessera has at most 3
  }
  return out;
}

}  // namespace

TEST_F(TesseraTest, IndexExpressionsMatchNumPy) {
  int checked = 0, rejected = 0;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const auto ha = test_values<double>(volume_of(shape), 1);
    auto a = ts::from_host<double>(shape, ha);
    for (const auto& e : expressions(shape)) {
      SCOPED_TRACE(::testing::Message() << "expression " << checked + rejected);
      const auto hv = host_index(whole(shape), e);
      if (!hv) {
        expect_collective_error("bad index", [&] { auto v = ts_index(a, e); }, {});
        ++rejected;
        continue;
      }
      auto v = ts_index(a, e);
      ASSERT_EQ(v.shape(), hv->shape);
      EXPECT_EQ(v.size(), static_cast<int64_t>(hv->flat.size()));
      EXPECT_TRUE(close(v.to_host(), gather(ha, *hv), 0.0));
      // A computation over the view (a new array aligned with it), and its sum.
      auto w = 2.0 * v + 1.0;
      std::vector<double> want;
      double total = 0;
      for (double x : gather(ha, *hv)) want.push_back(2.0 * x + 1.0), total += 2.0 * x + 1.0;
      EXPECT_TRUE(close(w.to_host(), want));
      EXPECT_NEAR(ts::sum(w).item(), total, 1e-12 * std::max(1.0, std::abs(total)));
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(rejected, 10);
}

TEST_F(TesseraTest, ViewsOfIndexedViewsCompose) {
  const ts::Shape shape{9, 7, 5};
  const auto ha = test_values<int64_t>(volume_of(shape), 2);
  auto a = ts::from_host<int64_t>(shape, ha);
  const std::vector<std::vector<Entry>> first = {
      {range(1, std::nullopt, 2)}, {all_of(), range(0, std::nullopt, 3)}, {at(2)}, {range(0, std::nullopt, 2), at(-2)}};
  const std::vector<std::vector<Entry>> second = {
      {range(0, std::nullopt, 2)}, {at(-1)}, {all_of(), new_axis()}, {range(1, -1), range(0, std::nullopt, 2)}};
  for (std::size_t i = 0; i < first.size(); ++i) {
    for (std::size_t j = 0; j < second.size(); ++j) {
      SCOPED_TRACE(::testing::Message() << "first " << i << ", second " << j);
      const auto hv = host_index(whole(shape), first[i]);
      ASSERT_TRUE(hv);
      const auto hw = host_index(*hv, second[j]);
      auto v = ts_index(a, first[i]);
      if (!hw) {
        EXPECT_THROW(ts_index(v, second[j]), ts::Error);
        continue;
      }
      auto w = ts_index(v, second[j]);
      EXPECT_EQ(w.shape(), hw->shape);
      EXPECT_EQ(w.to_host(), gather(ha, *hw));
    }
  }
}

TEST_F(TesseraTest, AssignAndUpdateThroughIndexedViews) {
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    auto ha = test_values<double>(volume_of(shape), 3);
    auto a = ts::from_host<double>(shape, ha);
    for (const auto& e : expressions(shape)) {
      const auto hv = host_index(whole(shape), e);
      if (!hv) continue;
      auto v = ts_index(a, e);
      // A fresh array of the view's shape (another tiling), then a scalar, then in place.
      const auto src = test_values<double>(volume_of(hv->shape), 4);
      if (hv->shape.empty())
        v.assign(src[0]);  // 0-d: there is no 0-d from_host
      else
        v.assign(ts::from_host<double>(hv->shape, src));
      for (std::size_t k = 0; k < hv->flat.size(); ++k) ha[hv->flat[k]] = src[k];
      v *= 3.0;
      for (int64_t f : hv->flat) ha[f] *= 3.0;
      v -= 0.5;
      for (int64_t f : hv->flat) ha[f] -= 0.5;
      EXPECT_TRUE(close(a.to_host(), ha));
    }
  }
}

// The right-hand side reads other views of the target: it is evaluated before anything is written.
TEST_F(TesseraTest, OverlappingStridedUpdatesEvaluateBeforeWriting) {
  const int64_t n = 17;
  auto h = test_values<double>(n, 5);
  auto a = ts::from_host<double>({n}, h);
  // a[0::2] = a[1::2] * 2 + a[0::2] over the common length, then a[1:] += a[:-1] (shifted overlap)
  const int64_t half = n / 2;
  a(ts::slice(0, 2 * half, 2)).assign(a(ts::slice(1, ts::end, 2)) * 2.0 + a(ts::slice(0, 2 * half, 2)));
  auto before = h;
  for (int64_t k = 0; k < half; ++k) h[2 * k] = before[2 * k + 1] * 2.0 + before[2 * k];
  EXPECT_TRUE(close(a.to_host(), h));
  a(ts::slice(1, ts::end)) += a(ts::slice(0, -1));
  before = h;
  for (int64_t i = 1; i < n; ++i) h[i] = before[i] + before[i - 1];
  EXPECT_TRUE(close(a.to_host(), h));
  // A row written from a column of the same square matrix (they cross at one element).
  const int64_t m = 6;
  auto hm = test_values<double>(m * m, 6);
  auto b = ts::from_host<double>({m, m}, hm);
  b(2).assign(b(ts::all, 2) - 1.0);
  const auto old = hm;
  for (int64_t j = 0; j < m; ++j) hm[2 * m + j] = old[j * m + 2] - 1.0;
  EXPECT_TRUE(close(b.to_host(), hm));
}

TEST_F(TesseraTest, ZeroDimensionalViews) {
  const ts::Shape shape{7, 5};
  auto ha = test_values<double>(35, 7);
  auto a = ts::from_host<double>(shape, ha);
  EXPECT_EQ(a(3, -1).shape(), ts::Shape{});
  EXPECT_EQ(a(3, -1).item(), ha[3 * 5 + 4]);
  a(3, -1).assign(0.5);
  ha[3 * 5 + 4] = 0.5;
  a(-1, 0) += a(0, 0);  // overlap-free: different elements
  ha[6 * 5] += ha[0];
  EXPECT_TRUE(close(a.to_host(), ha, 0.0));
  // A 0-d view as an operand broadcasts like a scalar, and a 0-d result stays on the device.
  auto b = a * a(1, 1);
  std::vector<double> want;
  for (double x : ha) want.push_back(x * ha[6]);
  EXPECT_TRUE(close(b.to_host(), want));
  auto s = a(2, 2) + ts::sum(a);
  double total = 0;
  for (double x : ha) total += x;
  EXPECT_NEAR(s.item(), ha[12] + total, 1e-12 * std::max(1.0, std::abs(total)));
  const auto i = ts::arange<std::int64_t>(9);
  EXPECT_EQ(i(-2).item(), 7);
  // item() needs one element.
  expect_collective_error("item of a row", [&] { (void)a(0).item(); }, {"(5,)", "item"});
}

// A 0-d op that reads a 0-d view of a distributed array (ts::copy(a(2, 1)), a(0, -1) * 2.0) and
// feeds wider ops. The planner recomputed such scalar ops inside their readers, as it does those
// over replicated 0-d arrays, and the readers' launch domains cannot read the 0-d view: fused runs
// threw "internal: argument ... has view [...] but the domain is [...]" (found by the fuzzer).
TEST(ZeroDimensionalViewOps, FeedWiderOpsFusedAndUnfused) {
  const auto ha = test_values<double>(35, 3);
  fused_and_unfused([&] {
    auto a = ts::from_host<double>({7, 5}, ha);
    auto t = ts::copy(a(2, 1));
    auto u = a(0, -1) * 2.0;
    auto b = ts::zeros<double>({3});
    b.assign(t);
    auto c = b + u;
    auto w = ts::where(b > 0.0, t, u) - a(-1, 0);
    EXPECT_TRUE(close(b.to_host(), std::vector<double>(3, ha[2 * 5 + 1]), 0.0));
    EXPECT_TRUE(close(c.to_host(), std::vector<double>(3, ha[2 * 5 + 1] + 2.0 * ha[4]), 0.0));
    const double pick = ha[2 * 5 + 1] > 0.0 ? ha[2 * 5 + 1] : 2.0 * ha[4];
    EXPECT_TRUE(close(w.to_host(), std::vector<double>(3, pick - ha[6 * 5]), 0.0));
    EXPECT_EQ(t.item(), ha[2 * 5 + 1]);
  });
}

// A strided view read beside an array of its length: where the view's induced tiles (the
// elements each rank holds of the base) differ from the array's balanced tiles, the planner
// redistributes it and the comm log says so; where they agree, nothing moves.
class CommLogTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.log = "comm";
    return c;
  }
};

TEST_F(CommLogTest, MisalignedStridedViewIsRedistributed) {
  const int64_t n = 41, step = 3, m = (n - 1 + step - 1) / step;  // fine[1::3] has m elements
  const auto hf = test_values<double>(n, 8), ho = test_values<double>(m, 9);
  auto fine = ts::from_host<double>({n}, hf);
  auto other = ts::from_host<double>({m}, ho);
  // Balanced cuts (the first extent % parts tiles one longer), per rank: does rank r hold the same
  // view elements k (base element 1 + 3 k) as it holds of `other`?
  const int p = rt().size();
  auto cut = [&](int64_t extent, int r) { return r * (extent / p) + std::min<int64_t>(r, extent % p); };
  bool aligned = true;
  for (int r = 0; r < p; ++r) {
    const int64_t lo = std::max<int64_t>(0, (cut(n, r) - 1 + step - 1) / step);
    aligned = aligned && std::min(lo, m) == cut(m, r);
  }
  reset_stats_now(rt());
  ::testing::internal::CaptureStderr();
  auto c = other + fine(ts::slice(1, ts::end, step));
  rt().flush();
  const std::string log = ::testing::internal::GetCapturedStderr();
  std::vector<double> want;
  for (int64_t k = 0; k < m; ++k) want.push_back(ho[k] + hf[1 + step * k]);
  EXPECT_TRUE(close(c.to_host(), want));
  const ts::Stats st = stats_now(rt());
  if (aligned)
    EXPECT_EQ(st.redistributions + st.halo_exchanges, 0);
  else
    EXPECT_GT(all_sum(st.redistributions), 0);
  if (st.redistributions > 0) EXPECT_NE(log.find("redistribution"), std::string::npos) << log;
}

TEST_F(TesseraTest, BadIndexExpressions) {
  auto a = ts::zeros<double>({7, 5});
  expect_collective_error("out of bounds", [&] { auto v = a(7); }, {"index 7", "axis 0", "size 7"});
  expect_collective_error("negative out of bounds", [&] { auto v = a(ts::all, -6); }, {"index -6", "axis 1", "size 5"});
  expect_collective_error("step 0", [&] { auto v = a(ts::slice(0, 5, 0)); }, {"step 0", "at least 1"});
  expect_collective_error("negative step", [&] { auto v = a(ts::slice(5, 0, -1)); }, {"step -1"});
  expect_collective_error("too many", [&] { auto v = a(0, 0, 0); }, {"too many indices", "(7, 5)", "3 were indexed"});
  expect_collective_error("4-D", [&] { auto v = a(ts::newaxis, ts::all, ts::newaxis); }, {"more than 3 dimensions"});
  expect_collective_error("view of a 0-d view", [&] { auto v = a(1, 1)(0); }, {"too many indices", "()"});
  EXPECT_TRUE(close(a.to_host(), std::vector<double>(35, 0.0), 0.0));
}
