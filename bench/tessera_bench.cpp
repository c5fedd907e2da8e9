// tessera-bench: measurements of tessera on its own workloads. Each measurement prints one JSON
// line (--json) or a table row; validation failures exit non-zero. Progress goes to stderr.
//
//   tessera-bench overhead --n 16 --iters 2000 --fusion on --json
//   mpirun -n 2 tessera-bench chain --n 1048576 --iters 20
//   mpirun -n 2 tessera-bench halo --n 16384 --iters 100

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>
// The halo workload drives the exchange directly, through the executor's own path.
#include <tessera/comm/exchange.hpp>
#include <tessera/core/runtime_state.hpp>

namespace ts = tessera;

namespace {

struct Options {
  std::string workload;
  std::int64_t n = 0;
  int iters = 0;
  int warmup = 3;
  bool fusion = true;
  bool json = false;
};

struct Result {
  double ms_per_iter = 0, ms_per_iter_min = 0;
  double min_bytes_per_iter = 0;  // the bytes a perfect implementation must move
  double ops_per_iter = 0;
  ts::Stats delta;
  int iters = 0;
  bool check = false;
  std::string note;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "tessera-bench: %s\nusage: tessera-bench overhead|chain|stencil|halo|black_scholes [--n N] [--iters K] "
               "[--warmup W] "
               "[--fusion on|off] [--json]\n",
               why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("missing workload");
  o.workload = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    auto integer = [&](const std::string& v) {
      char* end = nullptr;
      long long x = std::strtoll(v.c_str(), &end, 10);
      if (!end || *end || x <= 0) usage(("bad value for " + a + ": " + v).c_str());
      return x;
    };
    if (a == "--n")
      o.n = integer(value());
    else if (a == "--iters")
      o.iters = static_cast<int>(integer(value()));
    else if (a == "--warmup")
      o.warmup = static_cast<int>(integer(value()));
    else if (a == "--fusion") {
      std::string v = value();
      if (v != "on" && v != "off") usage("--fusion takes on or off");
      o.fusion = v == "on";
    } else if (a == "--json")
      o.json = true;
    else
      usage(("unknown option " + a).c_str());
  }
  return o;
}

ts::Stats minus(const ts::Stats& a, const ts::Stats& b) {
  ts::Stats d;
  d.ops = a.ops - b.ops;
  d.kernels = a.kernels - b.kernels;
  d.halo_exchanges = a.halo_exchanges - b.halo_exchanges;
  d.halo_bytes = a.halo_bytes - b.halo_bytes;
  d.stores_allocated = a.stores_allocated - b.stores_allocated;
  d.bytes_accessed = a.bytes_accessed - b.bytes_accessed;
  d.plan_cache_hits = a.plan_cache_hits - b.plan_cache_hits;
  d.plan_cache_misses = a.plan_cache_misses - b.plan_cache_misses;
  return d;
}

// Times `iteration` (which must end with rt.flush() or a synchronizing call) per iteration.
template <class Body>
Result time_loop(ts::Runtime& rt, const Options& o, Body iteration) {
  for (int i = 0; i < o.warmup; ++i) iteration();
  rt.flush();
  Result r;
  r.iters = o.iters;
  const ts::Stats before = rt.stats();
  std::vector<double> times;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < o.iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    iteration();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (rt.rank() == 0 && o.iters >= 10 && (i + 1) % (o.iters / 10) == 0)
      std::fprintf(stderr, "  %s: %d/%d\r", o.workload.c_str(), i + 1, o.iters);
  }
  rt.flush();
  const double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (rt.rank() == 0 && o.iters >= 10) std::fprintf(stderr, "\n");
  r.delta = minus(rt.stats(), before);
  r.ms_per_iter = total / o.iters;
  r.ms_per_iter_min = *std::min_element(times.begin(), times.end());
  return r;
}

// Per-op host cost on tiny arrays: recording, plan-cache lookup and launch dominate.
Result overhead(ts::Runtime& rt, const Options& o) {
  const int chain = 24;
  auto x = ts::random<double>({o.n}, 1);
  auto y = ts::random<double>({o.n}, 2);
  std::vector<double> xh = x.to_host(), yh = y.to_host();
  Result r = time_loop(rt, o, [&] {
    for (int k = 0; k < chain / 3; ++k) x.assign(x * 0.5 + y);  // 3 ops: multiply, add, assign
    rt.flush();
  });
  r.ops_per_iter = chain;
  r.min_bytes_per_iter = 3.0 * 8.0 * static_cast<double>(o.n) * chain / 3;
  // Check: x_{k+1} = 0.5 x_k + y, applied (warmup + iters) * chain/2 times.
  const int steps = (o.warmup + o.iters) * chain / 3;
  for (int s = 0; s < steps; ++s)
    for (std::size_t i = 0; i < xh.size(); ++i) xh[i] = xh[i] * 0.5 + yh[i];
  std::vector<double> got = x.to_host();
  r.check = true;
  for (std::size_t i = 0; i < xh.size(); ++i)
    r.check = r.check && std::abs(got[i] - xh[i]) <= 1e-12 * std::max(1.0, std::abs(xh[i]));
  return r;
}

// A long elementwise chain over large arrays: bandwidth, and how much fusion saves.
Result chain(ts::Runtime& rt, const Options& o) {
  const int length = 16;
  auto a = ts::random<double>({o.n}, 3);
  auto out = ts::zeros<double>({o.n});
  Result r = time_loop(rt, o, [&] {
    auto y = a * 1.0;
    for (int k = 0; k < length; ++k) y = y * 0.999 + 0.001 * a;
    out.assign(y);
    rt.flush();
  });
  r.ops_per_iter = 1 + 3 * length + 1;
  r.min_bytes_per_iter = 2.0 * 8.0 * static_cast<double>(o.n);
  // Check one element on the host.
  std::vector<double> ah = a.to_host(), got = out.to_host();
  r.check = true;
  for (std::size_t i = 0; i < ah.size(); i += std::max<std::size_t>(1, ah.size() / 97)) {
    double y = ah[i];
    for (int k = 0; k < length; ++k) y = y * 0.999 + 0.001 * ah[i];
    r.check = r.check && std::abs(got[i] - y) <= 1e-12 * std::max(1.0, std::abs(y));
  }
  return r;
}

// cuNumeric stencil.py: in-place 5-point average of an n x n grid; no synchronization inside
// the timed loop, so the op window (TESSERA_WINDOW) decides how work is batched.
Result stencil(ts::Runtime& rt, const Options& o) {
  const std::int64_t n = o.n;
  auto grid = ts::random<double>({n, n}, 5);
  std::vector<double> host = grid.to_host();
  auto center = grid(ts::slice(1, -1), ts::slice(1, -1));
  auto north = grid(ts::slice(0, -2), ts::slice(1, -1));
  auto east = grid(ts::slice(1, -1), ts::slice(2, ts::end));
  auto west = grid(ts::slice(1, -1), ts::slice(0, -2));
  auto south = grid(ts::slice(2, ts::end), ts::slice(1, -1));
  Result r = time_loop(rt, o, [&] { center.assign(0.2 * (center + north + east + west + south)); });
  r.ops_per_iter = 6;
  r.min_bytes_per_iter = 16.0 * static_cast<double>((n - 2) * (n - 2));
  // Check against the host (only for grids small enough to recompute quickly).
  r.check = true;
  if (n <= 512) {
    for (int it = 0; it < o.warmup + o.iters; ++it) {
      std::vector<double> next = host;
      for (std::int64_t i = 1; i < n - 1; ++i)
        for (std::int64_t j = 1; j < n - 1; ++j)
          next[i * n + j] = 0.2 * (host[i * n + j] + host[(i - 1) * n + j] + host[i * n + j + 1] + host[i * n + j - 1] +
                                   host[(i + 1) * n + j]);
      host = next;
    }
    std::vector<double> got = grid.to_host();
    for (std::size_t i = 0; i < got.size(); ++i)
      r.check = r.check && std::abs(got[i] - host[i]) <= 1e-12 * std::max(1.0, std::abs(host[i]));
  } else {
    r.note = "not validated (grid too large for the host check)";
  }
  return r;
}

// cuNumeric's Black-Scholes (R = 0.02, V = 0.3) over n options into preallocated outputs:
// 3 arrays read, 2 written, so at least 40 bytes per option. Validated on a sample of options.
double cnd_host(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double k = 1.0 / (1.0 + 0.2316419 * std::abs(d));
  const double tail = 0.39894228040143267793994605993438 * std::exp(-0.5 * d * d) *
                      (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0.0 ? 1.0 - tail : tail;
}

ts::Array<double> cnd(const ts::Array<double>& d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  auto k = 1.0 / (1.0 + 0.2316419 * ts::abs(d));
  auto tail =
      0.39894228040143267793994605993438 * ts::exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return ts::where(d > 0.0, 1.0 - tail, tail);
}

Result black_scholes(ts::Runtime& rt, const Options& o) {
  const double R = 0.02, V = 0.3;
  auto S = ts::random<double>({o.n}, 1) * 25.0 + 5.0;
  auto X = ts::random<double>({o.n}, 2) * 99.0 + 1.0;
  auto T = ts::random<double>({o.n}, 3) * 9.75 + 0.25;
  auto call = ts::zeros<double>({o.n});
  auto put = ts::zeros<double>({o.n});
  Result r = time_loop(rt, o, [&] {
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
  r.min_bytes_per_iter = 40.0 * static_cast<double>(o.n);
  // The first and the last options (the first and the last rank's tiles).
  const std::int64_t k = std::min<std::int64_t>(o.n, 512);
  auto sample = [&](const ts::Array<double>& a) {
    std::vector<double> head = a(ts::slice(0, k)).to_host(), tail = a(ts::slice(o.n - k, ts::end)).to_host();
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  std::vector<double> s = sample(S), x = sample(X), t = sample(T), c = sample(call), p = sample(put);
  r.check = !s.empty();
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double sq = std::sqrt(t[i]);
    const double d1 = std::log(s[i] / x[i]) + (R + 0.5 * V * V) * t[i] / (V * sq), d2 = d1 - V * sq;
    const double e = std::exp(-R * t[i]);
    const double cr = s[i] * cnd_host(d1) - x[i] * e * cnd_host(d2);
    const double pr = x[i] * e * (1.0 - cnd_host(d2)) - s[i] * (1.0 - cnd_host(d1));
    r.check = r.check && std::abs(c[i] - cr) <= 1e-9 * std::max(1.0, std::abs(cr)) &&
              std::abs(p[i] - pr) <= 1e-9 * std::max(1.0, std::abs(pr));
  }
  return r;
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
  Result r = time_loop(rt, o, [&] {
    received = td::fetch(state.comm(), grid, requests, "tessera::halo[bench]");
    rt.flush();
  });
  r.ops_per_iter = 1;
  r.min_bytes_per_iter = static_cast<double>(received);
  r.delta.halo_bytes = received * r.iters;
  // Check: every cell of this rank's bloated tile (ghosts included) equals the global array.
  const td::Box need = requests[0].needed[rt.rank()];
  const td::Layout layout = s.layout();
  std::vector<double> local(static_cast<std::size_t>(s.allocated().volume()));
  Kokkos::deep_copy(
      Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(local.data(), local.size()),
      Kokkos::View<double*, td::MemSpace, Kokkos::MemoryUnmanaged>(reinterpret_cast<double*>(s.data()), local.size()));
  r.check = true;
  for (std::int64_t i = need.lo[0]; i < need.hi[0]; ++i)
    for (std::int64_t j = need.lo[1]; j < need.hi[1]; ++j)
      r.check = r.check && local[layout.offset({i, j, 0})] == global[i * n + j];
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  ts::Config config;
  Options o = parse(argc, argv);
  config.fusion = o.fusion;
  ts::Runtime rt(argc, argv, config);
  std::map<std::string, std::function<Result(ts::Runtime&, const Options&)>> workloads = {
      {"overhead", overhead}, {"chain", chain}, {"stencil", stencil}, {"halo", halo}, {"black_scholes", black_scholes}};
  auto it = workloads.find(o.workload);
  if (it == workloads.end()) usage(("unknown workload " + o.workload).c_str());
  if (o.n == 0) o.n = o.workload == "overhead" ? 16 : o.workload == "stencil" || o.workload == "halo" ? 256 : 1 << 20;
  if (o.iters == 0) o.iters = o.workload == "overhead" ? 2000 : 20;
  Result r = it->second(rt, o);
  if (rt.rank() == 0) {
    const double it_count = r.iters;
    const double gbps = r.min_bytes_per_iter / (r.ms_per_iter * 1e-3) / 1e9;
    const char* system = o.fusion ? "tessera" : "tessera-unfused";
    // Run totals, not per iteration: how many kernels this process compiled or found on disk.
    const char* backend = rt.stats().kernel_compiles + rt.stats().kernel_cache_hits > 0 ? "jit" : "interp";
    if (o.json) {
      std::printf(
          "{\"workload\": \"%s\", \"system\": \"%s\", \"ranks\": %d, \"n\": %lld, \"ms_per_iter\": %.6f, "
          "\"ms_per_iter_min\": %.6f, \"gbps\": %.3f, \"kernels_per_iter\": %.3f, \"bytes_per_iter\": %.1f, "
          "\"halo_bytes_per_iter\": %.1f, \"allocs_per_iter\": %.3f, \"us_per_op\": %.3f, \"plan_cache_hit_rate\": "
          "%.4f, \"kernel_compiles\": %lld, \"kernel_disk_hits\": %lld, \"backend\": \"%s\", \"check\": \"%s\"}\n",
          o.workload.c_str(), system, rt.size(), static_cast<long long>(o.n), r.ms_per_iter, r.ms_per_iter_min, gbps,
          r.delta.kernels / it_count, r.delta.bytes_accessed / it_count, r.delta.halo_bytes / it_count,
          r.delta.stores_allocated / it_count, 1e3 * r.ms_per_iter / r.ops_per_iter,
          static_cast<double>(r.delta.plan_cache_hits) /
              std::max<double>(1.0, static_cast<double>(r.delta.plan_cache_hits + r.delta.plan_cache_misses)),
          static_cast<long long>(rt.stats().kernel_compiles), static_cast<long long>(rt.stats().kernel_disk_hits),
          backend, r.check ? "ok" : "FAILED");
    } else {
      std::printf(
          "%-10s %-16s ranks %-3d n %-10lld %10.4f ms/iter (min %.4f)  %8.3f GB/s  %6.2f kernels/iter  "
          "%8.3f us/op  check %s\n",
          o.workload.c_str(), system, rt.size(), static_cast<long long>(o.n), r.ms_per_iter, r.ms_per_iter_min, gbps,
          r.delta.kernels / it_count, 1e3 * r.ms_per_iter / r.ops_per_iter, r.check ? "ok" : "FAILED");
    }
  }
  return r.check ? 0 : 1;
}
