// Structural tests of the fusion layer: counts from stats() (never times) for the reference
// workloads, each also checked against a host reference, plus the plan cache in steady loops.

#include <cmath>
#include <random>

#include "support.hpp"

namespace {

// Kernels counted as a large grid launches them: the small arrays of these tests would otherwise
// run several iterations as one batch (Config::batch_elements; tests/test_batching.cpp).
class FusionTest : public TesseraTest {
 protected:
  ts::Config config() const override {
    ts::Config c;
    c.fusion = true;
    c.batch_elements = 0;
    return c;
  }
};

double cnd_host(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double rsqrt2pi = 0.39894228040143267793994605993438;
  double k = 1.0 / (1.0 + 0.2316419 * std::abs(d));
  double tail = rsqrt2pi * std::exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0.0 ? 1.0 - tail : tail;
}

// call and put against the host's Black-Scholes prices of S, X, T.
void expect_black_scholes_prices(const ts::Array<double>& S, const ts::Array<double>& X, const ts::Array<double>& T,
                                 const ts::Array<double>& call, const ts::Array<double>& put) {
  auto s = S.to_host(), x = X.to_host(), t = T.to_host();
  const std::size_t n = s.size();
  std::vector<double> want_call(n), want_put(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double R = 0.02, V = 0.3, sq = std::sqrt(t[i]);
    double d1 = std::log(s[i] / x[i]) + (R + 0.5 * V * V) * t[i] / (V * sq);
    double d2 = d1 - V * sq;
    double e = std::exp(-R * t[i]);
    want_call[i] = s[i] * cnd_host(d1) - x[i] * e * cnd_host(d2);
    want_put[i] = x[i] * e * (1.0 - cnd_host(d2)) - s[i] * (1.0 - cnd_host(d1));
  }
  EXPECT_TRUE(close(call.to_host(), want_call, 1e-12));
  EXPECT_TRUE(close(put.to_host(), want_put, 1e-12));
}

// cuNumeric's stencil.py on a grid: the views, one step, and the same step on the host.
struct StencilPy {
  ts::Array<double> center, north, east, west, south;
  explicit StencilPy(const ts::Array<double>& grid)
      : center(grid(ts::slice(1, -1), ts::slice(1, -1))),
        north(grid(ts::slice(0, -2), ts::slice(1, -1))),
        east(grid(ts::slice(1, -1), ts::slice(2, ts::end))),
        west(grid(ts::slice(1, -1), ts::slice(0, -2))),
        south(grid(ts::slice(2, ts::end), ts::slice(1, -1))) {}
  void step() { center.assign(0.2 * (center + north + east + west + south)); }
  // NumPy computes the whole right-hand side before writing.
  static void host_step(std::vector<double>& host, std::int64_t n, std::int64_t m) {
    std::vector<double> next = host;
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < m - 1; ++j)
        next[i * m + j] = 0.2 * (host[i * m + j] + host[(i - 1) * m + j] + host[i * m + j + 1] + host[i * m + j - 1] +
                                 host[(i + 1) * m + j]);
    host = next;
  }
};

}  // namespace

TEST_F(FusionTest, BlackScholesIterationIsOneKernelWithoutTemporaries) {
  const std::int64_t n = 1001;
  auto S = ts::random<double>({n}, 1) * 25.0 + 5.0;
  auto X = ts::random<double>({n}, 2) * 99.0 + 1.0;
  auto T = ts::random<double>({n}, 3) * 9.75 + 0.25;
  auto call = ts::zeros<double>({n});
  auto put = ts::zeros<double>({n});
  rt().flush();                       // the inputs and the zero fills run apart from the loop
  black_scholes(S, X, T, call, put);  // warm-up: allocates call and put (zeros are allocated lazily)
  rt().flush();
  const ts::Stats before = rt().stats();
  const int iters = 5;
  for (int it = 0; it < iters; ++it) {
    black_scholes(S, X, T, call, put);
    rt().flush();
  }
  const ts::Stats after = rt().stats();
  EXPECT_EQ(after.kernels - before.kernels, iters);  // no temporaries, no second pass
  // Exactly S, X, T read and call, put written: no temporary stored (such as S / X, which is not
  // recomputed, being read by recomputed ops only).
  EXPECT_EQ(all_sum(after.bytes_accessed - before.bytes_accessed), 5 * n * 8 * iters);
  EXPECT_EQ(after.stores_allocated - before.stores_allocated, 0);
  EXPECT_EQ(after.halo_exchanges - before.halo_exchanges, 0);

  // Unsynchronized, the window (64 ops) grows past the 65-op iteration; rule 7 still cuts every
  // kernel at the loop's period: one kernel per iteration, not one computing several.
  const int more = 12;
  for (int it = 0; it < more; ++it) black_scholes(S, X, T, call, put);
  rt().flush();
  EXPECT_EQ(rt().stats().kernels - after.kernels, more);

  expect_black_scholes_prices(S, X, T, call, put);
}

// The in-place stencil reads the grid through shifted views and writes its interior: with buffer
// renaming each iteration is one kernel into the buffer the previous iteration gave up, whose
// frame (the grid's boundary) is still current: only the first renaming copies the frame.
TEST_F(FusionTest, StencilIterationIsOneKernelAndOneHaloExchange) {
  const std::int64_t n = 23, m = 17;
  auto grid = ts::random<double>({n, m}, 5);
  std::vector<double> host = grid.to_host();
  StencilPy stencil(grid);
  const int iters = 6;
  auto step = [&] {
    stencil.step();
    rt().flush();
  };
  step();  // the first iteration allocates the buffer that the following ones recycle
  const ts::Stats before = rt().stats();
  for (int it = 1; it < iters; ++it) step();
  const ts::Stats after = rt().stats();
  EXPECT_EQ(after.kernels - before.kernels, iters - 1);
  EXPECT_EQ(after.buffer_renames - before.buffer_renames, iters - 1);
  EXPECT_EQ(after.frame_copies - before.frame_copies, 0);  // the first step copied it, if this rank has a frame
  EXPECT_EQ(after.stores_allocated - before.stores_allocated, 0);
  if (rt().size() > 1) EXPECT_LE(after.halo_exchanges - before.halo_exchanges, iters - 1);
  EXPECT_EQ(after.redistributions - before.redistributions, 0);

  for (int it = 0; it < iters; ++it) StencilPy::host_step(host, n, m);
  EXPECT_TRUE(close(grid.to_host(), host, 1e-12));
}

// A renamed store whose frame is written between iterations (a boundary condition that changes
// every third step, written through a view): the buffer kept from the previous renaming has a stale
// frame then, and the frame is copied again.
TEST_F(FusionTest, RenamedStoreFrameWrittenBetweenIterations) {
  const std::int64_t n = 19, m = 13;
  auto grid = ts::random<double>({n, m}, 6);
  std::vector<double> host = grid.to_host();
  StencilPy stencil(grid);
  auto top = grid(ts::slice(0, 1), ts::slice(0, ts::end));
  const int iters = 12;
  std::int64_t boundary_writes = 0;
  for (int it = 0; it < iters; ++it) {
    stencil.step();
    StencilPy::host_step(host, n, m);
    if (it % 3 == 1) {
      top.assign(top + 1.0);
      for (std::int64_t j = 0; j < m; ++j) host[j] += 1.0;
      ++boundary_writes;
    }
    if (it % 4 == 3) EXPECT_TRUE(close(grid.to_host(), host, 1e-12)) << "iteration " << it;
  }
  EXPECT_TRUE(close(grid.to_host(), host, 1e-12));
  // The ranks that own part of the top row copy their frame after each boundary write.
  EXPECT_GE(all_sum(rt().stats().frame_copies), boundary_writes);
}

// Matrix-free CG on the 2-D Poisson problem (5-point Laplacian, zero Dirichlet boundary): every
// vector is an (n+2)^2 grid whose frame stays zero, and the solver works on interior views.
//
// 3 kernels per iteration: the Laplacian with dot(p, q); the updates of x and r with dot(r, r); the
// update of p. The product 4.0 * inner(p) that starts an iteration is rematerialized: the
// Laplacian kernel recomputes it from p, which it reads anyway, instead of the update of p storing
// it and the Laplacian loading it back (17 grid-sized accesses per iteration before, 15 now:
// p, r, p | 5 views of p, q | x, p, r, q, x, r; plus a few 0-d scalars).
TEST_F(FusionTest, ConjugateGradientIterationIsThreeKernelsWithoutHostSync) {
  const std::int64_t n = 15, N = n + 2;
  auto inner = [](const ts::Array<double>& a) { return a(ts::slice(1, -1), ts::slice(1, -1)); };
  auto b = ts::zeros<double>({N, N});
  inner(b).assign(ts::random<double>({n, n}, 9));
  auto x = ts::zeros<double>({N, N});
  auto r = ts::copy(b);
  auto p = ts::copy(b);
  auto q = ts::zeros<double>({N, N});
  auto rr = ts::vdot(inner(r), inner(r));
  const std::vector<double> bh = b.to_host();
  rt().flush();

  const int iters = 8;
  const ts::Stats before = rt().stats();
  for (int it = 0; it < iters; ++it) {
    inner(q).assign(4.0 * inner(p) - p(ts::slice(0, -2), ts::slice(1, -1)) -
                    p(ts::slice(2, ts::end), ts::slice(1, -1)) - p(ts::slice(1, -1), ts::slice(0, -2)) -
                    p(ts::slice(1, -1), ts::slice(2, ts::end)));
    auto alpha = rr / ts::vdot(inner(p), inner(q));
    inner(x) += alpha * inner(p);
    inner(r) -= alpha * inner(q);
    auto rr_new = ts::vdot(inner(r), inner(r));
    auto beta = rr_new / rr;
    inner(p).assign(inner(r) + beta * inner(p));
    rr = rr_new;
  }
  rt().flush();
  const ts::Stats after = rt().stats();
  EXPECT_LE(after.kernels - before.kernels, 3 * iters);
  EXPECT_EQ(after.gathers - before.gathers, 0);  // no host synchronization inside the loop
  const std::int64_t grid_access = n * n * static_cast<std::int64_t>(sizeof(double));
  const std::int64_t global_bytes = all_sum(after.bytes_accessed - before.bytes_accessed);
  EXPECT_LT(global_bytes, 16 * grid_access * iters);

  // Host reference: the same iterations, serially.
  std::vector<double> xh(N * N, 0.0), rh = bh, ph = bh, qh(N * N, 0.0);
  auto dot = [&](const std::vector<double>& u, const std::vector<double>& v) {
    double s = 0;
    for (std::int64_t i = 1; i <= n; ++i)
      for (std::int64_t j = 1; j <= n; ++j) s += u[i * N + j] * v[i * N + j];
    return s;
  };
  double rrh = dot(rh, rh);
  for (int it = 0; it < iters; ++it) {
    for (std::int64_t i = 1; i <= n; ++i)
      for (std::int64_t j = 1; j <= n; ++j)
        qh[i * N + j] =
            4.0 * ph[i * N + j] - ph[(i - 1) * N + j] - ph[(i + 1) * N + j] - ph[i * N + j - 1] - ph[i * N + j + 1];
    double alpha = rrh / dot(ph, qh);
    for (std::int64_t i = 1; i <= n; ++i)
      for (std::int64_t j = 1; j <= n; ++j) {
        xh[i * N + j] += alpha * ph[i * N + j];
        rh[i * N + j] -= alpha * qh[i * N + j];
      }
    double rr_new = dot(rh, rh);
    double beta = rr_new / rrh;
    for (std::int64_t i = 1; i <= n; ++i)
      for (std::int64_t j = 1; j <= n; ++j) ph[i * N + j] = rh[i * N + j] + beta * ph[i * N + j];
    rrh = rr_new;
  }
  EXPECT_TRUE(close(x.to_host(), xh, 1e-10));
  EXPECT_NEAR(rr.item(), rrh, 1e-10 * std::max(1.0, rrh));
}

TEST_F(FusionTest, SteadyLoopsHitThePlanCache) {
  const std::int64_t n = 257;
  auto S = ts::random<double>({n}, 1) * 25.0 + 5.0;
  auto X = ts::random<double>({n}, 2) * 99.0 + 1.0;
  auto T = ts::random<double>({n}, 3) * 9.75 + 0.25;
  auto call = ts::zeros<double>({n});
  auto put = ts::zeros<double>({n});
  auto grid = ts::random<double>({31, 29}, 4);
  auto center = grid(ts::slice(1, -1), ts::slice(1, -1));
  const int iters = 200;
  rt().flush();
  const ts::Stats before = rt().stats();
  for (int it = 0; it < iters; ++it) {
    black_scholes(S, X, T, call, put);
    center.assign(0.2 *
                  (center + grid(ts::slice(0, -2), ts::slice(1, -1)) + grid(ts::slice(1, -1), ts::slice(2, ts::end)) +
                   grid(ts::slice(1, -1), ts::slice(0, -2)) + grid(ts::slice(2, ts::end), ts::slice(1, -1))));
  }
  rt().flush();
  const ts::Stats after = rt().stats();
  const double hits = static_cast<double>(after.plan_cache_hits - before.plan_cache_hits);
  const double misses = static_cast<double>(after.plan_cache_misses - before.plan_cache_misses);
  EXPECT_GE(hits / (hits + misses), 0.95) << "hits " << hits << " misses " << misses;
}

TEST_F(FusionTest, FusedMatchesUnfusedOnMixedProgram) {
  // Reductions feeding later ops, in-place updates through views, temporaries that die.
  const std::int64_t n = 41;
  auto a = ts::random<double>({n}, 11);
  auto b = ts::arange<int32_t>(n);
  auto c = ts::where(a > 0.5, a * b, -a);
  auto mean = ts::mean(c);
  c -= mean;
  c(ts::slice(1, ts::end)).assign(c(ts::slice(0, -1)) + 1.0);
  auto s = ts::sum(c * c) / ts::max(ts::abs(c));
  std::vector<double> ah = a.to_host(), ch(n);
  double m = 0;
  for (std::int64_t i = 0; i < n; ++i) ch[i] = ah[i] > 0.5 ? ah[i] * double(i) : -ah[i], m += ch[i];
  m /= double(n);
  for (auto& v : ch) v -= m;
  std::vector<double> shifted = ch;
  for (std::int64_t i = 1; i < n; ++i) shifted[i] = ch[i - 1] + 1.0;
  double ss = 0, mx = 0;
  for (double v : shifted) ss += v * v, mx = std::max(mx, std::abs(v));
  EXPECT_TRUE(close(c.to_host(), shifted, 1e-12));
  EXPECT_NEAR(s.item(), ss / mx, 1e-12 * std::max(1.0, ss / mx));
}

TEST_F(FusionTest, SteadyStateLoopsAllocateNothing) {
  // Buffers (materialized intermediates, halo and redistribution buffers) come from the memory
  // pool: once a loop has run, further iterations allocate no device memory.
  const std::int64_t n = 29;
  auto grid = ts::random<double>({n, n}, 6);
  auto center = grid(ts::slice(1, -1), ts::slice(1, -1));
  auto other = ts::random<double>({n + 3}, 7);
  auto longer = ts::random<double>({2 * n}, 8);
  auto sink = ts::zeros<double>({n});
  auto iteration = [&] {
    center.assign(0.2 *
                  (center + grid(ts::slice(0, -2), ts::slice(1, -1)) + grid(ts::slice(1, -1), ts::slice(2, ts::end)) +
                   grid(ts::slice(1, -1), ts::slice(0, -2)) + grid(ts::slice(2, ts::end), ts::slice(1, -1))));
    sink.assign(other(ts::slice(0, n)) + longer(ts::slice(n, 2 * n)));  // different tilings: redistribution
    sink /= ts::max(ts::abs(sink));                                     // a reduction feeding the loop
    rt().flush();
  };
  for (int it = 0; it < 3; ++it) iteration();
  const ts::Stats before = rt().stats();
  for (int it = 0; it < 5; ++it) iteration();
  const ts::Stats after = rt().stats();
  EXPECT_EQ(after.stores_allocated - before.stores_allocated, 0);
  EXPECT_GE(after.kernels - before.kernels, 5);
}

// The timed loops of tessera-bench, as it runs them: inputs recorded and not flushed before the
// loop, three warm-up iterations and a flush, then rounds that each end with a flush (4, 4, 40
// iterations: past window boundaries, window growth and the window's limit of one kernel per
// iteration). After the warm-up nothing allocates: no pool miss, no new program.
const int kRounds[] = {4, 4, 40};

TEST_F(FusionTest, SteadyBlackScholesLoopAllocatesNothing) {
  const std::int64_t n = 1001;
  auto S = ts::random<double>({n}, 1) * 25.0 + 5.0;
  auto X = ts::random<double>({n}, 2) * 99.0 + 1.0;
  auto T = ts::random<double>({n}, 3) * 9.75 + 0.25;
  auto call = ts::zeros<double>({n});
  auto put = ts::zeros<double>({n});
  // The setup shares the first windows with the loop: they still find its period (rule 7), so
  // that the warm-up already runs the kernel of one iteration that the later windows run.
  for (int it = 0; it < 3; ++it) black_scholes(S, X, T, call, put);
  rt().flush();
  const ts::Stats before = rt().stats();
  int iters = 0;
  for (int round : kRounds) {
    for (int it = 0; it < round; ++it) black_scholes(S, X, T, call, put);
    rt().flush();
    iters += round;
  }
  const ts::Stats after = rt().stats();
  EXPECT_EQ(after.stores_allocated - before.stores_allocated, 0);
  EXPECT_EQ(after.kernels - before.kernels, iters);  // one kernel per iteration
  EXPECT_EQ(all_sum(after.bytes_accessed - before.bytes_accessed), 5 * n * 8 * iters);

  expect_black_scholes_prices(S, X, T, call, put);
}

// tessera-bench's CG: the matrix-free 5-point Laplacian, two vdot reductions per iteration, alpha
// and beta 0-d arrays on the device. A window holds several iterations, each with its own reduction
// results: their buffers go back to the pool once the kernels reading them are enqueued, so the
// warm-up's buffers serve windows of any length.
TEST_F(FusionTest, SteadyConjugateGradientLoopAllocatesNothing) {
  const std::int64_t n = 34;
  auto inner = [](const ts::Array<double>& a) { return a(ts::slice(1, -1), ts::slice(1, -1)); };
  auto laplacian = [&](const ts::Array<double>& u) {
    return 4.0 * inner(u) - u(ts::slice(0, -2), ts::slice(1, -1)) - u(ts::slice(2, ts::end), ts::slice(1, -1)) -
           u(ts::slice(1, -1), ts::slice(0, -2)) - u(ts::slice(1, -1), ts::slice(2, ts::end));
  };
  auto b = ts::zeros<double>({n, n});
  inner(b).assign(inner(ts::random<double>({n, n}, 4)));
  auto x = ts::zeros<double>({n, n});
  auto r = ts::copy(b);
  auto p = ts::copy(b);
  auto rr = ts::vdot(inner(r), inner(r));
  const double rr0 = rr.item();
  auto step = [&] {
    auto q = laplacian(p);
    auto alpha = rr / ts::vdot(inner(p), q);
    inner(x) += alpha * inner(p);
    inner(r) -= alpha * q;
    auto rr_new = ts::vdot(inner(r), inner(r));
    inner(p).assign(inner(r) + (rr_new / rr) * inner(p));
    rr = rr_new;
  };
  for (int it = 0; it < 3; ++it) step();
  rt().flush();
  const ts::Stats before = rt().stats();
  int iters = 0;
  for (int round : kRounds) {
    for (int it = 0; it < round; ++it) step();
    rt().flush();
    iters += round;
  }
  const ts::Stats after = rt().stats();
  EXPECT_EQ(after.stores_allocated - before.stores_allocated, 0);
  EXPECT_GE(after.kernels - before.kernels, iters);

  // The same iterations on the host (reductions in another order: a loose tolerance).
  std::vector<double> hb = b.to_host(), hx(n * n, 0.0), hr = hb, hp = hb, hq(n * n, 0.0);
  auto dot = [&](const std::vector<double>& u, const std::vector<double>& v) {
    double sum = 0;
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < n - 1; ++j) sum += u[i * n + j] * v[i * n + j];
    return sum;
  };
  double hrr = dot(hr, hr);
  EXPECT_NEAR(rr0, hrr, 1e-12 * hrr);
  for (int it = 0; it < 3 + iters; ++it) {
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < n - 1; ++j)
        hq[i * n + j] =
            4.0 * hp[i * n + j] - hp[(i - 1) * n + j] - hp[(i + 1) * n + j] - hp[i * n + j - 1] - hp[i * n + j + 1];
    const double alpha = hrr / dot(hp, hq);
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < n - 1; ++j) {
        hx[i * n + j] += alpha * hp[i * n + j];
        hr[i * n + j] -= alpha * hq[i * n + j];
      }
    const double rr_new = dot(hr, hr);
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < n - 1; ++j) hp[i * n + j] = hr[i * n + j] + (rr_new / hrr) * hp[i * n + j];
    hrr = rr_new;
  }
  double scale = 0;
  for (double v : hx) scale = std::max(scale, std::abs(v));
  const std::vector<double> got = x.to_host();
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - hx[i]));
  EXPECT_LE(worst, 1e-9 * scale);
}

// tessera-bench's shallow_water: a Lax-Wendroff step with reflective boundaries (12 boundary
// strips, the half steps over shifted views, three in-place updates): 120 ops per iteration,
// longer than a window (64 ops), so the window cannot see the loop's period by itself. Once the
// stream shows it (two iterations), the window grows to hold one iteration, whose interior is
// then one kernel renaming H, U and V (their second buffers allocated once). Windows must start
// at the same places in every iteration, whatever the setup recorded before the loop: after the
// warm-up, no new plan, no new program, no pool miss.
TEST_F(FusionTest, SteadyShallowWaterLoopAllocatesNothing) {
  const std::int64_t n = 30, m = n + 2;
  const ShallowWater w;
  // The setup, recorded unflushed as tessera-bench records it.
  auto H = 1.0 + 0.1 * ts::random<double>({m, m}, 16);
  auto U = 0.01 * (ts::random<double>({m, m}, 17) - 0.5);
  auto V = 0.01 * (ts::random<double>({m, m}, 18) - 0.5);
  const int warmup = 5;
  for (int it = 0; it < warmup; ++it) shallow_water_step(H, U, V, n, w);
  rt().flush();
  const ts::Stats before = rt().stats();
  int iters = 0;
  std::vector<std::int64_t> kernels;
  ts::Stats first_round;
  for (int round : kRounds) {
    const std::int64_t k0 = rt().stats().kernels;
    for (int it = 0; it < round; ++it) shallow_water_step(H, U, V, n, w);
    rt().flush();
    kernels.push_back(rt().stats().kernels - k0);
    if (iters == 0) first_round = rt().stats();
    iters += round;
  }
  const ts::Stats after = rt().stats();
  EXPECT_EQ(after.stores_allocated - before.stores_allocated, 0);
  EXPECT_EQ(after.kernel_compiles - before.kernel_compiles, 0);
  // The period (2 x 120 ops) is found inside the warm-up, which then ends in a flush: the first
  // round may still plan a window of the second half of an iteration (whose kernels the warm-up
  // built), never again after it.
  EXPECT_LE(first_round.plan_cache_misses - before.plan_cache_misses, 1);
  EXPECT_EQ(after.plan_cache_misses - first_round.plan_cache_misses, 0);
  // Rounds of the same length run the same kernels.
  EXPECT_EQ(kernels[0], kernels[1]) << "kernels per round: " << kernels[0] << ", " << kernels[1] << ", " << kernels[2];

  const auto h0 = ts::random<double>({m, m}, 16).to_host(), u0 = ts::random<double>({m, m}, 17).to_host(),
             v0 = ts::random<double>({m, m}, 18).to_host();
  Host2 hH{m, m, h0}, hU{m, m, u0}, hV{m, m, v0};
  for (std::int64_t i = 0; i < m * m; ++i)
    hH.v[i] = 1.0 + 0.1 * h0[i], hU.v[i] = 0.01 * (u0[i] - 0.5), hV.v[i] = 0.01 * (v0[i] - 0.5);
  for (int it = 0; it < warmup + iters; ++it) host_shallow_water_step(hH, hU, hV, n, w);
  EXPECT_TRUE(close(H.to_host(), hH.v, 1e-11));
  EXPECT_TRUE(close(U.to_host(), hU.v, 1e-11));
  EXPECT_TRUE(close(V.to_host(), hV.v, 1e-11));
}

TEST_F(FusionTest, GroupsWiderThanTheArgumentLimitAreSplit) {
  // 70 distinct inputs in one expression: more than one kernel's argument table (64) holds.
  const std::int64_t n = 37;
  const int inputs = 70;
  std::vector<ts::Array<double>> a;
  for (int k = 0; k < inputs; ++k) a.push_back(ts::random<double>({n}, 100 + k));
  rt().flush();
  const ts::Stats before = rt().stats();
  auto total = a[0] * 1.0;
  for (int k = 1; k < inputs; ++k) total = total + double(k + 1) * a[k];
  std::vector<double> got = total.to_host();
  const ts::Stats after = rt().stats();
  EXPECT_GE(after.kernels - before.kernels, 2);
  std::vector<double> expect(n, 0.0);
  for (int k = 0; k < inputs; ++k) {
    std::vector<double> h = a[k].to_host();
    for (std::int64_t i = 0; i < n; ++i) expect[i] += double(k + 1) * h[i];
  }
  EXPECT_TRUE(close(got, expect, 1e-12));
}

// Two windows share a plan when their canonical words are equal, so a view's fields must enter
// them exactly: an assign into x[0:62] and one into z[1:32] once hashed alike (origin * 31 +
// extent is 62 for both) and the second ran with the first's plan, writing z[0:62].
TEST_F(FusionTest, ViewsThatOnceHashedAlikeGetTheirOwnPlans) {
  const std::int64_t n = 100;
  auto y = ts::random<double>({n}, 7);
  auto grid = ts::random<double>({n, 40}, 8);
  const std::vector<double> yh = y.to_host(), gh = grid.to_host();
  struct Range {
    std::int64_t start, stop;
  };
  // Pairs of (origin, extent) with origin * 31 + extent equal.
  const std::vector<std::pair<Range, Range>> pairs = {{{0, 62}, {1, 32}}, {{2, 64}, {3, 34}}, {{1, 32}, {0, 62}}};
  for (const auto& [first, second] : pairs) {
    for (const Range& r : {first, second}) {
      auto x = ts::zeros<double>({n});
      x(ts::slice(r.start, r.stop)).assign(y(ts::slice(r.start, r.stop)));
      auto m = ts::zeros<double>({n, 40});
      m(ts::slice(r.start, r.stop), ts::slice(1, 3)).assign(grid(ts::slice(r.start, r.stop), ts::slice(1, 3)));
      rt().flush();
      std::vector<double> want_x(n, 0.0), want_m(n * 40, 0.0);
      for (std::int64_t i = r.start; i < r.stop; ++i) {
        want_x[i] = yh[i];
        for (std::int64_t j = 1; j < 3; ++j) want_m[i * 40 + j] = gh[i * 40 + j];
      }
      EXPECT_EQ(x.to_host(), want_x) << "x[" << r.start << ":" << r.stop << "]";
      EXPECT_EQ(m.to_host(), want_m) << "m[" << r.start << ":" << r.stop << ", 1:3]";
    }
  }
}

// Windows that differ only in their views, one after another: each must run with a plan of its
// own views (random slices with steps, 1-D and 2-D, every assign in a window of its own).
TEST_F(FusionTest, WindowsThatDifferOnlyInTheirViewsMatchTheHost) {
  const std::int64_t n = 97, rows = 23, cols = 19;
  auto src = ts::random<double>({n}, 11);
  auto grid_src = ts::random<double>({rows, cols}, 12);
  auto x = ts::zeros<double>({n});
  auto m = ts::zeros<double>({rows, cols});
  std::vector<double> want_x(n, 0.0), want_m(rows * cols, 0.0);
  const std::vector<double> sh = src.to_host(), gh = grid_src.to_host();
  std::mt19937 gen(5);
  auto pick = [&](std::int64_t extent, std::int64_t& start, std::int64_t& stop, std::int64_t& step) {
    start = std::uniform_int_distribution<std::int64_t>(0, extent - 1)(gen);
    stop = std::uniform_int_distribution<std::int64_t>(start + 1, extent)(gen);
    step = std::uniform_int_distribution<std::int64_t>(1, 3)(gen);
  };
  for (int it = 0; it < 40; ++it) {
    std::int64_t a, b, s, c, d, t;
    pick(n, a, b, s);
    x(ts::slice(a, b, s)).assign(src(ts::slice(a, b, s)) + static_cast<double>(it));
    rt().flush();
    for (std::int64_t i = a; i < b; i += s) want_x[i] = sh[i] + it;
    pick(rows, a, b, s);
    pick(cols, c, d, t);
    m(ts::slice(a, b, s), ts::slice(c, d, t)).assign(grid_src(ts::slice(a, b, s), ts::slice(c, d, t)) * 2.0);
    rt().flush();
    for (std::int64_t i = a; i < b; i += s)
      for (std::int64_t j = c; j < d; j += t) want_m[i * cols + j] = gh[i * cols + j] * 2.0;
  }
  EXPECT_EQ(x.to_host(), want_x);
  EXPECT_EQ(m.to_host(), want_m);
}
