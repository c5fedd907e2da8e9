// tessera-bench: measurements of tessera and of hand-written Kokkos baselines on the reference
// workloads (docs/BENCHMARKS.md). Each run validates its result on every rank and exits non-zero
// if it is wrong; with --json it prints one JSON line, else a table row. Progress goes to stderr.
//
//   tessera-bench overhead --n 16 --iters 2000 --fusion on --json
//   mpirun -n 2 tessera-bench stencil --n 16384 --rows 32768 --iters 50 --backend jit
//   mpirun -n 2 tessera-bench cg --n 8192 --rows 16384 --iters 50 --system expert --json

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <tessera/fusion/runtime_state.hpp>
#include <tessera/jit/host_jit.hpp>
#include <tessera/jit/jit.hpp>

#include "systems.hpp"

namespace ts = tessera;

namespace {

using bench::Options;
using bench::Result;

const char* const kUsage =
    "usage: tessera-bench overhead|chain|stencil|halo|black_scholes|cg|sparse_cg|axis_sum|center|kmeans_assign|\n"
    "                     stencil27|shallow_water|jacobi|gemm|logreg [--system tessera|expert] [--n N] [--rows R]\n"
    "                     [--iters K]\n"
    "                     [--warmup W] [--fusion on|off] [--backend auto|interp|jit] [--json]\n"
    "  --n       1-D workloads: elements (kmeans_assign: points); 2-D workloads (stencil, halo, cg, axis_sum,\n"
    "            center): columns of the grid; stencil27, shallow_water: interior points per side;\n"
    "            sparse_cg: unknowns per row of the grid (cg's interior: sparse_cg --n N is cg --n N+2);\n"
    "            jacobi, gemm: the matrices' order; logreg: samples (of 32 features)\n"
    "  --rows    2-D workloads: rows of the grid (default: n); weak scaling over P ranks: --rows P*n\n"
    "  --system  expert: the hand-written Kokkos baseline (black_scholes, stencil, cg)\n"
    "  --fusion, --backend: tessera's Config::fusion and Config::backend (TESSERA_* variables win)\n";

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "tessera-bench: %s\n%s", why.c_str(), kUsage);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("missing workload");
  o.workload = argv[1];
  bool tessera_only = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value after " + a);
      return argv[++i];
    };
    auto integer = [&](const std::string& v) {
      char* end = nullptr;
      long long x = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || x <= 0) usage("bad value for " + a + ": " + v);
      return x;
    };
    auto choice = [&](const std::vector<std::string>& allowed) {
      std::string v = value();
      for (const auto& c : allowed)
        if (v == c) return v;
      usage("bad value for " + a + ": " + v);
    };
    if (a == "--n")
      o.n = integer(value());
    else if (a == "--rows")
      o.rows = integer(value());
    else if (a == "--iters")
      o.iters = static_cast<int>(integer(value()));
    else if (a == "--warmup") {
      std::string v = value();
      o.warmup = v == "0" ? 0 : static_cast<int>(integer(v));
    } else if (a == "--system")
      o.system = choice({"tessera", "expert"});
    else if (a == "--fusion") {
      o.fusion = choice({"on", "off"}) == "on";
      tessera_only = true;
    } else if (a == "--backend") {
      o.backend = choice({"auto", "interp", "jit"});
      tessera_only = true;
    } else if (a == "--json")
      o.json = true;
    else
      usage("unknown option " + a);
  }
  const bool grid = o.workload == "stencil" || o.workload == "halo" || o.workload == "cg" || o.workload == "axis_sum" ||
                    o.workload == "center" || o.workload == "sparse_cg";
  const bool cube = o.workload == "stencil27" || o.workload == "shallow_water";
  const bool matrix = o.workload == "jacobi" || o.workload == "gemm";
  if (o.n == 0)
    o.n = o.workload == "overhead" ? 16 : grid ? 256 : o.workload == "stencil27" ? 64 : cube || matrix ? 256 : 1 << 20;
  if (!grid) o.rows = 1;  // --rows has no meaning for 1-D workloads
  if (o.rows == 0) o.rows = o.n;
  if (o.iters == 0)
    o.iters = o.workload == "overhead" ? 2000 : o.workload == "cg" || o.workload == "sparse_cg" ? 50 : 20;
  if (o.system == "expert" && tessera_only) usage("--fusion and --backend apply to --system tessera only");
  if (grid && (o.n < 3 || o.rows < 3)) usage("2-D workloads need a grid of at least 3 x 3");
  return o;
}

using Workload = Result (*)(ts::Runtime&, const Options&);

Workload find(const Options& o) {
  namespace tsys = bench::tessera_system;
  static const std::map<std::string, Workload> tessera = {{"overhead", tsys::overhead},
                                                          {"chain", tsys::chain},
                                                          {"stencil", tsys::stencil},
                                                          {"halo", tsys::halo},
                                                          {"black_scholes", tsys::black_scholes},
                                                          {"cg", tsys::cg},
                                                          {"sparse_cg", tsys::sparse_cg},
                                                          {"axis_sum", tsys::axis_sum},
                                                          {"center", tsys::center},
                                                          {"kmeans_assign", tsys::kmeans_assign},
                                                          {"stencil27", tsys::stencil27},
                                                          {"shallow_water", tsys::shallow_water},
                                                          {"jacobi", tsys::jacobi},
                                                          {"gemm", tsys::gemm},
                                                          {"logreg", tsys::logreg}};
  static const std::map<std::string, Workload> expert = {
      {"black_scholes", bench::expert::black_scholes}, {"stencil", bench::expert::stencil}, {"cg", bench::expert::cg}};
  const auto& table = o.system == "expert" ? expert : tessera;
  auto it = table.find(o.workload);
  if (it == table.end()) usage("system " + o.system + " has no workload " + o.workload);
  return it->second;
}

std::string number(double v, const char* fmt = "%.6g") {
  if (!std::isfinite(v)) return "null";
  char text[64];
  std::snprintf(text, sizeof text, fmt, v);
  return text;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Seconds the JIT's compiler ran in this process, NVRTC on GPU builds and the host tier's C++
// compiler on host builds (0: none ran, or every kernel came from the disk cache): the first run's
// compile time, with an empty TESSERA_CACHE_DIR (reported in milliseconds, `compile_ms`).
double compile_seconds() {
  ts::detail::RuntimeState& rt = ts::detail::runtime();
  double seconds = 0;
  if (ts::detail::HostJit* host = rt.host_jit()) seconds += ts::detail::host_compile_seconds(*host);
  if (ts::detail::Jit* jit = rt.jit()) seconds += ts::detail::jit_compile_seconds(*jit);
  return seconds;
}

void report(ts::Runtime& rt, const Options& o, const Result& r) {
  const bool expert = o.system == "expert";
  const std::string system = expert ? "expert" : o.fusion ? "tessera" : "tessera-unfused";
  // What ran, not what was asked: "jit" only if this process compiled or loaded kernels.
  const ts::Stats s = rt.stats();
  const std::string backend = expert ? "kokkos" : s.kernel_compiles + s.kernel_cache_hits > 0 ? "jit" : "interp";
  const double gbps = r.min_bytes_per_iter / (r.ms_per_iter * 1e-3) / 1e9;
  const double us_per_op = r.ops_per_iter > 0 ? 1e3 * r.ms_per_iter / r.ops_per_iter : NAN;
  if (o.json) {
    std::vector<std::pair<std::string, std::string>> kv = {
        {"workload", quoted(o.workload)},
        {"system", quoted(system)},
        {"ranks", std::to_string(rt.size())},
        {"n", std::to_string(o.n)},
        {"rows", std::to_string(o.rows)},
        {"iters", std::to_string(o.iters)},
        {"warmup", std::to_string(o.warmup)},
        {"ms_per_iter", number(r.ms_per_iter, "%.6f")},
        {"ms_per_iter_min", number(r.ms_per_iter_min, "%.6f")},
        {"gbps", number(gbps, "%.3f")},
        {"tflops", r.flops_per_iter > 0 ? number(r.flops_per_iter / (r.ms_per_iter * 1e-3) / 1e12, "%.3f") : "null"},
        {"kernels_per_iter", number(r.kernels, "%.3f")},
        {"bytes_per_iter", number(r.bytes, "%.1f")},
        {"min_bytes_per_iter", number(r.min_bytes_per_iter, "%.1f")},
        {"halo_bytes_per_iter", number(r.halo_bytes, "%.1f")},
        {"allocs_per_iter", number(r.allocs, "%.3f")},
        {"us_per_op", number(us_per_op, "%.3f")},
        {"record_us_per_op", number(r.record_us_per_op, "%.3f")},
        {"plan_cache_hit_rate", number(r.plan_cache_hit_rate, "%.4f")},
        {"kernel_compiles", std::to_string(expert ? 0 : s.kernel_compiles)},
        {"kernel_disk_hits", std::to_string(expert ? 0 : s.kernel_disk_hits)},
        {"compile_ms", number(1e3 * compile_seconds(), "%.1f")},
        {"first_iter_ms", number(r.first_iter_ms, "%.3f")},
        {"backend", quoted(backend)},
        {"backend_requested", quoted(expert ? "kokkos" : o.backend)},
        {"checksum", number(r.checksum, "%.17g")},
        {"check", quoted(r.check)},
        {"check_detail", quoted(r.check_detail)}};
    std::string line = "{";
    for (std::size_t i = 0; i < kv.size(); ++i) line += (i ? ", " : "") + quoted(kv[i].first) + ": " + kv[i].second;
    std::printf("%s}\n", line.c_str());
  } else {
    std::printf(
        "%-13s %-15s %-6s ranks %-2d n %-9lld rows %-6lld %10.4f ms/iter (min %.4f) %9.2f GB/s %6.2f kernels/iter "
        "check %s\n",
        o.workload.c_str(), system.c_str(), backend.c_str(), rt.size(), static_cast<long long>(o.n),
        static_cast<long long>(o.rows), r.ms_per_iter, r.ms_per_iter_min, gbps, r.kernels, r.check.c_str());
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const Workload workload = find(o);
  ts::Config config;
  config.fusion = o.fusion;
  config.backend = o.backend == "interp" ? ts::Backend::Interp
                   : o.backend == "jit"  ? ts::Backend::Jit
                                         : ts::Backend::Auto;
  ts::Runtime rt(argc, argv, config);
  if ((o.workload == "stencil" || o.workload == "cg") && o.system == "expert" && o.rows < rt.size())
    usage("the baseline needs at least one row per rank");
  if (o.workload == "black_scholes" && o.n < 4 * rt.size()) usage("black_scholes needs at least 4 options per rank");
  const Result r = workload(rt, o);
  if (rt.rank() == 0) {
    report(rt, o, r);
    if (r.check == "FAILED")
      std::fprintf(stderr, "tessera-bench: %s %s: CHECK FAILED: %s\n", o.workload.c_str(), o.system.c_str(),
                   r.check_detail.c_str());
    else if (!o.json)
      std::printf("  check: %s\n", r.check_detail.c_str());
  }
  return r.check == "FAILED" ? 1 : 0;
}
