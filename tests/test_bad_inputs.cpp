// Bad inputs (docs/RELIABILITY.md lists every one with its test): each either raises
// tessera::Error on every rank with the same message naming the offending values — after which
// every rank is still in step and nothing already computed was lost — or, where NumPy computes a
// result (zero-size arrays, NaN and Inf, more ranks than elements), gives NumPy's result,
// compared with a serial host reference.

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tessera/fusion/runtime_state.hpp>

#include "support.hpp"

namespace {

using ts::end;
using ts::slice;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

int my_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Elementwise comparison that treats NaN as equal to NaN and infinities exactly.
::testing::AssertionResult same_values(const std::vector<double>& got, const std::vector<double>& want) {
  return close(got, want, 0.0);
}

}  // namespace

// ---- Shapes ----

TEST_F(TesseraTest, ComparisonAndMathShapeMismatch) {
  auto a = ts::arange<double>(10);
  auto b = ts::ones<double>({9});
  auto u = ts::zeros<double>({3, 4});
  expect_collective_error("a < b", [&] { auto c = a < b; }, {"less", "(10,)", "(9,)"});
  expect_collective_error("a == u", [&] { auto c = a == u; }, {"equal", "(10,)", "(3, 4)"});
  expect_collective_error("pow", [&] { auto c = ts::pow(a, b); }, {"power", "(10,)", "(9,)"});
  expect_collective_error("maximum", [&] { auto c = ts::maximum(u, u(slice(0, 2), ts::all)); },
                          {"maximum", "(3, 4)", "(2, 4)"});
  // Nothing recorded before the errors was lost.
  std::vector<double> want;
  for (int i = 0; i < 10; ++i) want.push_back(i);
  EXPECT_TRUE(close(a.to_host(), want));
}

// ---- Slices ----

TEST_F(TesseraTest, EmptySlicesAreValidViews) {
  const std::int64_t n = 9;
  auto a = ts::arange<double>(n);
  for (auto s : {slice(3, 3), slice(-2, -2), slice(n, end), slice(0, 0)}) {
    auto v = a(s);
    EXPECT_EQ(v.size(), 0);
    EXPECT_TRUE(v.to_host().empty());
    v.assign(5.0);
    v += 1.0;
    EXPECT_EQ(ts::sum(v * 2.0).item(), 0.0);
  }
  std::vector<double> want;
  for (std::int64_t i = 0; i < n; ++i) want.push_back(static_cast<double>(i));
  EXPECT_TRUE(close(a.to_host(), want));
}

// ---- Zero-size arrays ----

TEST_F(TesseraTest, ZeroSizeArraysBehaveAsNumPy) {
  for (const ts::Shape& shape : {ts::Shape{0}, ts::Shape{3, 0}, ts::Shape{0, 4, 2}, ts::Shape{2, 0, 5}}) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    auto z = ts::zeros<double>(shape);
    auto o = ts::ones<double>(shape);
    auto r = ts::random<double>(shape, 3);
    auto c = (z + 1.0) * o - r;
    EXPECT_EQ(c.shape(), shape);
    EXPECT_EQ(c.size(), 0);
    EXPECT_TRUE(c.to_host().empty());
    EXPECT_EQ(ts::sum(c).item(), 0.0);            // np.sum of empty: 0
    EXPECT_EQ(ts::prod(c).item(), 1.0);           // np.prod of empty: 1
    EXPECT_TRUE(std::isnan(ts::mean(c).item()));  // np.mean of empty: nan (RuntimeWarning)
    EXPECT_EQ(ts::norm(c).item(), 0.0);           // np.linalg.norm of empty: 0
    EXPECT_EQ(ts::vdot(c, o).item(), 0.0);        // np.vdot of empty: 0
    EXPECT_EQ(ts::sum(c > 0.0).item(), 0);        // count of an empty mask
    c.assign(2.0);
    c += o;
    auto i = c.astype<std::int32_t>();
    EXPECT_TRUE(i.to_host().empty());
    auto h = ts::from_host<double>(shape, std::vector<double>{});
    EXPECT_TRUE(ts::copy(h).to_host().empty());
  }
  EXPECT_TRUE(ts::arange<std::int64_t>(0).to_host().empty());
  EXPECT_TRUE(ts::linspace<double>(0.0, 1.0, 0).to_host().empty());
  EXPECT_EQ(ts::linspace<double>(2.0, 5.0, 1).to_host(), std::vector<double>{2.0});  // NumPy: [lo]
}

TEST_F(TesseraTest, StencilOnGridWithEmptyInterior) {
  // 2 x 5: the interior [1:-1, 1:-1] has no rows; every shifted view is empty too.
  const auto h = host_values(10, 4);
  auto grid = ts::from_host<double>({2, 5}, h);
  auto in = slice(1, -1);
  auto center = grid(in, in);
  EXPECT_EQ(center.shape(), (ts::Shape{0, 3}));
  for (int step = 0; step < 3; ++step)
    center.assign(0.2 * (center + grid(slice(0, -2), in) + grid(slice(2, end), in) + grid(in, slice(0, -2)) +
                         grid(in, slice(2, end))));
  EXPECT_TRUE(close(grid.to_host(), h));
  EXPECT_EQ(ts::norm(center).item(), 0.0);
}

// ---- More ranks than elements (some ranks own nothing) ----

TEST_F(TesseraTest, MoreRanksThanElements1D) {
  for (std::int64_t n : {1, 2, 3}) {
    SCOPED_TRACE(n);
    const auto h = host_values(static_cast<std::size_t>(n), 9);
    auto a = ts::from_host<double>({n}, h);
    auto b = a * 2.0 + 1.0;
    std::vector<double> want_b;
    double total = 0.0, maximum = -kInf;
    for (double x : h) want_b.push_back(x * 2.0 + 1.0), total += x, maximum = std::max(maximum, x);
    EXPECT_TRUE(close(b.to_host(), want_b));
    EXPECT_NEAR(ts::sum(a).item(), total, 1e-14);
    EXPECT_EQ(ts::max(a).item(), maximum);
    if (n >= 2) {
      // Shifted views: halos from neighbours that may own nothing.
      auto d = a(slice(1, end)) - a(slice(0, -1));
      std::vector<double> want_d;
      for (std::int64_t i = 1; i < n; ++i) want_d.push_back(h[i] - h[i - 1]);
      EXPECT_TRUE(close(d.to_host(), want_d));
      // An in-place update reading an overlapping view of its target.
      auto c = ts::copy(a);
      c(slice(1, end)).assign(c(slice(0, -1)) + c(slice(1, end)));
      std::vector<double> want_c = h;
      for (std::int64_t i = n - 1; i >= 1; --i) want_c[i] = h[i - 1] + h[i];
      EXPECT_TRUE(close(c.to_host(), want_c));
    }
    EXPECT_EQ(a(slice(0, 1)).item(), h[0]);
  }
}

TEST_F(TesseraTest, MoreRanksThanElements2D) {
  for (const ts::Shape& shape : {ts::Shape{1, 3}, ts::Shape{3, 1}, ts::Shape{2, 2}, ts::Shape{3, 3}}) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n0 = shape[0], n1 = shape[1];
    const auto h = host_values(static_cast<std::size_t>(n0 * n1), 11);
    auto u = ts::from_host<double>(shape, h);
    // Transpose-free "unaligned" operand: the first row against the last row (a redistribution).
    auto rows = u(slice(0, 1), ts::all) + u(slice(n0 - 1, n0), ts::all);
    std::vector<double> want_rows;
    for (std::int64_t j = 0; j < n1; ++j) want_rows.push_back(h[j] + h[(n0 - 1) * n1 + j]);
    EXPECT_TRUE(close(rows.to_host(), want_rows));
    std::vector<double> now = h;  // u's values
    if (n0 >= 3 && n1 >= 3) {
      auto in = slice(1, -1);
      auto center = u(in, in);
      center.assign(0.2 *
                    (center + u(slice(0, -2), in) + u(slice(2, end), in) + u(in, slice(0, -2)) + u(in, slice(2, end))));
      std::vector<double> want = h;
      for (std::int64_t i = 1; i + 1 < n0; ++i)
        for (std::int64_t j = 1; j + 1 < n1; ++j)
          want[i * n1 + j] =
              0.2 * (h[i * n1 + j] + h[(i - 1) * n1 + j] + h[(i + 1) * n1 + j] + h[i * n1 + j - 1] + h[i * n1 + j + 1]);
      EXPECT_TRUE(close(u.to_host(), want));
      now = want;
    }
    double total = 0.0;
    for (double x : now) total += x;
    EXPECT_NEAR(ts::sum(u).item(), total, 1e-14);
  }
}

// ---- dtype misuse ----

TEST_F(TesseraTest, IntegerPowerWithNegativeScalarExponent) {
  auto i = ts::arange<std::int32_t>(5);
  auto l = ts::arange<std::int64_t>(5);
  expect_collective_error("int32 ** -1", [&] { auto c = ts::pow(i, -1); }, {"power", "negative", "-1", "int32"});
  expect_collective_error("int64 ** -3", [&] { auto c = ts::pow(l, -3); }, {"power", "negative", "-3", "int64"});
  // Non-negative integer exponents and floating arrays are fine.
  EXPECT_EQ(ts::pow(i, 2).to_host(), (std::vector<std::int32_t>{0, 1, 4, 9, 16}));
  auto f = ts::pow(ts::arange<double>(5) + 1.0, -1);
  EXPECT_TRUE(close(f.to_host(), {1.0, 0.5, 1.0 / 3.0, 0.25, 0.2}));
}

TEST_F(TesseraTest, IntegerScalarOutOfRangeForInt32) {
  auto i = ts::arange<std::int32_t>(4);
  const std::int64_t big = std::int64_t(1) << 40;
  expect_collective_error("int32 + 2^40", [&] { auto c = i + big; }, {"add", "1099511627776", "int32"});
  expect_collective_error("2^40 * int32", [&] { auto c = big * i; }, {"multiply", "1099511627776", "int32"});
  expect_collective_error("int32 < 2^40", [&] { auto c = i < big; }, {"less", "1099511627776", "int32"});
  expect_collective_error("full<int32>", [&] { auto c = ts::full<std::int32_t>({3}, -big); },
                          {"full", "-1099511627776", "int32"});
  expect_collective_error("assign", [&] { i.assign(std::int64_t(INT32_MAX) + 1); }, {"assign", "2147483648", "int32"});
  expect_collective_error("+=", [&] { i += std::int64_t(INT32_MIN) - 1; }, {"add", "-2147483649", "int32"});
  // The int32 range itself is fine, and int64 arrays take any int64.
  auto edge = i + INT32_MAX;
  EXPECT_EQ(edge.to_host()[0], INT32_MAX);
  EXPECT_EQ((ts::arange<std::int64_t>(2) + big).to_host(), (std::vector<std::int64_t>{big, big + 1}));
  EXPECT_EQ(i.to_host(), (std::vector<std::int32_t>{0, 1, 2, 3}));  // nothing was written
}

TEST_F(TesseraTest, IntegerTrueDivisionByZero) {
  // `/` is true division: integers divide as float64, so x / 0 is inf, -inf or nan, as NumPy.
  auto a = ts::from_host<std::int32_t>({3}, {1, 0, -1});
  auto q = a / 0;
  static_assert(std::is_same_v<decltype(q), ts::Array<double>>);
  EXPECT_TRUE(same_values(q.to_host(), {kInf, kNaN, -kInf}));
  auto q2 = a / ts::zeros<std::int64_t>({3});
  EXPECT_TRUE(same_values(q2.to_host(), {kInf, kNaN, -kInf}));
}

// ---- Elementwise additions and creation (%, & | ^, arctan2, clip, eye, random_normal, *_like) ----

TEST_F(TesseraTest, NewElementwiseOpsShapeMismatch) {
  auto a = ts::arange<std::int64_t>(10);
  auto b = ts::ones<std::int64_t>({9});
  auto u = ts::zeros<double>({3, 4});
  expect_collective_error("a % b", [&] { auto c = a % b; }, {"remainder", "(10,)", "(9,)"});
  expect_collective_error("a & b", [&] { auto c = a & b; }, {"bitwise_and", "(10,)", "(9,)"});
  expect_collective_error("a | b", [&] { auto c = a | b; }, {"bitwise_or", "(10,)", "(9,)"});
  expect_collective_error("a ^ b", [&] { auto c = a ^ b; }, {"bitwise_xor", "(10,)", "(9,)"});
  expect_collective_error("arctan2", [&] { auto c = ts::arctan2(u, u(slice(0, 2), ts::all)); },
                          {"arctan2", "(3, 4)", "(2, 4)"});
  expect_collective_error("clip lo", [&] { auto c = ts::clip(a, b, 3); }, {"clip", "(10,)", "(9,)"});
  expect_collective_error("clip hi", [&] { auto c = ts::clip(a, 0, b); }, {"clip", "(10,)", "(9,)"});
  expect_collective_error("a %= b", [&] { a %= b; }, {"remainder", "(9,)", "(10,)"});
  std::vector<std::int64_t> want;
  for (int i = 0; i < 10; ++i) want.push_back(i);
  EXPECT_EQ(a.to_host(), want);  // nothing was written
}

TEST_F(TesseraTest, NewInPlaceOperatorsFollowSameKind) {
  auto i = ts::arange<std::int32_t>(6);
  const std::vector<bool> hp = {true, false, true, true, false, false};
  auto p = ts::from_host<bool>({6}, hp);
  expect_collective_error("int32 %= 2.5", [&] { i %= 2.5; }, {"remainder", "float64", "int32", "same_kind"});
  expect_collective_error("bool %= bool", [&] { p %= p; }, {"remainder", "int32", "bool", "same_kind"});
  expect_collective_error("bool &= int32", [&] { p &= i; }, {"bitwise_and", "int32", "bool", "same_kind"});
  expect_collective_error("bool |= 1", [&] { p |= 1; }, {"bitwise_or", "int64", "bool", "same_kind"});
  expect_collective_error("bool ^= int32", [&] { p ^= i; }, {"bitwise_xor", "int32", "bool", "same_kind"});
  expect_collective_error("int32 % 2^40", [&] { auto c = i % (std::int64_t(1) << 40); },
                          {"remainder", "1099511627776", "int32"});
  expect_collective_error("int32 &= 2^40", [&] { i &= std::int64_t(1) << 40; }, {"bitwise_and", "int32"});
  EXPECT_EQ(i.to_host(), (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5}));  // nothing was written
  EXPECT_EQ(p.to_host(), hp);
}

TEST_F(TesseraTest, NewCreationBadInputs) {
  expect_collective_error("eye(-3)", [&] { auto c = ts::eye<double>(-3); }, {"eye(-3)", "non-negative"});
  expect_collective_error("random_normal<int32>", [&] { auto c = ts::random_normal<std::int32_t>({4}, 1); },
                          {"random_normal<int32>", "floating type"});
  expect_collective_error("random_normal<bool>", [&] { auto c = ts::random_normal<bool>({4}, 1); },
                          {"random_normal<bool>", "floating type"});
  expect_collective_error("random_normal({-2})", [&] { auto c = ts::random_normal<double>({-2}, 1); },
                          {"random_normal", "negative", "(-2,)"});
  ts::Array<double> none;
  expect_collective_error("zeros_like", [&] { auto c = ts::zeros_like(none); }, {"zeros_like", "empty"});
  expect_collective_error("ones_like", [&] { auto c = ts::ones_like(none); }, {"ones_like", "empty"});
  expect_collective_error("empty_like", [&] { auto c = ts::empty_like(none); }, {"empty_like", "empty"});
  expect_collective_error("full_like", [&] { auto c = ts::full_like(none, 2.0); }, {"full_like", "empty"});
  auto i = ts::arange<std::int32_t>(3);
  expect_collective_error("full_like(int32, 2^40)", [&] { auto c = ts::full_like(i, std::int64_t(1) << 40); },
                          {"full_like", "1099511627776", "int32"});
}

// ---- Environment ----

TEST(BadInputsConfig, CheckDivergenceAndCommTimeoutValues) {
  struct Case {
    const char* variable;
    std::string value;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"TESSERA_CHECK_DIVERGENCE", "2", {"'2'", "0 or 1"}},
      {"TESSERA_CHECK_DIVERGENCE", "yes", {"'yes'", "0 or 1"}},
      {"TESSERA_CHECK_DIVERGENCE", "", {"''", "0 or 1"}},
      {"TESSERA_COMM_TIMEOUT", "0", {"'0'", "positive number of seconds"}},
      {"TESSERA_COMM_TIMEOUT", "-5", {"'-5'", "positive number of seconds"}},
      {"TESSERA_COMM_TIMEOUT", "abc", {"'abc'", "positive number of seconds"}},
      {"TESSERA_COMM_TIMEOUT", "", {"''", "positive number of seconds"}},
      {"TESSERA_COMM_TIMEOUT", "inf", {"'inf'", "positive number of seconds"}},
      {"TESSERA_COMM_TIMEOUT", "nan", {"'nan'", "positive number of seconds"}},
      {"TESSERA_COMM_TIMEOUT", "1e3", {"'1e3'", "positive number of seconds"}},
      {"TESSERA_COMM_TIMEOUT", "1.2.3", {"'1.2.3'", "positive number of seconds"}},
      {"TESSERA_COMM_TIMEOUT", "99999999999", {"'99999999999'", "positive number of seconds"}},
  };
  for (const Case& c : cases) {
    EnvGuard g(c.variable, c.value);
    const std::string m = error_of([] { (void)ts::Config{}.with_environment(); });
    ASSERT_FALSE(m.empty()) << c.variable << "='" << c.value << "' was accepted";
    EXPECT_NE(m.find(c.variable), std::string::npos) << m;
    for (const std::string& p : c.parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
    EXPECT_TRUE(same_on_all_ranks(m)) << m;
  }
  {
    EnvGuard d("TESSERA_CHECK_DIVERGENCE", std::string("0"));
    EnvGuard t("TESSERA_COMM_TIMEOUT", std::string("2.5"));
    const ts::Config c = ts::Config{}.with_environment();
    EXPECT_FALSE(c.check_divergence);
    EXPECT_EQ(c.comm_timeout, 2.5);
  }
  for (double bad : {0.0, -1.0, kNaN, kInf}) {
    ts::Config c;
    c.comm_timeout = bad;
    const std::string m = error_of([&] { c.validate(); });
    EXPECT_NE(m.find("comm_timeout"), std::string::npos) << bad << ": " << m;
  }
  // The runtime rejects them too, on every rank.
  int argc = 0;
  char** argv = nullptr;
  EnvGuard g("TESSERA_COMM_TIMEOUT", std::string("0"));
  const std::string m = error_of([&] { ts::Runtime rt(argc, argv); });
  EXPECT_NE(m.find("TESSERA_COMM_TIMEOUT='0'"), std::string::npos) << m;
  EXPECT_TRUE(same_on_all_ranks(m)) << m;
}

// A setting given to some ranks only (an environment variable not exported to the whole job)
// would make the ranks run different windows and hang in the first exchange: the Runtime
// compares the settings across ranks and raises the same error everywhere.
TEST(BadInputsConfig, SettingsThatDifferBetweenRanks) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks or more";
  int argc = 0;
  char** argv = nullptr;
  const bool first = my_rank() == 0;
  const std::string n = std::to_string(world_size());
  struct Case {
    const char* variable;
    std::string on_rank0, elsewhere;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"TESSERA_WINDOW", "17", "64", {"TESSERA_WINDOW", "differs between ranks", "from 17 to 64", "mpirun -x"}},
      {"TESSERA_FUSION", "0", "1", {"TESSERA_FUSION", "differs between ranks"}},
      {"TESSERA_CHECK_DIVERGENCE", "0", "1", {"TESSERA_CHECK_DIVERGENCE", "differs between ranks"}},
      {"TESSERA_GRID", "1x" + n, n + "x1", {"TESSERA_GRID", "differs between ranks"}},
      {"TESSERA_COMM", "mpi", "auto", {"TESSERA_COMM", "differs between ranks"}},
  };
  for (const Case& c : cases) {
    EnvGuard g(c.variable, first ? c.on_rank0 : c.elsewhere);
    const std::string m = error_of([&] { ts::Runtime rt(argc, argv); });
    for (const std::string& p : c.parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
    EXPECT_TRUE(same_on_all_ranks(m)) << m;
  }
  {  // Set in code on one rank only (and not overridden by the environment).
    EnvGuard g("TESSERA_WINDOW", std::nullopt);
    ts::Config cfg;
    if (first) cfg.window = 5;
    const std::string m = error_of([&] { ts::Runtime rt(argc, argv, cfg); });
    EXPECT_NE(m.find("Config::window"), std::string::npos) << m;
    EXPECT_TRUE(same_on_all_ranks(m)) << m;
  }
  // The same settings everywhere work.
  EnvGuard g("TESSERA_WINDOW", std::string("17"));
  ts::Runtime rt(argc, argv);
  EXPECT_EQ(rt.config().window, 17);
  expect_ranks_in_step();
}

// ---- Out of memory ----

TEST_F(TesseraTest, ArrayLargerThanMemoryIsAnError) {
  const int np = world_size();
  const std::string space = ts::detail::MemSpace::name();
  {
    const std::int64_t n = std::int64_t(1) << 40;  // 8 TiB of float64
    const std::int64_t tile_bytes = (n + np - 1) / np * 8;
    expect_collective_error(
        "zeros 2^40", [&] { auto a = ts::zeros<double>({n}); },
        {"out of memory", "zeros", "(1099511627776,)", std::to_string(tile_bytes) + " bytes", space});
    expect_collective_error("random 2^40", [&] { auto a = ts::random<float>({n}, 1); },
                            {"out of memory", "random", std::to_string((n + np - 1) / np * 4) + " bytes", space});
  }
  {
    const std::int64_t n = std::int64_t(1) << 14;  // 2^42 int64 elements in 3-D
    expect_collective_error("ones 3-D",
                            [&] {
                              auto a = ts::ones<std::int64_t>({n, n, n});
                            },
                            {"out of memory", "full", "(16384, 16384, 16384)", space});
  }
  expect_collective_error("overflow",
                          [] {
                            auto a = ts::empty<double>({std::int64_t(1) << 40, std::int64_t(1) << 40});
                          },
                          {"empty", "(1099511627776, 1099511627776)", "more than 2^63 - 1 elements"});
  // Arrays that fit are fine afterwards.
  auto ok = ts::full<double>({1000}, 0.5);
  EXPECT_EQ(ts::sum(ok).item(), 500.0);
}

// ---- NaN and Inf, as NumPy (IEEE arithmetic, no errors) ----

TEST_F(TesseraTest, NaNAndInfInElementwiseOps) {
  const std::vector<double> hx = {0.0, 1.0, -1.0, kInf, -kInf, kNaN, 2.0, -0.0};
  const std::int64_t n = static_cast<std::int64_t>(hx.size());
  auto x = ts::from_host<double>({n}, hx);
  auto zero = ts::zeros<double>({n});
  auto expect_map = [&](const char* what, const ts::Array<double>& got, double (*f)(double)) {
    std::vector<double> want;
    for (double v : hx) want.push_back(f(v));
    EXPECT_TRUE(same_values(got.to_host(), want)) << what;
  };
  expect_map("x / 0", x / zero, [](double v) { return v / 0.0; });
  expect_map("log", ts::log(x), [](double v) { return std::log(v); });
  expect_map("sqrt", ts::sqrt(x), [](double v) { return std::sqrt(v); });
  expect_map("x - x", x - x, [](double v) { return v - v; });
  expect_map("x * 0", x * 0.0, [](double v) { return v * 0.0; });
  expect_map("exp(1000 x)", ts::exp(x * 1000.0), [](double v) { return std::exp(v * 1000.0); });
  expect_map("pow(x, -1)", ts::pow(x, -1.0), [](double v) { return std::pow(v, -1.0); });
  expect_map("tanh", ts::tanh(x), [](double v) { return std::tanh(v); });
  expect_map("abs", ts::abs(x), [](double v) { return std::fabs(v); });
  // Comparisons with NaN are false except !=; where() takes NaN as true (nonzero), as NumPy.
  std::vector<bool> lt, ne, eq;
  for (double v : hx) lt.push_back(v < 1.0), ne.push_back(v != v), eq.push_back(v == v);
  EXPECT_EQ((x < 1.0).to_host(), lt);
  EXPECT_EQ((x != x).to_host(), ne);
  EXPECT_EQ((x == x).to_host(), eq);
  expect_map("where", ts::where(x, 1.0, 2.0), [](double v) { return v != 0.0 ? 1.0 : 2.0; });
  // float32 overflows to inf as well.
  auto f = ts::full<float>({3}, 1e30f) * 1e30f;
  for (float v : f.to_host()) EXPECT_TRUE(std::isinf(v) && v > 0);
}

TEST_F(TesseraTest, NaNAndInfInReductions) {
  const std::int64_t n = 23;
  for (std::int64_t at : {std::int64_t(0), n / 2, n - 1}) {  // on the first, a middle and the last rank
    SCOPED_TRACE(at);
    std::vector<double> h = host_values(static_cast<std::size_t>(n), 5);
    h[at] = kNaN;
    auto a = ts::from_host<double>({n}, h);
    EXPECT_TRUE(std::isnan(ts::sum(a).item()));
    EXPECT_TRUE(std::isnan(ts::prod(a).item()));
    EXPECT_TRUE(std::isnan(ts::mean(a).item()));
    EXPECT_TRUE(std::isnan(ts::max(a).item()));  // np.max propagates NaN
    EXPECT_TRUE(std::isnan(ts::min(a).item()));
    EXPECT_TRUE(std::isnan(ts::norm(a).item()));
    EXPECT_TRUE(std::isnan(ts::dot(a, ts::ones<double>({n})).item()));
    EXPECT_TRUE(std::isnan(ts::sum(a.astype<float>()).item()));
    EXPECT_EQ(ts::sum(a != a).item(), 1);  // counting NaNs
    h[at] = kInf;
    auto b = ts::from_host<double>({n}, h);
    EXPECT_EQ(ts::sum(b).item(), kInf);
    EXPECT_EQ(ts::max(b).item(), kInf);
    EXPECT_EQ(ts::norm(b).item(), kInf);
    auto c = b - ts::from_host<double>({n}, h);  // inf - inf
    EXPECT_TRUE(std::isnan(ts::sum(c).item()));
  }
  // +inf and -inf in one sum: nan.
  auto d = ts::from_host<double>({4}, {1.0, kInf, 2.0, -kInf});
  EXPECT_TRUE(std::isnan(ts::sum(d).item()));
}

TEST_F(TesseraTest, NaNCrossesHalos) {
  // One NaN in a grid; each stencil step spreads it to the 4 neighbours, across tile edges.
  const std::int64_t n = 12;
  std::vector<double> h = host_values(static_cast<std::size_t>(n * n), 6);
  h[5 * n + 6] = kNaN;
  auto grid = ts::from_host<double>({n, n}, h);
  auto in = slice(1, -1);
  auto center = grid(in, in);
  for (int step = 0; step < 3; ++step) {
    center.assign(0.2 * (center + grid(slice(0, -2), in) + grid(slice(2, end), in) + grid(in, slice(0, -2)) +
                         grid(in, slice(2, end))));
    std::vector<double> next = h;
    for (std::int64_t i = 1; i + 1 < n; ++i)
      for (std::int64_t j = 1; j + 1 < n; ++j)
        next[i * n + j] =
            0.2 * (h[i * n + j] + h[(i - 1) * n + j] + h[(i + 1) * n + j] + h[i * n + j - 1] + h[i * n + j + 1]);
    h = next;
  }
  EXPECT_TRUE(close(grid.to_host(), h));
  EXPECT_EQ(ts::sum(grid != grid).item(), 25);  // the diamond of radius 3 around the NaN
}

// ---- Runtime lifetime ----

TEST(BadInputsLifetime, OperationsWithoutARuntime) {
  ts::Array<double> a;
  expect_collective_error("zeros", [] { auto z = ts::zeros<double>({3}); }, {"no active runtime", "tessera::Runtime"});
  expect_collective_error("arange", [] { auto z = ts::arange<std::int32_t>(3); }, {"no active runtime"});
  expect_collective_error("from_host", [] { auto z = ts::from_host<double>({2}, {1.0, 2.0}); }, {"no active runtime"});
  expect_collective_error("a + 1", [&] { auto c = a + 1.0; }, {"no active runtime"});
  expect_collective_error("to_host", [&] { (void)a.to_host(); }, {"no active runtime"});
}

// A tessera::Error that leaves the Runtime's scope on every rank: the ranks agree that they all
// leave the same way, and the job goes on (a later Runtime works).
TEST(BadInputsLifetime, ErrorLeavingTheRuntimeOnEveryRank) {
  int argc = 0;
  char** argv = nullptr;
  std::string message;
  try {
    ts::Runtime rt(argc, argv);
    auto a = ts::arange<double>(10) * 2.0;  // recorded, never run: nobody can read it
    auto b = ts::ones<double>({9});
    auto c = a + b;
  } catch (const ts::Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("(10,)"), std::string::npos) << message;
  EXPECT_TRUE(same_on_all_ranks(message)) << message;
  ts::Runtime rt(argc, argv);
  expect_ranks_in_step();
}
