// Fault and divergence scenarios for tests/faults/run_fault.sh: a halo-heavy stencil loop (the
// cuNumeric stencil on an n x n grid, a norm read back every 10 steps) in which one rank — the
// last — misbehaves at step `--at`, as chosen by the mode:
//
//   none              every rank runs the loop to the end (exit 0)
//   throw             throws std::runtime_error, uncaught
//   throw-caught      throws; main catches it outside the Runtime's scope and returns 3
//   abort             calls std::abort()
//   kill              sends itself SIGKILL
//   exit              calls std::exit(4) (no MPI_Finalize)
//   stall             stops making progress (waits for a signal forever) without leaving
//   oom               lowers its address-space limit (setrlimit), then every rank sums a new
//                     1 GiB array: only that rank's allocation fails
//   diverge-extra     records one extra op (an elementwise multiply)
//   diverge-constant  uses 0.25 instead of 0.2 as the stencil weight
//   diverge-view      reads the west neighbour where the others read the east one
//   diverge-dtype     computes that step in float32
//   diverge-shape     creates a work array of another shape
//   diverge-data      passes a different host buffer to from_host
//   diverge-item      calls item() where the others do not
//   diverge-flush     calls Runtime::flush() where the others do not
//   diverge-local     records one extra op that needs no communication (with
//                     TESSERA_CHECK_DIVERGENCE=0 and TESSERA_FUSION=0 the job then completes)
//
//   mpirun -n 4 tessera-fault-app kill --n 64 --steps 400 --at 100
//
// The other ranks are then inside halo exchanges or at the next flush, waiting for that rank.

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>

namespace ts = tessera;

namespace {

struct Options {
  std::string mode = "none";
  std::int64_t n = 64;
  int steps = 400;
  int at = 100;
};

// This process may map only `headroom` bytes more than it has mapped now.
void limit_address_space(long headroom) {
  long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const rlim_t limit = static_cast<rlim_t>(pages) * 4096 + static_cast<rlim_t>(headroom);
  rlimit r{limit, limit};
  if (pages == 0 || setrlimit(RLIMIT_AS, &r) != 0) std::fprintf(stderr, "fault_app: setrlimit failed\n");
}

int run(int argc, char** argv, const Options& o) {
  ts::Runtime rt(argc, argv);
  const bool odd = rt.rank() == rt.size() - 1;  // the rank that misbehaves
  const std::int64_t n = o.n;
  auto grid = ts::random<double>({n, n}, 7);
  auto in = ts::slice(1, -1);
  auto center = grid(in, in);
  auto north = grid(ts::slice(0, -2), in);
  auto south = grid(ts::slice(2, ts::end), in);
  auto east = grid(in, ts::slice(2, ts::end));
  auto west = grid(in, ts::slice(0, -2));
  double last_norm = 0.0;
  for (int step = 0; step < o.steps; ++step) {
    const bool fault = odd && step == o.at;
    if (fault) {
      std::fprintf(stderr, "fault_app: rank %d of %d: %s at step %d\n", rt.rank(), rt.size(), o.mode.c_str(), step);
      std::fflush(stderr);
      if (o.mode == "throw" || o.mode == "throw-caught") throw std::runtime_error("fault_app: injected exception");
      if (o.mode == "abort") std::abort();
      if (o.mode == "kill") std::raise(SIGKILL);
      if (o.mode == "exit") std::exit(4);
      if (o.mode == "stall")
        for (;;) pause();
      if (o.mode == "oom") limit_address_space(64 << 20);
    }
    if (step == o.at && o.mode == "oom") {
      auto big = ts::empty<double>({std::int64_t(1) << 27});  // never written: no memory is touched
      last_norm = ts::sum(big).item();
    }
    double weight = 0.2;
    if (fault && o.mode == "diverge-constant") weight = 0.25;
    auto& side = fault && o.mode == "diverge-view" ? west : east;
    if (fault && o.mode == "diverge-dtype") {
      auto c32 = center.astype<float>();
      center.assign(
          0.2f * (c32 + north.astype<float>() + side.astype<float>() + west.astype<float>() + south.astype<float>()));
    } else {
      center.assign(weight * (center + north + side + west + south));
    }
    if (fault && (o.mode == "diverge-extra" || o.mode == "diverge-local")) auto extra = center * 3.0;
    if (step == o.at && o.mode == "diverge-shape") auto work = ts::zeros<double>({odd ? n + 1 : n, n});
    if (step == o.at && o.mode == "diverge-data") {
      std::vector<double> host(static_cast<std::size_t>(n), odd ? 2.0 : 1.0);
      auto b = ts::from_host<double>({n}, host);
    }
    if (fault && o.mode == "diverge-item") last_norm = ts::norm(center).item();
    if (fault && o.mode == "diverge-flush") rt.flush();
    if (step % 10 == 9) last_norm = ts::norm(center).item();
  }
  const double total = ts::sum(grid).item();
  if (rt.rank() == 0)
    std::printf("fault_app: %s: %d steps, norm %.6g, sum %.12g\n", o.mode.c_str(), o.steps, last_norm, total);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc > 1) o.mode = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (key == "--n")
      o.n = value;
    else if (key == "--steps")
      o.steps = static_cast<int>(value);
    else if (key == "--at")
      o.at = static_cast<int>(value);
    else {
      std::fprintf(stderr, "usage: tessera-fault-app MODE [--n N] [--steps S] [--at K]\n");
      return 2;
    }
  }
  if (o.mode != "throw-caught") return run(argc, argv, o);
  try {
    return run(argc, argv, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fault_app: caught outside the Runtime: %s\n", e.what());
    return 3;
  }
}
