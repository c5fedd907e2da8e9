// The host tier: compile generated C++ with the host compiler in the background (jit/compile_pool.hpp),
// keep the shared objects in the kernel cache, load them with dlopen and run them as Kokkos kernels
// with the group's label.

#include "tessera/jit/host_jit.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "tessera/core/context.hpp"
#include "tessera/core/error.hpp"
#include "tessera/jit/compile_pool.hpp"
#include "tessera/jit/disk_cache.hpp"
#include "tessera/jit/host_codegen.hpp"
#include "tessera/program/reduce_ops.hpp"

extern char** environ;

#ifndef TESSERA_HOST_CXX
#define TESSERA_HOST_CXX "c++"
#endif

namespace tessera::detail {

// One program's shared object (all its shapes). Its build fills it in, then publishes `state`.
struct HostProgram {
  enum State : int { Queued, Ready, Failed };
  HostSource source;
  std::uint64_t key = 0;
  std::atomic<int> state{Queued};
  HostFunction fn = nullptr;   // for source.shape
  HostFunction any = nullptr;  // for any other shape
  bool from_disk = false;      // read from the disk cache, not compiled
  bool counted = false;        // in Stats (launching thread only)
};

namespace {

// Compiles at once where Config::jit_threads is 0 (automatic): the compiler's processes run side
// by side, unlike NVRTC's compiles (jit/jit.cpp).
constexpr int kHostCompileThreads = 4;

// Optimization -O2: measured against -O1 and -O3 on the benchmarks' kernels (docs/JIT.md).
// No fast-math and no contraction: the interpreter's results, bit for bit. -fopenmp-simd honours
// the generated `#pragma omp simd` without OpenMP's runtime.
const std::vector<std::string> kFlags = {
    "-std=c++17", "-O2", "-fPIC", "-shared", "-fopenmp-simd", "-ffp-contract=off", "-fno-math-errno", "-w"};

// Runs argv, stdout and stderr into `log`; the exit status (-1: could not run).
int run(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const std::string& path, std::size_t limit = std::size_t(1) << 30) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (s.size() > limit) s.resize(limit);
  return s;
}

// Whether `cxx` names an executable (a path, or a name found on PATH).
bool executable(const std::string& cxx) {
  if (cxx.find('/') != std::string::npos) return ::access(cxx.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((dir + "/" + cxx).c_str(), X_OK) == 0) return true;
  return false;
}

// A folder only this user can enter (mkdtemp: 0700), removed with everything in it when the
// object goes: a build's source, log and shared object live there while it runs, so that an
// aborted process leaves at most the folder of the compile it was in.
class PrivateFolder {
 public:
  PrivateFolder() {
    std::string base = "/tmp";
    if (const char* t = std::getenv("TMPDIR"); t && *t) base = t;
    std::string pattern = base + "/tessera-host-XXXXXX";
    if (::mkdtemp(pattern.data()))
      path_ = pattern;
    else
      error_ = "cannot create a private folder under " + base + ": " + std::strerror(errno);
  }
  ~PrivateFolder() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  const std::string& path() const { return path_; }  // empty: not created (error())
  const std::string& error() const { return error_; }

 private:
  std::string path_, error_;
};

// Kokkos runs the items in chunks (one on Serial); each chunk calls the compiled function once.
struct HostRun {
  using value_type = Accumulators;
  HostFunction fn;
  const KernelParams* p;
  std::int64_t items, chunk;
  int nreduce;
  ReduceSlot slots[kMaxReductions];

  void operator()(std::int64_t c) const { fn(*p, c * chunk, std::min(items, (c + 1) * chunk), nullptr); }
  void operator()(std::int64_t c, Accumulators& acc) const {
    fn(*p, c * chunk, std::min(items, (c + 1) * chunk), &acc.slot[0].v);
  }
  void init(Accumulators& acc) const { init_accumulators(acc, slots, nreduce); }
  void join(Accumulators& dst, const Accumulators& src) const { join_accumulators(dst, src, slots, nreduce); }
#ifdef TESSERA_KOKKOS_VOLATILE_JOIN
  void join(volatile Accumulators& dst, const volatile Accumulators& src) const {
    join_accumulators(dst, src, slots, nreduce);
  }
#endif
};

}  // namespace

class HostJit {
 public:
  // sources: where each generated program is written, or empty (TESSERA_JIT_SOURCES).
  HostJit(std::string compiler, std::string cache_dir, int rank, bool wait, int threads, std::string sources)
      : compiler_(std::move(compiler)),
        disk_(std::move(cache_dir), ".so"),
        sources_(std::move(sources)),
        rank_(rank),
        wait_(wait),
        pool_(std::make_unique<CompilePool>(threads)) {
    unsupported_.state = HostProgram::Failed;
  }
  ~HostJit() {
    pool_.reset();  // the builds in flight finish before what they fill in goes
    for (void* h : handles_) dlclose(h);
  }
  HostJit(const HostJit&) = delete;
  HostJit& operator=(const HostJit&) = delete;

  bool waits() const { return wait_; }

  // The program's entry (queued for its build unless it exists: then a cache hit).
  HostProgram* request(const Program& program, int nargs, const KernelShape& shape) {
    HostSource source;
    try {
      source = generate_host(program, nargs, shape);
    } catch (const Error& e) {
      fall_back(e.what());
      return &unsupported_;
    }
    auto it = programs_.find(source.hash);
    if (it != programs_.end()) {
      core_state().stats().kernel_cache_hits++;
      return it->second.get();
    }
    auto entry = std::make_unique<HostProgram>();
    entry->source = std::move(source);
    HostProgram* p = programs_.emplace(entry->source.hash, std::move(entry)).first->second.get();
    if (!sources_.empty()) write_generated_source(sources_, p->source.hash, ".cpp", p->source.source);
    pool_->submit([this, p] { build(*p); });
    if (wait_) pool_->wait_idle();
    return p;
  }

  // The function for a launch of this shape, or nullptr (not ready, or not compilable).
  HostFunction function(HostProgram& p, const KernelShape& shape) {
    if (p.state.load(std::memory_order_acquire) != HostProgram::Ready) return nullptr;
    if (!p.counted) {
      p.counted = true;
      Stats& stats = core_state().stats();
      if (p.from_disk)
        stats.kernel_cache_hits++, stats.kernel_disk_hits++;
      else
        stats.kernel_compiles++;
    }
    const KernelShape h = host_shape(shape);
    return h.unit == p.source.shape.unit && h.scalar == p.source.shape.scalar ? p.fn : p.any;
  }

  void wait_idle() { pool_->wait_idle(); }

  double compile_seconds() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return compile_seconds_;
  }

  std::string command() const {
    std::string c = compiler_;
    for (const std::string& f : kFlags) c += " " + f;
    return c;
  }

 private:
  // Memory -> disk -> compiler, then dlopen; publishes the result in p.state. Runs on the pool's
  // workers, several builds at once: they share only the salt, the disk cache, the handles and
  // the seconds, each behind its lock or thread-safe.
  void build(HostProgram& p) {
    std::string why;
    if (!prepare(why)) return fail(p, why);
    p.key = fnv1a(salt_.data(), salt_.size(), p.source.hash);
    const PrivateFolder work;
    if (work.path().empty()) return fail(p, work.error());
    std::vector<char> bytes;
    const std::string so = work.path() + "/" + std::to_string(p.key) + ".so";
    if (disk_.read(p.key, bytes)) {
      if (write_private(so, bytes) && load(p, so, why)) {
        p.from_disk = true;
        return p.state.store(HostProgram::Ready, std::memory_order_release);
      }
      std::fprintf(stderr, "[tessera %d] host JIT: %s could not be loaded (%s): compiling it again\n", rank_,
                   disk_.path_for(p.key).c_str(), why.c_str());
    }
    const std::string cpp = work.path() + "/" + std::to_string(p.key) + ".cpp", log = cpp + ".log";
    {
      std::ofstream out(cpp, std::ios::binary);
      out << p.source.source;
      if (!out) return fail(p, "cannot write " + cpp);
    }
    std::vector<std::string> argv = {compiler_};
    argv.insert(argv.end(), kFlags.begin(), kFlags.end());
    argv.insert(argv.end(), {"-o", so, cpp});
    const auto start = std::chrono::steady_clock::now();
    const int status = run(argv, log);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      compile_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (status != 0) {
      std::string text = slurp(log, 2000);
      return fail(p, "the compiler (" + command() + ") failed with status " + std::to_string(status) + ":\n" + text);
    }
    const std::string image = slurp(so);
    disk_.write(p.key, std::vector<char>(image.begin(), image.end()));
    if (!load(p, so, why)) return fail(p, why);
    p.state.store(HostProgram::Ready, std::memory_order_release);
  }

  // Once: the compiler's identity (part of every cache key).
  bool prepare(std::string& why) {
    std::lock_guard<std::mutex> lock(prepare_mutex_);
    if (!salt_.empty()) return true;
    if (broken_) {
      why = "the compiler is not usable";
      return false;
    }
    const PrivateFolder work;
    if (work.path().empty()) {
      why = work.error();
      broken_ = true;
      return false;
    }
    const std::string log = work.path() + "/version";
    if (run({compiler_, "--version"}, log) != 0) {
      why = "cannot run the C++ compiler '" + compiler_ + "' (TESSERA_CXX names another)";
      broken_ = true;
      return false;
    }
    std::string version = slurp(log, 4096);
    version = version.substr(0, version.find('\n'));
    salt_ = "host " + command() + " " + version;
    return true;
  }

  static bool write_private(const std::string& path, const std::vector<char>& bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    return ::close(fd) == 0 && done == bytes.size();
  }

  // dlopen from the build's private folder (never from a folder others can write), then unlink.
  bool load(HostProgram& p, const std::string& so, std::string& why) {
    void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    std::error_code ec;
    std::filesystem::remove(so, ec);
    if (!h) {
      const char* e = dlerror();
      why = e ? e : "dlopen failed";
      return false;
    }
    p.fn = reinterpret_cast<HostFunction>(dlsym(h, "tessera_host"));
    p.any = p.source.has_any ? reinterpret_cast<HostFunction>(dlsym(h, "tessera_host_any")) : p.fn;
    if (!p.fn || !p.any) {
      dlclose(h);
      why = "the shared object lacks tessera_host";
      return false;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    handles_.push_back(h);
    return true;
  }

  void fail(HostProgram& p, const std::string& why) {
    fall_back(why);
    p.state.store(HostProgram::Failed, std::memory_order_release);
  }
  void fall_back(const std::string& why) {
    if (warned_.exchange(true)) return;
    std::fprintf(stderr, "[tessera %d] host JIT: %s; this kernel (and any other that fails) runs on the interpreter\n",
                 rank_, why.c_str());
  }

  const std::string compiler_;
  DiskCache disk_;
  std::string sources_;  // TESSERA_JIT_SOURCES
  const int rank_;
  const bool wait_;
  std::unordered_map<std::uint64_t, std::unique_ptr<HostProgram>> programs_;  // launching thread
  HostProgram unsupported_;  // what request() gives for a program the tier does not take
  // The builders' (the pool's workers).
  std::mutex prepare_mutex_;  // salt_ and broken_
  std::string salt_;
  bool broken_ = false;
  std::atomic<bool> warned_{false};
  mutable std::mutex mutex_;  // handles_ and compile_seconds_
  std::vector<void*> handles_;
  double compile_seconds_ = 0;
  std::unique_ptr<CompilePool> pool_;  // last: its workers stop before the members they use go
};

std::shared_ptr<HostJit> make_host_jit(const Config& config, int rank) {
  if (config.backend == Backend::Interp) return nullptr;
  const std::string cxx = config.cxx.empty() ? TESSERA_HOST_CXX : config.cxx;
  if (!executable(cxx)) {
    if (rank == 0)
      std::fprintf(stderr,
                   "[tessera] host JIT: no C++ compiler at '%s' (set TESSERA_CXX to one); fused kernels run on the "
                   "interpreter\n",
                   cxx.c_str());
    return nullptr;
  }
  const std::string dir = config.cache_dir.empty() ? DiskCache::default_directory() : config.cache_dir;
  return std::make_shared<HostJit>(cxx, dir, rank, config.jit_wait, compile_threads(config, kHostCompileThreads),
                                   config.jit_sources);
}

bool host_launch(HostJit& jit, KernelImage& image, const std::string& label, const Program& program,
                 const std::vector<Accessor>& args, const Domain& domain, const ReductionTarget& target) {
  if (!image.host) {
    image.interpreted += domain.volume();
    if (!jit.waits() && image.interpreted < kHotElements) return false;
    image.host = jit.request(program, static_cast<int>(args.size()), kernel_shape(program, args, domain));
  }
  if (image.host->state.load(std::memory_order_acquire) != HostProgram::Ready) return false;
  const HostFunction fn = jit.function(*image.host, kernel_shape(program, args, domain));
  if (!fn) return false;
  KernelParams p;
  p.domain = domain;
  // Constants past the parameter block are literals in the source (jit/emitter.hpp).
  std::copy_n(program.constants.begin(), std::min<std::size_t>(program.constants.size(), kMaxJitConstants),
              p.constants);
  std::copy(args.begin(), args.end(), p.args);
  p.partials = target.along;
  p.count = target.count;
  HostRun f{fn, &p, host_items(program, domain, target.count), 1, 0, {}};
  const bool full_reduction = !program.reduce_kinds.empty() && program.reduce_dim < 0 && program.nested.dim < 0;
  f.nreduce = full_reduction ? reduce_slots(program, f.slots) : 0;
  // Chunks: one per thread of the execution space, a few more to balance (one on Serial).
  const std::int64_t threads = ExecSpace().concurrency();
  const std::int64_t chunks = threads <= 1 ? 1 : std::min(f.items, threads * 4);
  f.chunk = chunks <= 1 ? f.items : (f.items + chunks - 1) / chunks;
  const std::int64_t n = f.items == 0 ? 0 : (f.items + f.chunk - 1) / f.chunk;
  const auto policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, n);
  if (f.nreduce > 0)
    Kokkos::parallel_reduce(label, policy, f, target.partials);
  else
    Kokkos::parallel_for(label, policy, f);
  return true;
}

double host_compile_seconds(const HostJit& jit) { return jit.compile_seconds(); }
std::string host_compile_command(const HostJit& jit) { return jit.command(); }
void host_wait_idle(HostJit& jit) { jit.wait_idle(); }

}  // namespace tessera::detail
