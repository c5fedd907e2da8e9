// A minimal Kokkos Tools library: records the name of every kernel, profile region and fence it is
// told about, so a test can check that tessera's work carries the labels profilers show.
//
//   export TESSERA_LABELS_OUT=/tmp/labels KOKKOS_TOOLS_LIBS=$PWD/libtessera_label_recorder.so
//   mpirun -n 2 ./app
//
// Kokkos 4 loads the library named by KOKKOS_TOOLS_LIBS; Kokkos 3 (Debian's 3.4) reads
// KOKKOS_PROFILE_LIBRARY instead. Each process writes <TESSERA_LABELS_OUT>.<rank> (the rank from the
// launcher's environment, else the process id), one line per distinct event as it first happens:
//   for <name> | reduce <name> | scan <name> | region <name> | fence <name>
// and at kokkosp_finalize_library a last line "finalize pushed=<n> popped=<n>" (regions).
// The entry points are those of Kokkos_Profiling_C_Interface.h, with the same signatures in Kokkos
// 3.4 (interface 20210225) and 4.x; the library needs no Kokkos headers and links nothing but libc.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace {

struct Recorder {
  std::mutex mutex;
  std::FILE* out = nullptr;
  std::set<std::pair<std::string, std::string>> seen;
  std::uint64_t next_id = 0;
  std::uint64_t pushed = 0;
  std::uint64_t popped = 0;
};

Recorder& recorder() {
  static Recorder r;
  return r;
}

// The rank as the launcher tells it (Open MPI's mpirun, PMIx under srun, Slurm, MPICH's Hydra).
std::string rank_suffix() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID", "PMI_RANK"})
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return v;
  return "pid" + std::to_string(static_cast<long>(getpid()));
}

void record(const char* kind, const char* name) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.out == nullptr) return;
  if (!r.seen.emplace(kind, name != nullptr ? name : "").second) return;
  std::fprintf(r.out, "%s %s\n", kind, name != nullptr ? name : "");
  std::fflush(r.out);  // a crash later still leaves what was seen
}

void begin(const char* kind, const char* name, std::uint64_t* id) {
  record(kind, name);
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  *id = r.next_id++;
}

}  // namespace

extern "C" {

void kokkosp_init_library(const int /*load_sequence*/, const std::uint64_t /*interface_version*/,
                          const std::uint32_t /*device_count*/, void* /*device_info*/) {
  const char* prefix = std::getenv("TESSERA_LABELS_OUT");
  if (prefix == nullptr || *prefix == '\0') {
    std::fprintf(stderr, "label_recorder: TESSERA_LABELS_OUT is not set; recording nothing\n");
    return;
  }
  const std::string path = std::string(prefix) + "." + rank_suffix();
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.out = std::fopen(path.c_str(), "w");
  if (r.out == nullptr) std::fprintf(stderr, "label_recorder: cannot open %s for writing\n", path.c_str());
}

void kokkosp_finalize_library() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.out == nullptr) return;
  std::fprintf(r.out, "finalize pushed=%llu popped=%llu\n", static_cast<unsigned long long>(r.pushed),
               static_cast<unsigned long long>(r.popped));
  std::fclose(r.out);
  r.out = nullptr;
}

void kokkosp_begin_parallel_for(const char* name, const std::uint32_t /*device*/, std::uint64_t* id) {
  begin("for", name, id);
}
void kokkosp_end_parallel_for(const std::uint64_t /*id*/) {}

void kokkosp_begin_parallel_reduce(const char* name, const std::uint32_t /*device*/, std::uint64_t* id) {
  begin("reduce", name, id);
}
void kokkosp_end_parallel_reduce(const std::uint64_t /*id*/) {}

void kokkosp_begin_parallel_scan(const char* name, const std::uint32_t /*device*/, std::uint64_t* id) {
  begin("scan", name, id);
}
void kokkosp_end_parallel_scan(const std::uint64_t /*id*/) {}

void kokkosp_begin_fence(const char* name, const std::uint32_t /*device*/, std::uint64_t* id) {
  begin("fence", name, id);
}
void kokkosp_end_fence(const std::uint64_t /*id*/) {}

void kokkosp_push_profile_region(const char* name) {
  record("region", name);
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  ++r.pushed;
}

void kokkosp_pop_profile_region() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  ++r.popped;
}

}  // extern "C"
