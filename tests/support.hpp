#pragma once
// Shared helpers for tessera tests: a fixture that owns a Runtime per test, host reference arrays
// and comparisons. Every test computes its expected values serially on the host.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <tessera/fusion/backend.hpp>
#include <tessera/fusion/runtime_state.hpp>
#include <tessera/program/interpreter.hpp>
#include <tessera/tessera.hpp>

namespace ts = tessera;

class TesseraTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int argc = 0;
    char** argv = nullptr;
    rt_ = std::make_unique<ts::Runtime>(argc, argv, config());
  }
  void TearDown() override { rt_.reset(); }
  virtual ts::Config config() const { return ts::Config{}; }
  ts::Runtime& rt() { return *rt_; }

 private:
  std::unique_ptr<ts::Runtime> rt_;
};

// Small groups launched apart (Config::batch_elements 0), for counts that batching would merge
// (boundary strips, and the iterations of a loop over a small grid; tests/test_batching.cpp).
class UnbatchedTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.batch_elements = 0;
    return c;
  }
};

// Runs f (or f(runtime)) under a Runtime with fusion on, then under one with fusion off (every op
// its own kernel): both must match the test's host reference. For tests not based on TesseraTest.
template <class F>
void fused_and_unfused(F&& f) {
  for (const bool fused : {true, false}) {
    SCOPED_TRACE(fused ? "fusion on" : "fusion off");
    ts::Config config;
    config.fusion = fused;
    int argc = 0;
    char** argv = nullptr;
    ts::Runtime rt(argc, argv, config);
    if constexpr (std::is_invocable_v<F, ts::Runtime&>)
      f(rt);
    else
      f();
  }
}

// A row-major host array: the serial reference.
template <class T>
struct HostArray {
  std::vector<std::int64_t> shape;
  std::vector<T> data;

  HostArray() = default;
  HostArray(std::vector<std::int64_t> s, std::vector<T> d) : shape(std::move(s)), data(std::move(d)) {}
  std::int64_t size() const {
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    return n;
  }
};

// Relative comparison scaled by the magnitude of the reference (exact for integers and bool).
template <class T>
::testing::AssertionResult close(const std::vector<T>& got, const std::vector<T>& want, double rtol = 1e-12) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(want[i]) && std::isnan(got[i])) continue;
      if (std::isinf(want[i]) && got[i] == want[i]) continue;
      double tol = rtol * std::max(1.0, std::abs(static_cast<double>(want[i])));
      if (!(std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <= tol))
        return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << ", want " << want[i];
    } else {
      if (got[i] != want[i])
        return ::testing::AssertionFailure() << "element " << i << ": got " << +got[i] << ", want " << +want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// ---- Host helpers for the array API tests (creation, elementwise, views, ...) ----

// Calls f(flat, k) for every element of the box [lo, hi) of a row-major array of `shape`, in
// row-major order: `flat` indexes the whole array, k counts the box's elements from 0.
template <class F>
void for_each_in_box(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& lo,
                     const std::vector<std::int64_t>& hi, F f) {
  std::int64_t s[3] = {1, 1, 1}, l[3] = {0, 0, 0}, h[3] = {1, 1, 1};
  const std::size_t pad = 3 - shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d) s[pad + d] = shape[d], l[pad + d] = lo[d], h[pad + d] = hi[d];
  std::int64_t k = 0;
  for (std::int64_t i = l[0]; i < h[0]; ++i)
    for (std::int64_t j = l[1]; j < h[1]; ++j)
      for (std::int64_t m = l[2]; m < h[2]; ++m) f((i * s[1] + j) * s[2] + m, k++);
}

// The row-major elements of the box [lo, hi) of a row-major host array of `shape`.
template <class T>
std::vector<T> host_box(const std::vector<T>& data, const std::vector<std::int64_t>& shape,
                        const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi) {
  std::vector<T> out;
  for_each_in_box(shape, lo, hi, [&](std::int64_t flat, std::int64_t) { out.push_back(data[flat]); });
  return out;
}

// Deterministic values of type T with mixed signs and magnitudes; `salt` gives another sequence.
// With nonzero = true no element is zero (safe divisors).
template <class T>
std::vector<T> test_values(std::int64_t n, int salt = 0, bool nonzero = false) {
  std::vector<T> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = (i * 37 + salt * 11 + 5) % 41 - 20;  // -20 .. 20
    if constexpr (std::is_same_v<T, bool>) {
      out[i] = nonzero || (i * 7 + salt) % 3 != 0;
    } else if constexpr (std::is_integral_v<T>) {
      out[i] = static_cast<T>(nonzero && r == 0 ? 21 : r);
    } else {
      const double v = static_cast<double>(r) / 4.0 + static_cast<double>((i + salt) % 7) / 16.0;
      out[i] = static_cast<T>(nonzero && v == 0.0 ? 0.375 : v);
    }
  }
  return out;
}

inline std::int64_t volume_of(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

// ---- Helpers shared by the partition, stencil, redistribution, error and config tests ----

// Stats count executed work: run everything recorded so far before reading or resetting them.
inline ts::Stats stats_now(ts::Runtime& rt) {
  rt.flush();
  return rt.stats();
}
inline void reset_stats_now(ts::Runtime& rt) {
  rt.flush();
  rt.reset_stats();
}

inline int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Deterministic values in [-1, 1), the same on every rank.
inline std::vector<double> host_values(std::size_t n, std::uint64_t seed) {
  std::vector<double> v(n);
  std::uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
  return v;
}

// True on every rank when every rank passes the same string (errors must be identical everywhere).
inline bool same_on_all_ranks(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  std::uint64_t mine[2] = {h, static_cast<std::uint64_t>(s.size())};
  std::uint64_t lo[2], hi[2];
  MPI_Allreduce(mine, lo, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(mine, hi, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo[0] == hi[0] && lo[1] == hi[1];
}

// The sum over ranks of a per-rank count (stats() are per rank).
inline std::int64_t all_sum(std::int64_t mine) {
  std::int64_t total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

// A row-major 2-D host grid: the serial reference of the stencil tests.
struct Host2 {
  std::int64_t n, m;
  std::vector<double> v;
  double& operator()(std::int64_t i, std::int64_t j) { return v[i * m + j]; }
  double operator()(std::int64_t i, std::int64_t j) const { return v[i * m + j]; }
};

// cuNumeric's Black-Scholes (the cumulative normal by its polynomial approximation), one iteration
// into preallocated outputs, as the fusion tests run it.
inline ts::Array<double> black_scholes_cnd(const ts::Array<double>& d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double rsqrt2pi = 0.39894228040143267793994605993438;
  auto k = 1.0 / (1.0 + 0.2316419 * ts::abs(d));
  auto tail = rsqrt2pi * ts::exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return ts::where(d > 0.0, 1.0 - tail, tail);
}
inline void black_scholes(const ts::Array<double>& S, const ts::Array<double>& X, const ts::Array<double>& T,
                          ts::Array<double>& call, ts::Array<double>& put) {
  const double R = 0.02, V = 0.3;
  auto sqrt_t = ts::sqrt(T);
  auto d1 = ts::log(S / X) + (R + 0.5 * V * V) * T / (V * sqrt_t);
  auto d2 = d1 - V * sqrt_t;
  auto cnd_d1 = black_scholes_cnd(d1);
  auto cnd_d2 = black_scholes_cnd(d2);
  auto exp_rt = ts::exp(-R * T);
  call.assign(S * cnd_d1 - X * exp_rt * cnd_d2);
  put.assign(X * exp_rt * (1.0 - cnd_d2) - S * (1.0 - cnd_d1));
}

// A Lax-Wendroff step of the shallow-water equations on an (n+2)^2 grid with reflective
// boundaries (after Moler's water wave): half steps over shifted views, then the update.
struct ShallowWater {
  double g = 9.8, dt = 0.02, dx = 1.0, dy = 1.0;
};

inline void shallow_water_step(ts::Array<double>& H, ts::Array<double>& U, ts::Array<double>& V, std::int64_t n,
                               const ShallowWater& w) {
  const auto in = ts::slice(1, -1), hi = ts::slice(1, ts::end), lo = ts::slice(0, -1);
  H(ts::all, 0).assign(H(ts::all, 1));
  U(ts::all, 0).assign(U(ts::all, 1));
  V(ts::all, 0).assign(-V(ts::all, 1));
  H(ts::all, n + 1).assign(H(ts::all, n));
  U(ts::all, n + 1).assign(U(ts::all, n));
  V(ts::all, n + 1).assign(-V(ts::all, n));
  H(0, ts::all).assign(H(1, ts::all));
  U(0, ts::all).assign(-U(1, ts::all));
  V(0, ts::all).assign(V(1, ts::all));
  H(n + 1, ts::all).assign(H(n, ts::all));
  U(n + 1, ts::all).assign(-U(n, ts::all));
  V(n + 1, ts::all).assign(V(n, ts::all));
  const double g2 = w.g / 2, cx = w.dt / (2 * w.dx), cy = w.dt / (2 * w.dy);
  auto Hs = H(hi, in), Hn = H(lo, in), Us = U(hi, in), Un = U(lo, in), Vs = V(hi, in), Vn = V(lo, in);
  auto Hx = 0.5 * (Hs + Hn) - cx * (Us - Un);
  auto Ux = 0.5 * (Us + Un) - cx * ((Us * Us / Hs + g2 * Hs * Hs) - (Un * Un / Hn + g2 * Hn * Hn));
  auto Vx = 0.5 * (Vs + Vn) - cx * (Us * Vs / Hs - Un * Vn / Hn);
  auto He = H(in, hi), Hw = H(in, lo), Ue = U(in, hi), Uw = U(in, lo), Ve = V(in, hi), Vw = V(in, lo);
  auto Hy = 0.5 * (He + Hw) - cy * (Ve - Vw);
  auto Uy = 0.5 * (Ue + Uw) - cy * (Ve * Ue / He - Vw * Uw / Hw);
  auto Vy = 0.5 * (Ve + Vw) - cy * ((Ve * Ve / He + g2 * He * He) - (Vw * Vw / Hw + g2 * Hw * Hw));
  const double fx = w.dt / w.dx, fy = w.dt / w.dy;
  H(in, in) -= fx * (Ux(hi, ts::all) - Ux(lo, ts::all)) + fy * (Vy(ts::all, hi) - Vy(ts::all, lo));
  U(in, in) -=
      fx * ((Ux(hi, ts::all) * Ux(hi, ts::all) / Hx(hi, ts::all) + g2 * Hx(hi, ts::all) * Hx(hi, ts::all)) -
            (Ux(lo, ts::all) * Ux(lo, ts::all) / Hx(lo, ts::all) + g2 * Hx(lo, ts::all) * Hx(lo, ts::all))) +
      fy * (Vy(ts::all, hi) * Uy(ts::all, hi) / Hy(ts::all, hi) - Vy(ts::all, lo) * Uy(ts::all, lo) / Hy(ts::all, lo));
  V(in, in) -=
      fx * (Ux(hi, ts::all) * Vx(hi, ts::all) / Hx(hi, ts::all) - Ux(lo, ts::all) * Vx(lo, ts::all) / Hx(lo, ts::all)) +
      fy * ((Vy(ts::all, hi) * Vy(ts::all, hi) / Hy(ts::all, hi) + g2 * Hy(ts::all, hi) * Hy(ts::all, hi)) -
            (Vy(ts::all, lo) * Vy(ts::all, lo) / Hy(ts::all, lo) + g2 * Hy(ts::all, lo) * Hy(ts::all, lo)));
}

// The same step on the host, element by element, in the same order of operations.
inline void host_shallow_water_step(Host2& H, Host2& U, Host2& V, std::int64_t n, const ShallowWater& w) {
  for (std::int64_t i = 0; i < n + 2; ++i) {
    H(i, 0) = H(i, 1), U(i, 0) = U(i, 1), V(i, 0) = -V(i, 1);
    H(i, n + 1) = H(i, n), U(i, n + 1) = U(i, n), V(i, n + 1) = -V(i, n);
  }
  for (std::int64_t j = 0; j < n + 2; ++j) {
    H(0, j) = H(1, j), U(0, j) = -U(1, j), V(0, j) = V(1, j);
    H(n + 1, j) = H(n, j), U(n + 1, j) = -U(n, j), V(n + 1, j) = V(n, j);
  }
  const double g2 = w.g / 2, cx = w.dt / (2 * w.dx), cy = w.dt / (2 * w.dy);
  Host2 Hx{n + 1, n, std::vector<double>((n + 1) * n)}, Ux = Hx, Vx = Hx;
  Host2 Hy{n, n + 1, std::vector<double>(n * (n + 1))}, Uy = Hy, Vy = Hy;
  for (std::int64_t i = 0; i < n + 1; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double hs = H(i + 1, j + 1), hn = H(i, j + 1), us = U(i + 1, j + 1), un = U(i, j + 1);
      const double vs = V(i + 1, j + 1), vn = V(i, j + 1);
      Hx(i, j) = 0.5 * (hs + hn) - cx * (us - un);
      Ux(i, j) = 0.5 * (us + un) - cx * ((us * us / hs + g2 * hs * hs) - (un * un / hn + g2 * hn * hn));
      Vx(i, j) = 0.5 * (vs + vn) - cx * (us * vs / hs - un * vn / hn);
    }
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n + 1; ++j) {
      const double he = H(i + 1, j + 1), hw = H(i + 1, j), ue = U(i + 1, j + 1), uw = U(i + 1, j);
      const double ve = V(i + 1, j + 1), vw = V(i + 1, j);
      Hy(i, j) = 0.5 * (he + hw) - cy * (ve - vw);
      Uy(i, j) = 0.5 * (ue + uw) - cy * (ve * ue / he - vw * uw / hw);
      Vy(i, j) = 0.5 * (ve + vw) - cy * ((ve * ve / he + g2 * he * he) - (vw * vw / hw + g2 * hw * hw));
    }
  const double fx = w.dt / w.dx, fy = w.dt / w.dy;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      H(i + 1, j + 1) -= fx * (Ux(i + 1, j) - Ux(i, j)) + fy * (Vy(i, j + 1) - Vy(i, j));
      U(i + 1, j + 1) -= fx * ((Ux(i + 1, j) * Ux(i + 1, j) / Hx(i + 1, j) + g2 * Hx(i + 1, j) * Hx(i + 1, j)) -
                               (Ux(i, j) * Ux(i, j) / Hx(i, j) + g2 * Hx(i, j) * Hx(i, j))) +
                         fy * (Vy(i, j + 1) * Uy(i, j + 1) / Hy(i, j + 1) - Vy(i, j) * Uy(i, j) / Hy(i, j));
      V(i + 1, j + 1) -= fx * (Ux(i + 1, j) * Vx(i + 1, j) / Hx(i + 1, j) - Ux(i, j) * Vx(i, j) / Hx(i, j)) +
                         fy * ((Vy(i, j + 1) * Vy(i, j + 1) / Hy(i, j + 1) + g2 * Hy(i, j + 1) * Hy(i, j + 1)) -
                               (Vy(i, j) * Vy(i, j) / Hy(i, j) + g2 * Hy(i, j) * Hy(i, j)));
    }
}

// Fixtures whose process grid puts every rank along one dimension of 2-D arrays.
class RowGridTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.grid = {world_size(), 1};
    return c;
  }
};

class ColumnGridTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.grid = {1, world_size()};
    return c;
  }
};

// Sets (or unsets) an environment variable for the lifetime of the guard, then restores it.
class EnvGuard {
 public:
  EnvGuard(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = std::string(old);
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~EnvGuard() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A collective tessera operation: completes only if every rank takes part.
inline void expect_ranks_in_step() {
  const std::int64_t n = 13;
  auto probe = ts::arange<double>(n) * 2.0;
  EXPECT_EQ(ts::sum(probe).item(), static_cast<double>(n * (n - 1)));
}

// The message of the tessera::Error that f throws ("" if it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ts::Error& e) {
    return e.what();
  }
  return "";
}

// Runs f, which must throw tessera::Error whose message contains every string of `parts` and is
// the same on every rank; then checks that the ranks are still in step (if a runtime is active).
template <class F>
void expect_collective_error(const char* what, F&& f, const std::vector<std::string>& parts) {
  std::string message;
  bool threw = false;
  try {
    f();
  } catch (const ts::Error& e) {
    threw = true;
    message = e.what();
  } catch (const std::exception& e) {
    message = std::string("not a tessera::Error: ") + e.what();
  }
  EXPECT_TRUE(threw) << what << ": " << (message.empty() ? "nothing thrown" : message);
  for (const std::string& p : parts)
    EXPECT_NE(message.find(p), std::string::npos) << what << ": '" << p << "' not in: " << message;
  EXPECT_TRUE(same_on_all_ranks(message)) << what << ": ranks disagree; this rank: " << message;
  if (ts::detail::runtime_active()) expect_ranks_in_step();
}

// The programs of the kernels launched while a test observes them (set_launch_observer(&record_launch)).
inline std::vector<tessera::detail::Program>& launched_programs() {
  static std::vector<tessera::detail::Program> programs;
  return programs;
}
inline void record_launch(const tessera::detail::Program& p, int, const tessera::detail::KernelShape&) {
  launched_programs().push_back(p);
}
// The Store instructions of a program.
inline int stores_in(const tessera::detail::Program& p) {
  int n = 0;
  for (const tessera::detail::Instr& in : p.code) n += in.op == tessera::detail::OpCode::Store;
  return n;
}
