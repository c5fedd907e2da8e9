// Configuration: TESSERA_* environment variables (good values parsed, bad values rejected with a
// message naming the variable and the valid choices), Config::validate, and the Runtime
// constructor's checks (process grid vs the job's rank count). Environment changes are undone
// by a guard so that later tests see the original environment.

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <tessera/fusion/runtime_state.hpp>

#include "support.hpp"

namespace {

const char* const kVariables[] = {
    "TESSERA_WINDOW",       "TESSERA_FUSION",     "TESSERA_BACKEND",      "TESSERA_GRID",
    "TESSERA_LOG",          "TESSERA_CACHE_DIR",  "TESSERA_COMM",         "TESSERA_CHECK_DIVERGENCE",
    "TESSERA_COMM_TIMEOUT", "TESSERA_OVERLAP",    "TESSERA_JIT_ELEMENTS", "TESSERA_BATCH_ELEMENTS",
    "TESSERA_JIT_WAIT",     "TESSERA_CXX",        "TESSERA_SPMV",         "TESSERA_MATVEC",
    "TESSERA_JIT_THREADS",  "TESSERA_JIT_SOURCES"};

// Unsets every TESSERA_* variable for the lifetime of the object.
struct CleanEnvironment {
  std::vector<std::unique_ptr<EnvGuard>> guards;
  CleanEnvironment() {
    for (const char* v : kVariables) guards.push_back(std::make_unique<EnvGuard>(v, std::nullopt));
  }
};

std::string grid_text(const std::vector<int>& g) {
  std::string s;
  for (int d : g) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

// A small 2-D computation with halos, checked against the host: the runtime is usable.
void check_runtime_works(std::int64_t n, std::int64_t m) {
  const auto h = host_values(n * m, 99);
  auto u = ts::from_host<double>({n, m}, h);
  auto r = u(ts::slice(1, ts::end), ts::slice(0, -1)) * 2.0 - u(ts::slice(0, -1), ts::slice(1, ts::end));
  std::vector<double> want;
  for (std::int64_t i = 1; i < n; ++i)
    for (std::int64_t j = 0; j + 1 < m; ++j) want.push_back(h[i * m + j] * 2.0 - h[(i - 1) * m + j + 1]);
  EXPECT_TRUE(close(r.to_host(), want));
  double total = 0.0;
  for (double x : h) total += x;
  EXPECT_NEAR(ts::sum(u).item(), total, 1e-12 * static_cast<double>(h.size()));
}

}  // namespace

TEST(Config, UnsetVariablesKeepValuesSetInCode) {
  CleanEnvironment clean;
  ts::Config c;
  c.window = 5;
  c.fusion = false;
  c.backend = ts::Backend::Jit;
  c.grid = {2, 1};
  c.log = "comm";
  c.cache_dir = "/somewhere";
  c.jit_elements = 2;
  c.batch_elements = 7;
  const ts::Config e = c.with_environment();
  EXPECT_EQ(e.window, c.window);
  EXPECT_EQ(e.fusion, c.fusion);
  EXPECT_EQ(e.backend, c.backend);
  EXPECT_EQ(e.grid, c.grid);
  EXPECT_EQ(e.log, c.log);
  EXPECT_EQ(e.cache_dir, c.cache_dir);
  EXPECT_EQ(e.jit_elements, c.jit_elements);
  EXPECT_EQ(e.batch_elements, c.batch_elements);
  ts::Config d;
  EXPECT_NO_THROW(d.validate());
  EXPECT_NO_THROW(d.with_environment().validate());
}

TEST(Config, GoodEnvironmentValuesOverrideCode) {
  CleanEnvironment clean;
  ts::Config base;
  base.window = 3;
  for (const std::string v : {"1", "17", "64", "1048576"}) {
    EnvGuard g("TESSERA_WINDOW", v);
    EXPECT_EQ(base.with_environment().window, std::stoi(v));
  }
  for (const std::string v : {"0", "1"}) {
    EnvGuard g("TESSERA_FUSION", v);
    ts::Config c;
    c.fusion = v != "1";  // the opposite of what the variable says
    EXPECT_EQ(c.with_environment().fusion, v == "1");
  }
  for (const std::string v : {"0", "1"}) {
    EnvGuard g("TESSERA_OVERLAP", v);
    ts::Config c;
    c.overlap = v != "1";
    EXPECT_EQ(c.with_environment().overlap, v == "1");
  }
  {
    EnvGuard g("TESSERA_BACKEND", std::string("jit"));
    EXPECT_EQ(base.with_environment().backend, ts::Backend::Jit);
  }
  {
    EnvGuard g("TESSERA_BACKEND", std::string("interp"));
    ts::Config c;
    c.backend = ts::Backend::Jit;
    EXPECT_EQ(c.with_environment().backend, ts::Backend::Interp);
  }
  for (const std::vector<int>& grid :
       {std::vector<int>{4}, std::vector<int>{2, 3}, std::vector<int>{1, 2, 3}, std::vector<int>{12, 1}}) {
    EnvGuard g("TESSERA_GRID", grid_text(grid));
    EXPECT_EQ(base.with_environment().grid, grid) << grid_text(grid);
  }
  for (const std::string v : {"fusion", "comm", "exec", "all", "fusion,comm", "comm,exec,fusion"}) {
    EnvGuard g("TESSERA_LOG", v);
    const ts::Config c = base.with_environment();
    EXPECT_EQ(c.log, v);
    EXPECT_NO_THROW(c.validate());
  }
  for (const std::string v : {"0", "1", "2", "4"}) {
    EnvGuard g("TESSERA_JIT_ELEMENTS", v);
    ts::Config c;
    c.jit_elements = v == "4" ? 1 : 4;  // something else than the variable says
    const ts::Config e = c.with_environment();
    EXPECT_EQ(e.jit_elements, std::stoi(v));
    EXPECT_NO_THROW(e.validate());
  }
  for (const std::string v : {"0", "1", "3", "64"}) {
    EnvGuard g("TESSERA_JIT_THREADS", v);
    const ts::Config e = base.with_environment();
    EXPECT_EQ(e.jit_threads, std::stoi(v));
    EXPECT_NO_THROW(e.validate());
  }
  for (const std::string v : {"0", "1", "4096", "16777216"}) {
    EnvGuard g("TESSERA_BATCH_ELEMENTS", v);
    EXPECT_EQ(base.with_environment().batch_elements, std::stoll(v));
  }
  for (const std::string v : {"auto", "generated", "cusparse"}) {
    EnvGuard g("TESSERA_SPMV", v);
    EXPECT_EQ(base.with_environment().spmv, v);
  }
  for (const std::string v : {"auto", "generated", "blas"}) {
    EnvGuard g("TESSERA_MATVEC", v);
    EXPECT_EQ(base.with_environment().matvec, v);
  }
  {
    const std::string dir = "/tmp/tessera cache/kernels";
    EnvGuard g("TESSERA_CACHE_DIR", dir);
    EXPECT_EQ(base.with_environment().cache_dir, dir);
  }
  {
    const std::string dir = "/tmp/tessera kernels";
    EnvGuard g("TESSERA_JIT_SOURCES", dir);
    EXPECT_EQ(base.with_environment().jit_sources, dir);
  }
  // Several at once.
  EnvGuard w("TESSERA_WINDOW", std::string("9"));
  EnvGuard f("TESSERA_FUSION", std::string("0"));
  EnvGuard l("TESSERA_LOG", std::string("exec"));
  const ts::Config c = base.with_environment();
  EXPECT_EQ(c.window, 9);
  EXPECT_FALSE(c.fusion);
  EXPECT_EQ(c.log, "exec");
  EXPECT_EQ(c.backend, base.backend);
}

TEST(Config, BadEnvironmentValuesNameTheVariableAndTheChoices) {
  CleanEnvironment clean;
  struct Case {
    const char* variable;
    std::string value;
    std::vector<std::string> parts;  // besides the variable's name
  };
  const std::vector<Case> cases = {
      {"TESSERA_WINDOW", "0", {"'0'", "positive integer"}},
      {"TESSERA_WINDOW", "-3", {"'-3'", "positive integer"}},
      {"TESSERA_WINDOW", "abc", {"'abc'", "positive integer"}},
      {"TESSERA_WINDOW", "", {"positive integer"}},
      {"TESSERA_WINDOW", "12x", {"'12x'", "positive integer"}},
      {"TESSERA_WINDOW", "3.5", {"'3.5'", "positive integer"}},
      {"TESSERA_WINDOW", "99999999999999999999", {"99999999999999999999", "positive integer"}},
      {"TESSERA_WINDOW", "2000000", {"'2000000'", "positive integer"}},
      {"TESSERA_FUSION", "2", {"'2'", "0 or 1"}},
      {"TESSERA_FUSION", "yes", {"'yes'", "0 or 1"}},
      {"TESSERA_FUSION", "", {"0 or 1"}},
      {"TESSERA_BACKEND", "cuda", {"'cuda'", "interp", "jit"}},
      {"TESSERA_BACKEND", "JIT", {"'JIT'", "interp", "jit"}},
      {"TESSERA_BACKEND", "", {"interp", "jit"}},
      {"TESSERA_GRID", "", {"positive integers"}},
      {"TESSERA_GRID", "2x", {"'2x'", "positive integers"}},
      {"TESSERA_GRID", "x2", {"'x2'", "positive integers"}},
      {"TESSERA_GRID", "0x4", {"'0x4'", "positive integers"}},
      {"TESSERA_GRID", "2x-1", {"'2x-1'", "positive integers"}},
      {"TESSERA_GRID", "2,2", {"'2,2'", "positive integers"}},
      {"TESSERA_GRID", "abc", {"'abc'", "positive integers"}},
      {"TESSERA_GRID", "99999999999", {"'99999999999'", "positive integers"}},
      {"TESSERA_GRID", "2x2x2x2", {"'2x2x2x2'", "at most 3"}},
      {"TESSERA_LOG", "verbose", {"'verbose'", "fusion", "comm", "exec", "all"}},
      {"TESSERA_LOG", "fusion,", {"'fusion,'", "fusion", "comm", "exec", "all"}},
      {"TESSERA_LOG", "Fusion", {"'Fusion'", "fusion", "comm", "exec", "all"}},
      {"TESSERA_LOG", "fusion;comm", {"'fusion;comm'", "fusion", "comm", "exec", "all"}},
      {"TESSERA_CACHE_DIR", "", {"empty", "folder"}},
      {"TESSERA_COMM", "gloo", {"'gloo'", "auto", "mpi", "nccl"}},
      {"TESSERA_COMM", "", {"''", "auto", "mpi", "nccl"}},
      {"TESSERA_OVERLAP", "on", {"'on'", "0 or 1"}},
      {"TESSERA_OVERLAP", "", {"0 or 1"}},
      {"TESSERA_JIT_ELEMENTS", "3", {"'3'", "0 (automatic), 1, 2 or 4"}},
      {"TESSERA_JIT_ELEMENTS", "8", {"'8'", "0 (automatic), 1, 2 or 4"}},
      {"TESSERA_JIT_ELEMENTS", "-1", {"'-1'", "0 (automatic), 1, 2 or 4"}},
      {"TESSERA_JIT_ELEMENTS", "04", {"'04'", "0 (automatic), 1, 2 or 4"}},
      {"TESSERA_JIT_ELEMENTS", "auto", {"'auto'", "0 (automatic), 1, 2 or 4"}},
      {"TESSERA_JIT_ELEMENTS", "", {"''", "0 (automatic), 1, 2 or 4"}},
      {"TESSERA_BATCH_ELEMENTS", "-1", {"'-1'", "positive integer"}},
      {"TESSERA_BATCH_ELEMENTS", "16777217", {"'16777217'", "up to 16777216"}},
      {"TESSERA_BATCH_ELEMENTS", "", {"positive integer"}},
      {"TESSERA_SPMV", "cublas", {"'cublas'", "auto", "generated", "cusparse"}},
      {"TESSERA_SPMV", "", {"''", "auto", "generated", "cusparse"}},
      {"TESSERA_MATVEC", "cublas", {"'cublas'", "auto", "generated", "blas"}},
      {"TESSERA_JIT_THREADS", "-1", {"'-1'", "positive integer"}},
      {"TESSERA_JIT_THREADS", "65", {"'65'", "up to 64"}},
      {"TESSERA_JIT_THREADS", "four", {"'four'", "positive integer"}},
      {"TESSERA_JIT_WAIT", "yes", {"'yes'", "0 or 1"}},
      {"TESSERA_JIT_WAIT", "", {"0 or 1"}},
      {"TESSERA_CXX", "", {"empty", "compiler"}},
  };
  for (const Case& c : cases) {
    EnvGuard g(c.variable, c.value);
    const std::string m = error_of([] { (void)ts::Config{}.with_environment(); });
    ASSERT_FALSE(m.empty()) << c.variable << "='" << c.value << "' was accepted";
    EXPECT_NE(m.find(c.variable), std::string::npos) << m;
    for (const std::string& p : c.parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
    EXPECT_TRUE(same_on_all_ranks(m)) << m;
  }
}

TEST(Config, ValidateRejectsBadFields) {
  ts::Config good;
  EXPECT_NO_THROW(good.validate());
  good.grid = {3, 2};  // validate does not know the job size
  good.log = "fusion,exec";
  EXPECT_NO_THROW(good.validate());

  for (int w : {0, -1, -64}) {
    ts::Config c;
    c.window = w;
    const std::string m = error_of([&] { c.validate(); });
    EXPECT_NE(m.find("window"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(w)), std::string::npos) << m;
  }
  {
    ts::Config c;
    c.grid = {1, 1, 1, 1};
    const std::string m = error_of([&] { c.validate(); });
    EXPECT_NE(m.find("grid"), std::string::npos) << m;
    EXPECT_NE(m.find("4"), std::string::npos) << m;
  }
  for (int bad : {0, -2}) {
    ts::Config c;
    c.grid = {2, bad};
    const std::string m = error_of([&] { c.validate(); });
    EXPECT_NE(m.find("grid"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(bad)), std::string::npos) << m;
  }
  {
    ts::Config c;
    c.log = "loud";
    const std::string m = error_of([&] { c.validate(); });
    EXPECT_NE(m.find("loud"), std::string::npos) << m;
    EXPECT_NE(m.find("fusion, comm, exec, all"), std::string::npos) << m;
  }
  for (std::int64_t b : {std::int64_t(-1), (std::int64_t(1) << 24) + 1}) {
    ts::Config c;
    c.batch_elements = b;
    const std::string m = error_of([&] { c.validate(); });
    EXPECT_NE(m.find("batch_elements"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(b)), std::string::npos) << m;
  }
  for (int t : {-1, -2, 65}) {
    ts::Config c;
    c.jit_threads = t;
    const std::string m = error_of([&] { c.validate(); });
    EXPECT_NE(m.find("jit_threads"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(t)), std::string::npos) << m;
  }
  for (int e : {-1, 3, 8}) {
    ts::Config c;
    c.jit_elements = e;
    const std::string m = error_of([&] { c.validate(); });
    EXPECT_NE(m.find("jit_elements"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(e)), std::string::npos) << m;
    EXPECT_NE(m.find("1, 2 or 4"), std::string::npos) << m;
  }
}

// No fixture: each case builds (or fails to build) its own Runtime.
TEST(RuntimeConfig, GridOfWrongSizeIsRejectedByTheRuntime) {
  CleanEnvironment clean;
  int argc = 0;
  char** argv = nullptr;
  const int n = world_size();
  for (const std::vector<int>& grid :
       {std::vector<int>{n + 1, 1}, std::vector<int>{n + 1}, std::vector<int>{1, 2 * n, 1}}) {
    {
      EnvGuard g("TESSERA_GRID", grid_text(grid));
      const std::string m = error_of([&] { ts::Runtime rt(argc, argv); });
      EXPECT_NE(m.find("TESSERA_GRID"), std::string::npos) << m;
      EXPECT_NE(m.find(grid_text(grid)), std::string::npos) << m;
      long product = 1;
      for (int d : grid) product *= d;
      EXPECT_NE(m.find(std::to_string(product)), std::string::npos) << m;
      EXPECT_NE(m.find("job has " + std::to_string(n)), std::string::npos) << m;
      EXPECT_TRUE(same_on_all_ranks(m)) << m;
    }
    // The same grid given in code.
    ts::Config c;
    c.grid = grid;
    const std::string m = error_of([&] { ts::Runtime rt(argc, argv, c); });
    EXPECT_NE(m.find(grid_text(grid)), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(n)), std::string::npos) << m;
  }
  // A grid that fits the job works, whether from the environment or from code.
  {
    EnvGuard g("TESSERA_GRID", "1x" + std::to_string(n));
    ts::Runtime rt(argc, argv);
    EXPECT_EQ(rt.config().grid, (std::vector<int>{1, n}));
    EXPECT_EQ(tessera::detail::runtime().grid(2).dim(0), 1);
    EXPECT_EQ(tessera::detail::runtime().grid(2).dim(1), n);
    check_runtime_works(6, 9);
  }
  {
    ts::Config c;
    c.grid = {n, 1, 1};
    ts::Runtime rt(argc, argv, c);
    EXPECT_EQ(tessera::detail::runtime().grid(3).dim(0), n);
    check_runtime_works(7, 5);
  }
  // The environment overrides the grid given in code.
  {
    EnvGuard g("TESSERA_GRID", std::to_string(n) + "x1");
    ts::Config c;
    c.grid = {n + 1, 1};
    ts::Runtime rt(argc, argv, c);
    EXPECT_EQ(rt.config().grid, (std::vector<int>{n, 1}));
    check_runtime_works(5, 4);
  }
}

TEST(RuntimeConfig, BadValuesAreRejectedByTheRuntime) {
  CleanEnvironment clean;
  int argc = 0;
  char** argv = nullptr;
  {
    EnvGuard g("TESSERA_WINDOW", std::string("0"));
    const std::string m = error_of([&] { ts::Runtime rt(argc, argv); });
    EXPECT_NE(m.find("TESSERA_WINDOW"), std::string::npos) << m;
  }
  {
    EnvGuard g("TESSERA_LOG", std::string("everything"));
    const std::string m = error_of([&] { ts::Runtime rt(argc, argv); });
    EXPECT_NE(m.find("TESSERA_LOG"), std::string::npos) << m;
    EXPECT_NE(m.find("everything"), std::string::npos) << m;
  }
  {
    EnvGuard g("TESSERA_JIT_ELEMENTS", std::string("3"));
    const std::string m = error_of([&] { ts::Runtime rt(argc, argv); });
    EXPECT_NE(m.find("TESSERA_JIT_ELEMENTS"), std::string::npos) << m;
    EXPECT_TRUE(same_on_all_ranks(m)) << m;
  }
  {
    ts::Config c;
    c.window = -2;
    const std::string m = error_of([&] { ts::Runtime rt(argc, argv, c); });
    EXPECT_NE(m.find("-2"), std::string::npos) << m;
  }
  {
    ts::Config c;
    c.comm = "ucx";
    const std::string m = error_of([&] { ts::Runtime rt(argc, argv, c); });
    EXPECT_NE(m.find("ucx"), std::string::npos) << m;
    EXPECT_NE(m.find("nccl"), std::string::npos) << m;
  }
#ifndef KOKKOS_ENABLE_CUDA
  {  // CPU builds have no NCCL: asking for it is an error, the same on every rank
    EnvGuard g("TESSERA_COMM", std::string("nccl"));
    const std::string m = error_of([&] { ts::Runtime rt(argc, argv); });
    EXPECT_NE(m.find("TESSERA_COMM=nccl"), std::string::npos) << m;
    EXPECT_TRUE(same_on_all_ranks(m)) << m;
  }
#endif
  // After all those failures a Runtime can still be made, and it takes its settings from the
  // environment.
  EnvGuard w("TESSERA_WINDOW", std::string("7"));
  EnvGuard f("TESSERA_FUSION", std::string("0"));
  EnvGuard b("TESSERA_BACKEND", std::string("interp"));
  ts::Runtime rt(argc, argv);
  EXPECT_EQ(rt.config().window, 7);
  EXPECT_FALSE(rt.config().fusion);
  EXPECT_EQ(rt.config().backend, ts::Backend::Interp);
  check_runtime_works(9, 8);
}

class CommLogTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.log = "comm";
    return c;
  }
};

// TESSERA_LOG=comm names every redistribution (and halo exchange) in the log.
TEST_F(CommLogTest, RedistributionIsNamedInTheLog) {
  const auto hx = host_values(20, 1), hy = host_values(30, 2);
  auto x = ts::from_host<double>({20}, hx);
  auto y = ts::from_host<double>({30}, hy);
  reset_stats_now(rt());
  ::testing::internal::CaptureStderr();
  auto z = x(ts::slice(0, 10)) + y(ts::slice(15, 25));
  rt().flush();
  const std::string log = ::testing::internal::GetCapturedStderr();
  std::vector<double> want;
  for (int i = 0; i < 10; ++i) want.push_back(hx[i] + hy[i + 15]);
  EXPECT_TRUE(close(z.to_host(), want));
  if (stats_now(rt()).redistributions > 0) {
    EXPECT_NE(log.find("redistribution"), std::string::npos) << log;
  }
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).redistributions, 0);
  }

  ::testing::internal::CaptureStderr();
  auto s = x(ts::slice(1, ts::end)) - x(ts::slice(0, -1));
  rt().flush();
  const std::string log2 = ::testing::internal::GetCapturedStderr();
  if (rt().size() > 1) {
    EXPECT_NE(log2.find("halo"), std::string::npos) << log2;
  }
  std::vector<double> ws;
  for (int i = 0; i + 1 < 20; ++i) ws.push_back(hx[i + 1] - hx[i]);
  EXPECT_TRUE(close(s.to_host(), ws));
}

// Without logging, nothing is printed.
TEST_F(TesseraTest, NoLogByDefault) {
  if (!rt().config().log.empty()) GTEST_SKIP() << "TESSERA_LOG is set in the environment";
  const auto hx = host_values(20, 3), hy = host_values(30, 4);
  auto x = ts::from_host<double>({20}, hx);
  auto y = ts::from_host<double>({30}, hy);
  ::testing::internal::CaptureStderr();
  auto z = x(ts::slice(0, 10)) + y(ts::slice(15, 25));
  auto s = x(ts::slice(1, ts::end)) - x(ts::slice(0, -1));
  rt().flush();
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(log, "");
  std::vector<double> want;
  for (int i = 0; i < 10; ++i) want.push_back(hx[i] + hy[i + 15]);
  EXPECT_TRUE(close(z.to_host(), want));
}
