// Views: slicing (negative bounds, ts::end, ts::all, views of views), assignment of scalars and
// arrays into views, compound operators, NumPy semantics when the right-hand side reads views that
// overlap the target (the right-hand side is evaluated fully before the write), and handle
// semantics (copies share storage, ts::copy does not, default construction, swap, move).

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "support.hpp"

namespace {

using std::int32_t;
using std::int64_t;

// One dimension of a view as the test writes it; resolved on the host like NumPy resolves it.
struct Sl {
  int64_t start = 0;
  std::optional<int64_t> stop;  // nullopt: ts::end
  bool whole = false;

  ts::Slice to_ts() const {
    if (whole) return ts::all;
    return stop ? ts::slice(start, *stop) : ts::slice(start, ts::end);
  }
  // [lo, hi) in a dimension of extent n, or nullopt when tessera must reject it.
  std::optional<std::pair<int64_t, int64_t>> resolve(int64_t n) const {
    if (whole) return std::make_pair(int64_t{0}, n);
    const int64_t lo = start < 0 ? start + n : start;
    const int64_t hi = !stop ? n : *stop < 0 ? *stop + n : *stop;
    if (lo < 0 || hi > n || lo > hi) return std::nullopt;
    return std::make_pair(lo, hi);
  }
};
const Sl kAll{0, std::nullopt, true};
Sl sl(int64_t a, int64_t b) { return Sl{a, b, false}; }
Sl sl_end(int64_t a) { return Sl{a, std::nullopt, false}; }

template <class T>
ts::Array<T> view_of(const ts::Array<T>& a, const std::vector<Sl>& s) {
  switch (s.size()) {
    case 1: return a(s[0].to_ts());
    case 2: return a(s[0].to_ts(), s[1].to_ts());
    default: return a(s[0].to_ts(), s[1].to_ts(), s[2].to_ts());
  }
}

// The host box a view selects (dimensions not given are whole).
struct HostBox {
  std::vector<int64_t> lo, hi;
  std::vector<int64_t> shape() const {
    std::vector<int64_t> s;
    for (std::size_t d = 0; d < lo.size(); ++d) s.push_back(hi[d] - lo[d]);
    return s;
  }
};
std::optional<HostBox> resolve(const std::vector<int64_t>& shape, const std::vector<Sl>& s) {
  HostBox b;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    auto r = d < s.size() ? s[d].resolve(shape[d]) : kAll.resolve(shape[d]);
    if (!r) return std::nullopt;
    b.lo.push_back(r->first);
    b.hi.push_back(r->second);
  }
  return b;
}

// Slice patterns applied per dimension.
std::vector<Sl> patterns(int64_t n) {
  return {kAll, sl(1, -1), sl_end(-2), sl(0, 1), sl_end(n / 2), sl(-n, n), sl(1, 1), sl(-3, -1), sl_end(0)};
}

const std::vector<ts::Shape> kShapes = {{10}, {7, 5}, {5, 3, 7}, {2, 9}, {1, 5}, {3, 1, 4}};

template <class T>
void expect_matches(const ts::Array<T>& a, const std::vector<T>& want, double rtol = 1e-12) {
  EXPECT_TRUE(close(a.to_host(), want, rtol));
}

}  // namespace

TEST_F(TesseraTest, SlicingMatchesHost) {
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const auto ha = test_values<double>(volume_of(shape), 1);
    auto a = ts::from_host<double>(shape, ha);
    const int nd = static_cast<int>(shape.size());
    const std::size_t np = patterns(1).size();
    int checked = 0;
    for (std::size_t i = 0; i < np; ++i) {
      for (int given = 1; given <= nd; ++given) {  // fewer slices than dimensions: the rest whole
        std::vector<Sl> s;
        for (int d = 0; d < given; ++d) s.push_back(patterns(shape[d])[(i + 2 * d) % np]);
        auto box = resolve(shape, s);
        if (!box) {
          EXPECT_THROW(view_of(a, s), ts::Error);
          continue;
        }
        auto v = view_of(a, s);
        EXPECT_EQ(v.shape(), box->shape());
        EXPECT_EQ(v.ndim(), nd);
        EXPECT_EQ(v.size(), volume_of(box->shape()));
        expect_matches(v, host_box(ha, shape, box->lo, box->hi), 0.0);
        ++checked;
      }
    }
    EXPECT_GT(checked, 0);
  }
}

TEST_F(TesseraTest, NegativeBoundsEndAndAll) {
  const auto ha = test_values<int32_t>(10, 2);
  auto a = ts::from_host<int32_t>({10}, ha);
  auto sub = [&](int64_t lo, int64_t hi) { return std::vector<int32_t>(ha.begin() + lo, ha.begin() + hi); };
  EXPECT_EQ(a(ts::slice(-7, -2)).to_host(), sub(3, 8));
  EXPECT_EQ(a(ts::slice(2, ts::end)).to_host(), sub(2, 10));
  EXPECT_EQ(a(ts::slice(-3, ts::end)).to_host(), sub(7, 10));
  EXPECT_EQ(a(ts::slice(0, -1)).to_host(), sub(0, 9));
  EXPECT_EQ(a(ts::all).to_host(), ha);
  EXPECT_EQ(a(ts::slice(-10, 10)).to_host(), ha);
  EXPECT_TRUE(a(ts::slice(4, -6)).to_host().empty());
  EXPECT_EQ(a(ts::slice(4, -6)).shape(), ts::Shape{0});

  const ts::Shape s2{7, 5};
  const auto hb = test_values<float>(35, 3);
  auto b = ts::from_host<float>(s2, hb);
  EXPECT_EQ(b(ts::all, ts::slice(-3, ts::end)).to_host(), host_box(hb, s2, {0, 2}, {7, 5}));
  EXPECT_EQ(b(ts::slice(1, -1), ts::all).to_host(), host_box(hb, s2, {1, 0}, {6, 5}));
  EXPECT_EQ(b(ts::slice(-4, -1)).to_host(), host_box(hb, s2, {3, 0}, {6, 5}));
  EXPECT_EQ(b(ts::slice(2, 3), ts::slice(1, 2)).shape(), (ts::Shape{1, 1}));

  // Out-of-range bounds are errors (documented: 0 <= start <= stop <= extent after wrapping).
  EXPECT_THROW(a(ts::slice(5, 2)), ts::Error);
  EXPECT_THROW(a(ts::slice(0, 11)), ts::Error);
  EXPECT_THROW(a(ts::slice(-11, ts::end)), ts::Error);
  EXPECT_THROW(a(ts::all, ts::all), ts::Error);
  EXPECT_THROW(b(ts::slice(0, 8), ts::all), ts::Error);
}

TEST_F(TesseraTest, ViewsOfViews) {
  const ts::Shape shape{5, 3, 7};
  auto ha = test_values<double>(105, 4);
  auto a = ts::from_host<double>(shape, ha);
  auto v = a(ts::slice(1, ts::end), ts::all, ts::slice(1, -1));   // [1,5) x [0,3) x [1,6)
  auto w = v(ts::slice(-3, -1), ts::slice(1, ts::end), ts::all);  // [2,4) x [1,3) x [1,6)
  auto x = w(ts::all, ts::slice(0, 1), ts::slice(-2, ts::end));   // [2,4) x [1,2) x [4,6)
  EXPECT_EQ(v.shape(), (ts::Shape{4, 3, 5}));
  EXPECT_EQ(w.shape(), (ts::Shape{2, 2, 5}));
  EXPECT_EQ(x.shape(), (ts::Shape{2, 1, 2}));
  expect_matches(w, host_box(ha, shape, {2, 1, 1}, {4, 3, 6}), 0.0);
  expect_matches(x, host_box(ha, shape, {2, 1, 4}, {4, 2, 6}), 0.0);
  // Writing through a view of a view writes the base array.
  x.assign(-1.0);
  for_each_in_box(shape, {2, 1, 4}, {4, 2, 6}, [&](int64_t f, int64_t) { ha[f] = -1.0; });
  expect_matches(a, ha, 0.0);
  w *= 2.0;
  for_each_in_box(shape, {2, 1, 1}, {4, 3, 6}, [&](int64_t f, int64_t) { ha[f] *= 2.0; });
  expect_matches(a, ha, 0.0);
  expect_matches(v, host_box(ha, shape, {1, 0, 1}, {5, 3, 6}), 0.0);
  // Arithmetic between a view of a view and a same-shaped view elsewhere in the array.
  auto y = a(ts::slice(0, 2), ts::slice(0, 2), ts::slice(0, 5));
  auto hy = host_box(ha, shape, {0, 0, 0}, {2, 2, 5});
  auto hw = host_box(ha, shape, {2, 1, 1}, {4, 3, 6});
  std::vector<double> want;
  for (std::size_t i = 0; i < hy.size(); ++i) want.push_back(hy[i] * 3.0 - hw[i]);
  expect_matches(y * 3.0 - w, want);
}

TEST_F(TesseraTest, AssignScalarsIntoViews) {
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const int64_t n = volume_of(shape);
    auto hd = test_values<double>(n, 5);
    auto hi = test_values<int32_t>(n, 6);
    auto hb = test_values<bool>(n, 7);
    auto d = ts::from_host<double>(shape, hd);
    auto i = ts::from_host<int32_t>(shape, hi);
    auto b = ts::from_host<bool>(shape, hb);
    std::vector<Sl> s = {sl_end(1), shape.size() > 1 && shape[1] >= 2 ? sl_end(-2) : kAll, sl(0, -1)};
    s.resize(shape.size());
    auto box = resolve(shape, s);
    ASSERT_TRUE(box);
    view_of(d, s).assign(2.5);
    view_of(i, s).assign(7.9);  // converted to the array's type: 7
    view_of(b, s).assign(0);
    for_each_in_box(shape, box->lo, box->hi, [&](int64_t f, int64_t) {
      hd[f] = 2.5;
      hi[f] = 7;
      hb[f] = false;
    });
    expect_matches(d, hd, 0.0);
    EXPECT_EQ(i.to_host(), hi);
    EXPECT_EQ(b.to_host(), hb);
    // The whole array through ts::all, and a view with elements on only some ranks.
    std::vector<Sl> row = {sl(0, 1)};
    auto top = view_of(d, row);
    top.assign(-4);
    for_each_in_box(shape, resolve(shape, row)->lo, resolve(shape, row)->hi, [&](int64_t f, int64_t) { hd[f] = -4; });
    expect_matches(d, hd, 0.0);
    d(ts::all).assign(1.25);
    expect_matches(d, std::vector<double>(n, 1.25), 0.0);
  }
}

TEST_F(TesseraTest, AssignArraysIntoViews) {
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const int64_t n = volume_of(shape);
    auto ha = test_values<double>(n, 8);
    auto a = ts::from_host<double>(shape, ha);
    std::vector<Sl> s = {sl_end(1), sl(0, -1), sl(-4, -1)};
    s.resize(shape.size());
    auto box = resolve(shape, s);
    if (!box) continue;
    const auto vshape = box->shape();
    const int64_t vn = volume_of(vshape);
    // A fresh array of the view's shape: its tiling differs from the view's.
    const auto hsrc = test_values<double>(vn, 9);
    view_of(a, s).assign(ts::from_host<double>(vshape, hsrc));
    for_each_in_box(shape, box->lo, box->hi, [&](int64_t f, int64_t k) { ha[f] = hsrc[k]; });
    expect_matches(a, ha, 0.0);
    // Another dtype is cast (int32 -> double), and a 0-d array broadcasts.
    const auto hint = test_values<int32_t>(vn, 10);
    view_of(a, s).assign(ts::from_host<int32_t>(vshape, hint));
    for_each_in_box(shape, box->lo, box->hi, [&](int64_t f, int64_t k) { ha[f] = hint[k]; });
    expect_matches(a, ha, 0.0);
    auto total = ts::sum(ts::from_host<double>({3}, {1.0, 2.0, 0.5}));
    view_of(a, s).assign(total);
    for_each_in_box(shape, box->lo, box->hi, [&](int64_t f, int64_t) { ha[f] = 3.5; });
    expect_matches(a, ha, 0.0);
    // A view of another array with a different offset.
    auto hc = test_values<double>(n, 11);
    auto c = ts::from_host<double>(shape, hc);
    std::vector<Sl> t = {sl(0, -1), sl_end(1), sl(0, 3)};
    t.resize(shape.size());
    auto tbox = resolve(shape, t);
    if (tbox && tbox->shape() == vshape) {
      view_of(a, s).assign(view_of(c, t));
      const auto hct = host_box(hc, shape, tbox->lo, tbox->hi);
      for_each_in_box(shape, box->lo, box->hi, [&](int64_t f, int64_t k) { ha[f] = hct[k]; });
      expect_matches(a, ha, 0.0);
    }
    EXPECT_THROW(view_of(a, s).assign(ts::zeros<double>({n + 1})), ts::Error);
  }
}

TEST_F(TesseraTest, CompoundOperatorsOnViews) {
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const int64_t n = volume_of(shape);
    auto ha = test_values<double>(n, 12);
    auto hb = test_values<double>(n, 13, true);
    auto a = ts::from_host<double>(shape, ha);
    auto b = ts::from_host<double>(shape, hb);
    std::vector<Sl> s = {sl(0, -1), sl_end(1), sl(1, -1)};
    std::vector<Sl> t = {sl_end(1), sl(0, -1), sl(0, -2)};
    s.resize(shape.size());
    t.resize(shape.size());
    auto sb = resolve(shape, s), tb = resolve(shape, t);
    if (!sb || !tb || sb->shape() != tb->shape()) continue;
    const auto lo = sb->lo, hi = sb->hi;
    auto av = view_of(a, s);
    auto bv = view_of(b, t);
    auto apply = [&](auto f) {
      const auto hbt = host_box(hb, shape, tb->lo, tb->hi);
      for_each_in_box(shape, lo, hi, [&](int64_t flat, int64_t k) { f(ha[flat], hbt[k]); });
    };
    av += bv;
    apply([](double& x, double y) { x += y; });
    expect_matches(a, ha);
    av -= 1.5;
    apply([](double& x, double) { x -= 1.5; });
    expect_matches(a, ha);
    av *= bv;
    apply([](double& x, double y) { x *= y; });
    expect_matches(a, ha);
    av /= bv;
    apply([](double& x, double y) { x /= y; });
    expect_matches(a, ha);
    av *= 3;
    apply([](double& x, double) { x *= 3; });
    expect_matches(a, ha);
    av /= 2.0;
    apply([](double& x, double) { x /= 2.0; });
    expect_matches(a, ha);
    // Whole arrays and a fresh array of the view's shape.
    a += b;
    for (int64_t i = 0; i < n; ++i) ha[i] += hb[i];
    expect_matches(a, ha);
    const auto hf = test_values<double>(volume_of(sb->shape()), 14);
    av -= ts::from_host<double>(sb->shape(), hf);
    for_each_in_box(shape, lo, hi, [&](int64_t flat, int64_t k) { ha[flat] -= hf[k]; });
    expect_matches(a, ha);
    // b was only read
    expect_matches(b, hb, 0.0);
  }
}

TEST_F(TesseraTest, OverlappingAssignIsNumPy1D) {
  // 150 is longer than the interpreter's 64-element blocks, so a forward in-place copy would be seen.
  for (int64_t n : {10, 7, 3, 2, 150}) {
    SCOPED_TRACE(n);
    const auto h0 = test_values<double>(n, 15);
    for (int64_t shift : {1, 2, 3, 5, 70}) {
      if (shift >= n) continue;
      // a[shift:] = a[:-shift]
      auto a = ts::from_host<double>({n}, h0);
      a(ts::slice(shift, ts::end)).assign(a(ts::slice(0, -shift)));
      auto want = h0;
      for (int64_t i = shift; i < n; ++i) want[i] = h0[i - shift];
      expect_matches(a, want, 0.0);
      // a[:-shift] = a[shift:]
      auto b = ts::from_host<double>({n}, h0);
      b(ts::slice(0, -shift)).assign(b(ts::slice(shift, ts::end)));
      want = h0;
      for (int64_t i = 0; i + shift < n; ++i) want[i] = h0[i + shift];
      expect_matches(b, want, 0.0);
      // a[:-shift] += a[shift:]
      auto c = ts::from_host<double>({n}, h0);
      c(ts::slice(0, -shift)) += c(ts::slice(shift, ts::end));
      want = h0;
      for (int64_t i = 0; i + shift < n; ++i) want[i] = h0[i] + h0[i + shift];
      expect_matches(c, want);
      // a[shift:] -= a[:-shift], then a[shift:] *= a[:-shift] (values from before each update)
      auto d = ts::from_host<double>({n}, h0);
      d(ts::slice(shift, ts::end)) -= d(ts::slice(0, -shift));
      want = h0;
      for (int64_t i = shift; i < n; ++i) want[i] = h0[i] - h0[i - shift];
      expect_matches(d, want);
      auto before = want;
      d(ts::slice(shift, ts::end)) *= d(ts::slice(0, -shift));
      for (int64_t i = shift; i < n; ++i) want[i] = before[i] * before[i - shift];
      expect_matches(d, want);
      before = want;
      d(ts::slice(0, -shift)) /= d(ts::slice(shift, ts::end)) + 100.0;
      for (int64_t i = 0; i + shift < n; ++i) want[i] = before[i] / (before[i + shift] + 100.0);
      expect_matches(d, want);
    }
  }
  // Right-hand sides that are expressions over overlapping views, and repeated shifts (each reads
  // the values the previous one wrote).
  for (int64_t n : {10, 150}) {
    const auto h0 = test_values<double>(n, 23);
    auto e = ts::from_host<double>({n}, h0);
    e(ts::slice(1, ts::end)) += 2.0 * e(ts::slice(0, -1));
    auto want = h0;
    for (int64_t i = 1; i < n; ++i) want[i] = h0[i] + 2.0 * h0[i - 1];
    expect_matches(e, want);
    auto before = want;
    e(ts::slice(0, -1)).assign(e(ts::slice(1, ts::end)) * 0.5 + e(ts::slice(0, -1)));
    for (int64_t i = 0; i + 1 < n; ++i) want[i] = before[i + 1] * 0.5 + before[i];
    expect_matches(e, want);
    for (int rep = 0; rep < 3; ++rep) {
      e(ts::slice(2, ts::end)).assign(e(ts::slice(0, -2)));
      before = want;
      for (int64_t i = 2; i < n; ++i) want[i] = before[i - 2];
    }
    expect_matches(e, want, 0.0);
    e(ts::slice(1, -1)) -= e(ts::slice(0, -2)) - e(ts::slice(2, ts::end));
    before = want;
    for (int64_t i = 1; i + 1 < n; ++i) want[i] = before[i] - (before[i - 1] - before[i + 1]);
    expect_matches(e, want);
  }
  // int32 too, and an assign through a whole-array target reading itself (no-op) or doubling.
  auto i = ts::arange<int32_t>(10);
  i(ts::slice(1, ts::end)).assign(i(ts::slice(0, -1)));
  EXPECT_EQ(i.to_host(), (std::vector<int32_t>{0, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
  i.assign(i);
  EXPECT_EQ(i.to_host(), (std::vector<int32_t>{0, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
  i += i;
  EXPECT_EQ(i.to_host(), (std::vector<int32_t>{0, 0, 2, 4, 6, 8, 10, 12, 14, 16}));
  // Non-overlapping views of the same array: a[:5] += a[5:]
  auto j = ts::arange<int64_t>(10);
  j(ts::slice(0, 5)) += j(ts::slice(5, ts::end));
  EXPECT_EQ(j.to_host(), (std::vector<int64_t>{5, 7, 9, 11, 13, 5, 6, 7, 8, 9}));
}

TEST_F(TesseraTest, OverlappingUpdatesAreNumPy2D3D) {
  {
    const ts::Shape shape{7, 5};
    const auto h0 = test_values<double>(35, 16);
    auto a = ts::from_host<double>(shape, h0);
    // a[1:, :-1] += a[:-1, 1:]
    a(ts::slice(1, ts::end), ts::slice(0, -1)) += a(ts::slice(0, -1), ts::slice(1, ts::end));
    auto want = h0;
    for (int i = 1; i < 7; ++i)
      for (int j = 0; j < 4; ++j) want[i * 5 + j] = h0[i * 5 + j] + h0[(i - 1) * 5 + j + 1];
    expect_matches(a, want);
    // a[:-2, 1:] = a[2:, :-1]
    const auto h1 = want;
    a(ts::slice(0, -2), ts::slice(1, ts::end)).assign(a(ts::slice(2, ts::end), ts::slice(0, -1)));
    for (int i = 0; i < 5; ++i)
      for (int j = 1; j < 5; ++j) want[i * 5 + j] = h1[(i + 2) * 5 + j - 1];
    expect_matches(a, want);
  }
  {
    // The stencil of the design brief, a few sweeps: center = 0.2 * (center + N + S + E + W).
    for (const ts::Shape& shape : std::vector<ts::Shape>{{7, 5}, {6, 6}, {3, 9}}) {
      const int64_t r = shape[0], c = shape[1];
      auto h = test_values<double>(r * c, 17);
      auto g = ts::from_host<double>(shape, h);
      auto center = g(ts::slice(1, -1), ts::slice(1, -1));
      auto north = g(ts::slice(0, -2), ts::slice(1, -1));
      auto south = g(ts::slice(2, ts::end), ts::slice(1, -1));
      auto west = g(ts::slice(1, -1), ts::slice(0, -2));
      auto east = g(ts::slice(1, -1), ts::slice(2, ts::end));
      for (int sweep = 0; sweep < 3; ++sweep) {
        center.assign(0.2 * (center + north + east + west + south));
        const auto old = h;
        for (int64_t i = 1; i < r - 1; ++i)
          for (int64_t j = 1; j < c - 1; ++j)
            h[i * c + j] = 0.2 * (old[i * c + j] + old[(i - 1) * c + j] + old[i * c + j + 1] + old[i * c + j - 1] +
                                  old[(i + 1) * c + j]);
      }
      expect_matches(g, h);
      // An in-place update reading an overlapping view: center += north
      center += north;
      const auto old = h;
      for (int64_t i = 1; i < r - 1; ++i)
        for (int64_t j = 1; j < c - 1; ++j) h[i * c + j] = old[i * c + j] + old[(i - 1) * c + j];
      expect_matches(g, h);
    }
  }
  {
    const ts::Shape shape{5, 3, 7};
    const auto h0 = test_values<float>(105, 18);
    auto a = ts::from_host<float>(shape, h0);
    // a[1:, :, 2:] -= a[:-1, :, :-2]
    a(ts::slice(1, ts::end), ts::all, ts::slice(2, ts::end)) -= a(ts::slice(0, -1), ts::all, ts::slice(0, -2));
    auto want = h0;
    for (int i = 1; i < 5; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 2; k < 7; ++k)
          want[(i * 3 + j) * 7 + k] = h0[(i * 3 + j) * 7 + k] - h0[((i - 1) * 3 + j) * 7 + k - 2];
    expect_matches(a, want, 1e-6);
  }
}

TEST_F(TesseraTest, HandleSemantics) {
  const auto h = test_values<double>(35, 19);
  auto a = ts::from_host<double>({7, 5}, h);

  // Copying a handle shares storage.
  ts::Array<double> b = a;
  b += 1.0;
  std::vector<double> h1;
  for (double v : h) h1.push_back(v + 1.0);
  expect_matches(a, h1, 0.0);
  b.assign(a * 2.0);
  std::vector<double> h2;
  for (double v : h1) h2.push_back(v * 2.0);
  expect_matches(a, h2, 0.0);

  // ts::copy does not.
  auto c = ts::copy(a);
  c -= 5.0;
  expect_matches(a, h2, 0.0);
  std::vector<double> h3;
  for (double v : h2) h3.push_back(v - 5.0);
  expect_matches(c, h3, 0.0);
  auto cv = ts::copy(a(ts::slice(1, -1), ts::slice(2, ts::end)));
  EXPECT_EQ(cv.shape(), (ts::Shape{5, 3}));
  cv.assign(0.0);
  expect_matches(a, h2, 0.0);
  // A copy of a view can be combined with a fresh array of the same shape.
  const auto hr = test_values<double>(15, 20);
  cv += ts::from_host<double>({5, 3}, hr);
  expect_matches(cv, hr, 0.0);

  // Rebinding a handle does not write into the storage it used to share.
  b = ts::zeros<double>({7, 5});
  expect_matches(a, h2, 0.0);
  expect_matches(b, std::vector<double>(35, 0.0), 0.0);

  // A default-constructed handle is empty until assigned.
  ts::Array<double> e;
  EXPECT_EQ(e.size(), 0);
  EXPECT_EQ(e.ndim(), 0);
  EXPECT_TRUE(e.shape().empty());
  EXPECT_THROW(e.to_host(), ts::Error);
  EXPECT_THROW(ts::sum(e), ts::Error);
  EXPECT_THROW(e + 1.0, ts::Error);
  EXPECT_THROW(a + e, ts::Error);
  EXPECT_THROW(-e, ts::Error);
  EXPECT_THROW(e.astype<float>(), ts::Error);
  EXPECT_THROW(e(ts::all), ts::Error);
  EXPECT_THROW(e += 1.0, ts::Error);
  EXPECT_THROW(e *= a, ts::Error);
  EXPECT_THROW(a -= e, ts::Error);
  EXPECT_THROW(e.assign(2.0), ts::Error);
  EXPECT_THROW(e.assign(a), ts::Error);
  EXPECT_THROW(a.assign(e), ts::Error);
  EXPECT_THROW(ts::copy(e), ts::Error);
  EXPECT_THROW(ts::dot(a, e), ts::Error);
  EXPECT_THROW(e.item(), ts::Error);
  expect_matches(a, h2, 0.0);  // the failed operations wrote nothing
  e = a;
  EXPECT_EQ(e.shape(), (ts::Shape{7, 5}));
  e *= 0.5;
  expect_matches(a, h1, 0.0);

  // std::swap exchanges handles; other handles keep their storage.
  auto x = ts::from_host<double>({7, 5}, h);
  auto y = ts::zeros<double>({7, 5});
  auto x_alias = x;
  std::swap(x, y);
  expect_matches(x, std::vector<double>(35, 0.0), 0.0);
  expect_matches(y, h, 0.0);
  y += 1.0;
  expect_matches(x_alias, h1, 0.0);  // x_alias and y share the original storage
  expect_matches(x, std::vector<double>(35, 0.0), 0.0);

  // Moves transfer the handle.
  auto m = std::move(x_alias);
  m -= 1.0;
  expect_matches(y, h, 0.0);

  // View handles share storage too, and keep it alive after the base handle is gone.
  auto z = ts::from_host<double>({7, 5}, h);
  auto v = z(ts::slice(2, 5), ts::all);
  auto v2 = v;
  v2.assign(-3.0);
  z = ts::Array<double>();
  expect_matches(v, std::vector<double>(15, -3.0), 0.0);
  expect_matches(v(ts::slice(0, 1)), std::vector<double>(5, -3.0), 0.0);
  EXPECT_EQ(z.size(), 0);

  // A view of an expression's result keeps that result alive after the producing handle is gone.
  ts::Array<double> kept;
  {
    auto t = y * 2.0;
    kept = t(ts::slice(1, -1), ts::all);
  }
  auto kept2 = (y + 1.0)(ts::slice(0, 2), ts::slice(-2, ts::end));
  std::vector<double> want_kept, want_kept2;
  for (int i = 5; i < 30; ++i) want_kept.push_back(h[i] * 2.0);
  for (int r = 0; r < 2; ++r)
    for (int k = 3; k < 5; ++k) want_kept2.push_back(h[r * 5 + k] + 1.0);
  expect_matches(kept, want_kept, 0.0);
  expect_matches(kept2, want_kept2, 0.0);
}

TEST_F(TesseraTest, ViewsOfBoolAndIntArrays) {
  const ts::Shape shape{2, 9};
  auto hb = test_values<bool>(18, 21);
  auto hi = test_values<int64_t>(18, 22);
  auto b = ts::from_host<bool>(shape, hb);
  auto i = ts::from_host<int64_t>(shape, hi);
  auto bv = b(ts::all, ts::slice(3, -2));
  auto iv = i(ts::all, ts::slice(1, -4));
  bv.assign(iv > 0);
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 4; ++k) hb[r * 9 + 3 + k] = hi[r * 9 + 1 + k] > 0;
  EXPECT_EQ(b.to_host(), hb);
  iv += bv;  // int64 += bool
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 4; ++k) hi[r * 9 + 1 + k] += hb[r * 9 + 3 + k] ? 1 : 0;
  EXPECT_EQ(i.to_host(), hi);
  i(ts::slice(1, 2), ts::all) *= i(ts::slice(0, 1), ts::all);
  for (int k = 0; k < 9; ++k) hi[9 + k] *= hi[k];
  EXPECT_EQ(i.to_host(), hi);
}
