// kernel_timer: a Kokkos Tools library that times every kernel and every profile region by its label,
// so a benchmark that misses its target can say which kernels and exchanges the time goes to.
//
//   KOKKOS_TOOLS_LIBS=build/bench/tools/libtessera_kernel_timer.so mpirun -n 2 build/bench/tessera-bench stencil
//
// Kokkos 4 loads the library named by KOKKOS_TOOLS_LIBS, Kokkos 3 (Debian's 3.4) the one named by
// KOKKOS_PROFILE_LIBRARY. Kernels are parallel_for, parallel_reduce and parallel_scan (tessera's JIT
// kernels report themselves as parallel_for around cuLaunchKernel); regions are pushProfileRegion /
// popProfileRegion (tessera::halo[...], tessera::allreduce[...], ...). Regions contain kernels (a
// halo region holds its pack and unpack kernels), so "% kernels" is over kernels only.
//
// Device-accurate times: every begin and end synchronizes the device before reading the clock, so a
// kernel's time is its launch and its execution, nothing queued before it. The price is that
// nothing overlaps any more (kernels with each other, with communication, with the host's work): a
// profiled run is slower than a timed one, and its totals say where the time goes, not how long an
// iteration takes. Kokkos 4 also fences around each callback for a tool that does not ask
// otherwise; the device is then idle when this library synchronizes, which costs nothing.
//
// The library links nothing of CUDA: on GPU builds the application has the CUDA runtime loaded, and
// cudaDeviceSynchronize is looked up in the process (else the driver's cuCtxSynchronize). Where
// neither exists (CPU builds) kernels are synchronous (Serial) and nothing is synchronized.
//
// At finalize, rank 0 (the rank from the launcher's environment: OMPI_COMM_WORLD_RANK, PMIX_RANK,
// SLURM_PROCID, PMI_RANK; else 0) prints its table to stderr; every rank does with
// KERNEL_TIMER_ALL_RANKS=1. KERNEL_TIMER_JSON=path writes one JSON line per label to path, %r in it
// replaced by the rank (without %r, rank 0 alone writes): keys rank, label, kind (kernel|region),
// calls, total_ms, us_per_call. The library does not use MPI.

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using SyncFn = int (*)();  // cudaError_t cudaDeviceSynchronize(), CUresult cuCtxSynchronize(): int-sized

struct Stat {
  std::uint64_t calls = 0;
  double total_ms = 0;
};

struct Open {
  std::string label;
  Clock::time_point start;
};

struct Timer {
  std::mutex mutex;
  SyncFn sync = nullptr;
  const char* sync_name = nullptr;
  Clock::time_point init;
  std::uint64_t next_id = 0;
  std::unordered_map<std::uint64_t, Open> kernels_open;  // by the id Kokkos hands back at the end
  std::vector<Open> regions_open;                        // regions nest: a stack
  std::map<std::string, Stat> kernels, regions;
};

Timer& timer() {
  static Timer t;
  return t;
}

// Waits for the device, then reads the clock (outside the lock: the wait can be long).
Clock::time_point now() {
  if (SyncFn sync = timer().sync) sync();
  return Clock::now();
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

int rank_from_environment() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID", "PMI_RANK"})
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return std::atoi(v);
  return 0;
}

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == value;
}

void begin_kernel(const char* name, std::uint64_t* id) {
  const Clock::time_point t = now();
  Timer& s = timer();
  std::lock_guard<std::mutex> lock(s.mutex);
  *id = s.next_id++;
  s.kernels_open[*id] = Open{name != nullptr ? name : "", t};
}

void end_kernel(std::uint64_t id) {
  const Clock::time_point t = now();
  Timer& s = timer();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.kernels_open.find(id);
  if (it == s.kernels_open.end()) return;  // begun before the library was loaded
  Stat& stat = s.kernels[it->second.label];
  ++stat.calls;
  stat.total_ms += ms_between(it->second.start, t);
  s.kernels_open.erase(it);
}

struct Row {
  std::string label;
  const char* kind;
  Stat stat;
};

std::vector<Row> sorted_rows(const std::map<std::string, Stat>& stats, const char* kind) {
  std::vector<Row> rows;
  for (const auto& [label, stat] : stats) rows.push_back({label, kind, stat});
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.stat.total_ms > b.stat.total_ms; });
  return rows;
}

double us_per_call(const Stat& s) { return s.calls > 0 ? 1000.0 * s.total_ms / s.calls : 0.0; }

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void print_table(std::FILE* f, int rank, const std::vector<Row>& kernels, const std::vector<Row>& regions,
                 double kernel_ms, double wall_ms, const char* sync_name, std::size_t unclosed) {
  std::uint64_t kernel_calls = 0;
  for (const Row& r : kernels) kernel_calls += r.stat.calls;
  std::size_t width = 20;
  for (const auto* rows : {&kernels, &regions})
    for (const Row& r : *rows) width = std::max(width, r.label.size());
  width = std::min<std::size_t>(width, 90);  // longer labels (functor type names) are cut; the JSON has them whole
  std::fprintf(
      f, "[kernel_timer rank %d] %llu kernel calls, %.3f ms in kernels; %.3f ms from Kokkos::initialize to finalize\n",
      rank, static_cast<unsigned long long>(kernel_calls), kernel_ms, wall_ms);
  if (sync_name != nullptr)
    std::fprintf(f, "[kernel_timer rank %d] every begin and end waits for the device (%s): nothing overlaps\n", rank,
                 sync_name);
  else
    std::fprintf(f,
                 "[kernel_timer rank %d] no device synchronization (no CUDA in the process: kernels are synchronous)\n",
                 rank);
  std::fprintf(
      f, "[kernel_timer rank %d] %% kernels: of the kernel total only (regions contain kernels, listed apart)\n", rank);
  std::fprintf(f, "[kernel_timer rank %d] %-*s %-6s %9s %12s %12s %10s\n", rank, static_cast<int>(width), "label",
               "kind", "calls", "total ms", "us/call", "% kernels");
  for (const auto* rows : {&kernels, &regions}) {
    for (const Row& r : *rows) {
      std::string label = r.label.size() > width ? r.label.substr(0, width - 3) + "..." : r.label;
      char share[16] = "-";
      if (rows == &kernels && kernel_ms > 0)
        std::snprintf(share, sizeof share, "%.1f", 100.0 * r.stat.total_ms / kernel_ms);
      std::fprintf(f, "[kernel_timer rank %d] %-*s %-6s %9llu %12.3f %12.2f %10s\n", rank, static_cast<int>(width),
                   label.c_str(), r.kind, static_cast<unsigned long long>(r.stat.calls), r.stat.total_ms,
                   us_per_call(r.stat), share);
    }
  }
  if (unclosed > 0)
    std::fprintf(f, "[kernel_timer rank %d] %zu kernel(s) or region(s) begun and never ended (not counted)\n", rank,
                 unclosed);
}

void write_json(const std::string& pattern, int rank, const std::vector<Row>& kernels,
                const std::vector<Row>& regions) {
  std::string path;
  bool per_rank = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.compare(i, 2, "%r") == 0) {
      path += std::to_string(rank);
      per_rank = true;
      ++i;
    } else {
      path += pattern[i];
    }
  }
  if (!per_rank && rank != 0) return;  // one file for all ranks: rank 0's
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "[kernel_timer rank %d] cannot open %s for writing\n", rank, path.c_str());
    return;
  }
  for (const auto* rows : {&kernels, &regions})
    for (const Row& r : *rows)
      std::fprintf(f,
                   "{\"rank\": %d, \"label\": %s, \"kind\": \"%s\", \"calls\": %llu, \"total_ms\": %.6f, "
                   "\"us_per_call\": %.3f}\n",
                   rank, json_string(r.label).c_str(), r.kind, static_cast<unsigned long long>(r.stat.calls),
                   r.stat.total_ms, us_per_call(r.stat));
  std::fclose(f);
}

}  // namespace

extern "C" {

void kokkosp_init_library(const int /*load_sequence*/, const std::uint64_t /*interface_version*/,
                          const std::uint32_t /*device_count*/, void* /*device_info*/) {
  Timer& s = timer();
  std::lock_guard<std::mutex> lock(s.mutex);
  // RTLD_DEFAULT: whatever the application loaded. The runtime's call first (it synchronizes the
  // device the application chose); the driver's works on the context the runtime made current.
  for (const char* name : {"cudaDeviceSynchronize", "cuCtxSynchronize"}) {
    if (void* symbol = dlsym(RTLD_DEFAULT, name)) {
      s.sync = reinterpret_cast<SyncFn>(symbol);
      s.sync_name = name;
      break;
    }
  }
  s.init = Clock::now();
}

void kokkosp_finalize_library() {
  const Clock::time_point end = Clock::now();  // the device may be finalized already: no synchronization
  Timer& s = timer();
  std::lock_guard<std::mutex> lock(s.mutex);
  const int rank = rank_from_environment();
  const std::vector<Row> kernels = sorted_rows(s.kernels, "kernel");
  const std::vector<Row> regions = sorted_rows(s.regions, "region");
  double kernel_ms = 0;
  for (const Row& r : kernels) kernel_ms += r.stat.total_ms;
  if (rank == 0 || env_is("KERNEL_TIMER_ALL_RANKS", "1"))
    print_table(stderr, rank, kernels, regions, kernel_ms, ms_between(s.init, end), s.sync_name,
                s.kernels_open.size() + s.regions_open.size());
  if (const char* json = std::getenv("KERNEL_TIMER_JSON"); json != nullptr && *json != '\0')
    write_json(json, rank, kernels, regions);
}

void kokkosp_begin_parallel_for(const char* name, const std::uint32_t /*device*/, std::uint64_t* id) {
  begin_kernel(name, id);
}
void kokkosp_end_parallel_for(const std::uint64_t id) { end_kernel(id); }

void kokkosp_begin_parallel_reduce(const char* name, const std::uint32_t /*device*/, std::uint64_t* id) {
  begin_kernel(name, id);
}
void kokkosp_end_parallel_reduce(const std::uint64_t id) { end_kernel(id); }

void kokkosp_begin_parallel_scan(const char* name, const std::uint32_t /*device*/, std::uint64_t* id) {
  begin_kernel(name, id);
}
void kokkosp_end_parallel_scan(const std::uint64_t id) { end_kernel(id); }

void kokkosp_push_profile_region(const char* name) {
  const Clock::time_point t = now();
  Timer& s = timer();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.regions_open.push_back(Open{name != nullptr ? name : "", t});
}

void kokkosp_pop_profile_region() {
  const Clock::time_point t = now();
  Timer& s = timer();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.regions_open.empty()) return;
  Stat& stat = s.regions[s.regions_open.back().label];
  ++stat.calls;
  stat.total_ms += ms_between(s.regions_open.back().start, t);
  s.regions_open.pop_back();
}

}  // extern "C"
