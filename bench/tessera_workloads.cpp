// tessera's versions of the workloads, written as an application would write them.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

// The halo workload drives the exchange directly, through the executor's own path.
#include <tessera/comm/exchange.hpp>
#include <tessera/fusion/runtime_state.hpp>
#include <tessera/sparse/csr_data.hpp>

#include "measure.hpp"
#include "systems.hpp"
#include "workloads.hpp"

namespace ts = tessera;

namespace bench::tessera_system {

namespace {

ts::Array<double> inner(const ts::Array<double>& a) { return a(ts::slice(1, -1), ts::slice(1, -1)); }

// The 5-point Laplacian of u over the interior: 4u - north - south - west - east.
ts::Array<double> laplacian(const ts::Array<double>& u) {
  return 4.0 * inner(u) - u(ts::slice(0, -2), ts::slice(1, -1)) - u(ts::slice(2, ts::end), ts::slice(1, -1)) -
         u(ts::slice(1, -1), ts::slice(0, -2)) - u(ts::slice(1, -1), ts::slice(2, ts::end));
}

ts::Array<double> cnd(const ts::Array<double>& d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  auto k = 1.0 / (1.0 + 0.2316419 * ts::abs(d));
  auto tail =
      0.39894228040143267793994605993438 * ts::exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return ts::where(d > 0.0, 1.0 - tail, tail);
}

}  // namespace

// Per-op host cost on tiny arrays: recording, plan-cache lookup and launch dominate.
Result overhead(ts::Runtime& rt, const Options& o) {
  const int chain = 24;
  auto x = ts::random<double>({o.n}, 1);
  auto y = ts::random<double>({o.n}, 2);
  std::vector<double> xh = x.to_host(), yh = y.to_host();
  Result r;
  // us_per_op includes the flush, which waits for the device (a launch, the kernel and a fence
  // on a GPU); the recording alone is timed apart, over the timed iterations (after the warm-up).
  using clock = std::chrono::steady_clock;
  int calls = 0;
  double recording_s = 0;
  measure(rt, o, r, [&] {
    const auto start = clock::now();
    for (int k = 0; k < chain / 3; ++k) x.assign(x * 0.5 + y);  // 3 ops: multiply, add, assign
    if (++calls > o.warmup) recording_s += std::chrono::duration<double>(clock::now() - start).count();
    rt.flush();
  });
  r.ops_per_iter = chain;
  if (calls > o.warmup) r.record_us_per_op = max_over_ranks(1e6 * recording_s / ((calls - o.warmup) * chain));
  r.min_bytes_per_iter = 3.0 * 8.0 * static_cast<double>(o.n) * chain / 3;
  // x_{k+1} = 0.5 x_k + y, applied (warmup + iters) * chain/3 times.
  const int steps = (o.warmup + o.iters) * chain / 3;
  for (int s = 0; s < steps; ++s)
    for (std::size_t i = 0; i < xh.size(); ++i) xh[i] = xh[i] * 0.5 + yh[i];
  std::vector<double> got = x.to_host();
  Check c{true, true, std::to_string(got.size()) + " elements match the host"};
  for (std::size_t i = 0; i < xh.size(); ++i)
    c.ok = c.ok && std::abs(got[i] - xh[i]) <= 1e-12 * std::max(1.0, std::abs(xh[i]));
  if (!c.ok) c.detail = "differs from the host";
  set_check(r, c);
  return r;
}

// A long elementwise chain over large arrays: bandwidth, and how much fusion saves.
Result chain(ts::Runtime& rt, const Options& o) {
  const int length = 16;
  auto a = ts::random<double>({o.n}, 3);
  auto out = ts::zeros<double>({o.n});
  Result r;
  measure(rt, o, r, [&] {
    auto y = a * 1.0;
    for (int k = 0; k < length; ++k) y = y * 0.999 + 0.001 * a;
    out.assign(y);
    rt.flush();
  });
  r.ops_per_iter = 1 + 3 * length + 1;
  r.min_bytes_per_iter = 2.0 * 8.0 * static_cast<double>(o.n);
  std::vector<double> ah = a.to_host(), got = out.to_host();
  Check c{true, true, "97 sampled elements match the host"};
  for (std::size_t i = 0; i < ah.size(); i += std::max<std::size_t>(1, ah.size() / 97)) {
    double y = ah[i];
    for (int k = 0; k < length; ++k) y = y * 0.999 + 0.001 * ah[i];
    if (!(std::abs(got[i] - y) <= 1e-12 * std::max(1.0, std::abs(y))))
      c = {false, true, "element " + std::to_string(i)};
  }
  set_check(r, c);
  r.checksum = ts::sum(out).item();
  return r;
}

// cuNumeric stencil.py: in-place 5-point average; no synchronization inside the timed loop, so
// the op window (TESSERA_WINDOW) decides how work is batched.
Result stencil(ts::Runtime& rt, const Options& o) {
  const std::int64_t rows = o.rows, cols = o.n;
  auto grid = ts::random<double>({rows, cols}, stencil::kSeed);
  auto center = grid(ts::slice(1, -1), ts::slice(1, -1));
  auto north = grid(ts::slice(0, -2), ts::slice(1, -1));
  auto east = grid(ts::slice(1, -1), ts::slice(2, ts::end));
  auto west = grid(ts::slice(1, -1), ts::slice(0, -2));
  auto south = grid(ts::slice(2, ts::end), ts::slice(1, -1));
  Result r;
  measure(rt, o, r, [&] { center.assign(0.2 * (center + north + east + west + south)); });
  r.ops_per_iter = 6;
  r.min_bytes_per_iter = stencil::kBytesPerPoint * static_cast<double>((rows - 2) * (cols - 2));
  set_check(r, stencil::check(rows, cols, o.warmup + o.iters, rt.size(),
                              [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
                                return grid(ts::slice(r0, r1), ts::slice(c0, c1)).to_host();
                              }));
  r.checksum = ts::sum(grid).item();
  return r;
}

// cuNumeric's Black-Scholes over n options into preallocated outputs.
Result black_scholes(ts::Runtime& rt, const Options& o) {
  namespace bs = bench::black_scholes;
  const double R = bs::kRate, V = bs::kVolatility;
  auto S = ts::random<double>({o.n}, bs::kSeedS) * 25.0 + 5.0;
  auto X = ts::random<double>({o.n}, bs::kSeedX) * 99.0 + 1.0;
  auto T = ts::random<double>({o.n}, bs::kSeedT) * 9.75 + 0.25;
  auto call = ts::zeros<double>({o.n});
  auto put = ts::zeros<double>({o.n});
  Result r;
  measure(rt, o, r, [&] {
    auto sqrt_t = ts::sqrt(T);
    auto d1 = ts::log(S / X) + (R + 0.5 * V * V) * T / (V * sqrt_t);
    auto d2 = d1 - V * sqrt_t;
    auto cnd_d1 = cnd(d1);
    auto cnd_d2 = cnd(d2);
    auto exp_rt = ts::exp(-R * T);
    call.assign(S * cnd_d1 - X * exp_rt * cnd_d2);
    put.assign(X * exp_rt * (1.0 - cnd_d2) - S * (1.0 - cnd_d1));
  });
  r.ops_per_iter = 63;
  r.min_bytes_per_iter = bs::kBytesPerOption * static_cast<double>(o.n);
  // Samples at the start, in the middle and at the end (the first and the last rank's tiles).
  const std::int64_t k = std::min<std::int64_t>(o.n / 3, 256);
  std::vector<std::int64_t> index;
  std::vector<double> c, p;
  for (std::int64_t start : {std::int64_t(0), o.n / 2, o.n - k}) {
    std::vector<double> cs = call(ts::slice(start, start + k)).to_host(),
                        ps = put(ts::slice(start, start + k)).to_host();
    c.insert(c.end(), cs.begin(), cs.end());
    p.insert(p.end(), ps.begin(), ps.end());
    for (std::int64_t i = start; i < start + k; ++i) index.push_back(i);
  }
  set_check(r, bs::check_sample(index, c, p));
  r.checksum = (ts::sum(call) + ts::sum(put)).item();
  return r;
}

// CG with a fixed iteration count; nothing in an iteration waits for the device (alpha and
// beta stay 0-d arrays on the device).
Result cg(ts::Runtime& rt, const Options& o) {
  const std::int64_t rows = o.rows, cols = o.n;
  auto b = ts::zeros<double>({rows, cols});
  inner(b).assign(inner(ts::random<double>({rows, cols}, cg::kSeed)));
  auto x = ts::zeros<double>({rows, cols});
  auto r = ts::copy(b);
  auto p = ts::copy(b);
  auto rr = ts::vdot(inner(r), inner(r));
  cg::Final f;
  f.rr0 = rr.item();
  Result res;
  // One step; q = A p lives as long as the step, as in cuPyNumeric's cg.py and the JAX peer, so
  // that tessera may recompute it where it is used instead of storing it.
  auto step = [&] {
    auto q = laplacian(p);
    auto alpha = rr / ts::vdot(inner(p), q);
    inner(x) += alpha * inner(p);
    inner(r) -= alpha * q;
    auto rr_new = ts::vdot(inner(r), inner(r));
    inner(p).assign(inner(r) + (rr_new / rr) * inner(p));
    rr = rr_new;
  };
  measure(rt, o, res, step);
  res.ops_per_iter = 15;
  res.min_bytes_per_iter = cg::kBytesPerPoint * static_cast<double>((rows - 2) * (cols - 2));
  f.rr = rr.item();
  auto residual = inner(b) - laplacian(x);
  f.rr_true = ts::vdot(residual, residual).item();
  f.energy = -0.5 * (ts::vdot(inner(x), inner(b)) + ts::vdot(inner(x), residual)).item();
  // The timed steps keep no q: the next step's q = A p and direction p', computed apart (the
  // state checked below stays), give the conjugacy p'.q of the sequence, as the JAX peer does.
  auto q = laplacian(p);
  auto r_next = inner(r) - (rr / ts::vdot(inner(p), q)) * q;
  auto p_next = r_next + (ts::vdot(r_next, r_next) / rr) * inner(p);
  f.conjugacy = (ts::vdot(p_next, q) / (ts::norm(p_next) * ts::norm(q))).item();
  auto block = [](const ts::Array<double>& a) {
    return [a](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
      return a(ts::slice(r0, r1), ts::slice(c0, c1)).to_host();
    };
  };
  f.x = block(x);
  f.r = block(r);
  set_check(res, cg::check(rows, cols, o.warmup + o.iters, rt.size(), f));
  res.checksum = f.rr;
  return res;
}

// cg's problem with the Laplacian as a CSR matrix (workloads.hpp, sparse_cg): each rank builds its
// block of rows and hands it to csr_from_rows, so construction scales with the ranks. tessera's
// CSR keeps int32 row pointers and column indices (local to the rank's tile of x and its ghosts:
// docs/LINALG.md) below 2^31 nonzeros and columns per rank, as here at any size the GPU holds.
// The iteration is cg's, on 1-D vectors of the rows x cols unknowns; nothing in it waits for the
// device.
Result sparse_cg(ts::Runtime& rt, const Options& o) {
  const std::int64_t rows = o.rows, cols = o.n, size = rows * cols;
  const std::int64_t lo = size / rt.size() * rt.rank() + std::min<std::int64_t>(rt.rank(), size % rt.size());
  const std::int64_t hi = lo + size / rt.size() + (rt.rank() < size % rt.size() ? 1 : 0);
  ts::CsrMatrix<double> A;
  {
    std::vector<std::int64_t> indptr, indices;
    std::vector<double> values;
    sparse_cg::poisson_rows(rows, cols, lo, hi, indptr, indices, values);
    A = ts::csr_from_rows<double>({size, size}, lo, indptr, indices, values);
  }
  // b: the interior of cg's random grid, flattened (the same numbers as cg's b).
  auto b = ts::reshape(inner(ts::random<double>({rows + 2, cols + 2}, cg::kSeed)), {size});
  auto x = ts::zeros<double>({size});
  auto r = ts::copy(b);
  auto p = ts::copy(b);
  auto rr = ts::vdot(r, r);
  cg::Final f;
  f.rr0 = rr.item();
  Result res;
  auto step = [&] {
    auto q = ts::matmul(A, p);
    auto alpha = rr / ts::vdot(p, q);
    x += alpha * p;
    r -= alpha * q;
    auto rr_new = ts::vdot(r, r);
    p.assign(r + (rr_new / rr) * p);
    rr = rr_new;
  };
  measure(rt, o, res, step);
  res.ops_per_iter = 12;
  res.min_bytes_per_iter = sparse_cg::min_bytes(rows, cols);
  f.rr = rr.item();
  auto residual = b - ts::matmul(A, x);
  f.rr_true = ts::vdot(residual, residual).item();
  f.energy = -0.5 * (ts::vdot(x, b) + ts::vdot(x, residual)).item();
  auto q = ts::matmul(A, p);
  auto r_next = r - (rr / ts::vdot(p, q)) * q;
  auto p_next = r_next + (ts::vdot(r_next, r_next) / rr) * p;
  f.conjugacy = (ts::vdot(p_next, q) / (ts::norm(p_next) * ts::norm(q))).item();
  // cg's checks read blocks of the (rows + 2) x (cols + 2) grid, whose boundary is zero.
  auto block = [rows, cols](const ts::Array<double>& a) {
    return [a, rows, cols](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
      std::vector<double> out(static_cast<std::size_t>((r1 - r0) * (c1 - c0)), 0.0);
      const std::int64_t i0 = std::max<std::int64_t>(r0, 1), i1 = std::min(r1, rows + 1);
      const std::int64_t j0 = std::max<std::int64_t>(c0, 1), j1 = std::min(c1, cols + 1);
      if (i0 >= i1) return out;
      const std::vector<double> h = a(ts::slice((i0 - 1) * cols, (i1 - 1) * cols)).to_host();
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = j0; j < j1; ++j) out[(i - r0) * (c1 - c0) + j - c0] = h[(i - i0) * cols + j - 1];
      return out;
    };
  };
  f.x = block(x);
  f.r = block(r);
  set_check(res, cg::check(rows + 2, cols + 2, o.warmup + o.iters, rt.size(), f));
  // The index widths the CSR chose on this rank (docs/LINALG.md).
  const ts::detail::CsrBlock& owned = A.impl()->owned;
  const auto width = [](ts::detail::IndexWidth w) { return w == ts::detail::IndexWidth::Int32 ? "int32" : "int64"; };
  res.check_detail += "; " + std::to_string(A.nnz()) + " nonzeros (" + width(owned.row_width) + " row pointers, " +
                      width(owned.width) + " column indices)";
  res.checksum = f.rr;
  return res;
}

// The halo exchange alone: a 1-wide halo on every side of this rank's tile of an n x n float64
// grid, through detail::fetch (pack kernels, one grouped exchange, unpack kernels), as the
// executor does before a stencil; each iteration waits for the device. gbps: bytes received.
Result halo(ts::Runtime& rt, const Options& o) {
  namespace td = tessera::detail;
  const std::int64_t n = o.n;
  auto u = ts::random<double>({n, n}, 9);
  std::vector<double> global = u.to_host();
  td::Store& s = *u.impl().store;
  td::RuntimeState& state = td::runtime();
  const td::ProcessGrid& grid = state.grid(2);
  const td::Index3 width{1, 1, 0};
  s.ensure_ghosts(width, width);
  std::vector<td::FetchRequest> requests(1);
  requests[0] = td::FetchRequest{&s, {}, s.data(), s.layout(), true};
  for (int q = 0; q < rt.size(); ++q)
    requests[0].needed.push_back(td::intersect(td::bloat(s.tiling().tile(grid.coords(q)), width, width), s.full()));
  std::int64_t received = 0;
  Result r;
  measure(rt, o, r, [&] {
    received = td::fetch(state.comm(), grid, requests, "tessera::halo[bench]");
    rt.flush();
  });
  r.ops_per_iter = 1;
  r.halo_bytes = sum_over_ranks(static_cast<double>(received));
  r.min_bytes_per_iter = r.halo_bytes;
  // Every cell of this rank's bloated tile (ghosts included) equals the global array.
  const td::Box need = requests[0].needed[rt.rank()];
  const td::Layout layout = s.layout();
  std::vector<double> local(static_cast<std::size_t>(s.allocated().volume()));
  Kokkos::deep_copy(
      Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(local.data(), local.size()),
      Kokkos::View<double*, td::MemSpace, Kokkos::MemoryUnmanaged>(reinterpret_cast<double*>(s.data()), local.size()));
  Check c{true, true, "every cell of each rank's tile and halo equals the global array"};
  for (std::int64_t i = need.lo[0]; i < need.hi[0]; ++i)
    for (std::int64_t j = need.lo[1]; j < need.hi[1]; ++j)
      if (local[layout.offset({i, j, 0})] != global[i * n + j])
        c = {false, true, "cell " + std::to_string(i) + ", " + std::to_string(j)};
  set_check(r, c);
  return r;
}

}  // namespace bench::tessera_system
