// The JIT tier on CUDA: compile kernels in the background (jit/compile_pool.hpp), load them with
// the driver API on the launching thread and launch them on the Kokkos execution space's stream.
// Kokkos Tools see each launch as a kernel with the group's label.

#include "tessera/jit/jit.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

#include "tessera/core/context.hpp"
#include "tessera/core/error.hpp"
#include "tessera/jit/codegen.hpp"
#include "tessera/jit/compile_pool.hpp"
#include "tessera/jit/disk_cache.hpp"
#include "tessera/jit/kernel_cache.hpp"

namespace tessera::detail {

// One generated kernel, from its request to its module. The compile (a pool worker's) fills in
// `cubin` or `error`, then publishes `state` (under Jit::mutex_); the launching thread loads the
// module at the first launch that runs it.
struct JitKernel {
  enum State : int { Compiling, Compiled, Loaded, Failed };
  std::atomic<int> state{Compiling};
  bool launched = false;      // launching thread: its first launch has been asked for
  GeneratedKernel generated;  // its source is dropped once loaded
  std::uint64_t key = 0;      // the disk cache's
  std::vector<char> cubin;    // Compiled: the code to load
  std::string error;          // Failed: why

  CUmodule module = nullptr;
  CUfunction main = nullptr;
  CUfunction finish = nullptr;  // reductions only
  int elements = 1;             // per thread and row (GeneratedKernel::elements)
  int row_group = 1;            // GeneratedKernel::row_group
  std::uint64_t staged = 0;     // nested reductions: arguments staged in shared memory
  bool carries = false;         // GeneratedKernel::carries
  bool marches = false;         // GeneratedKernel::marches
  bool sweep = false;           // GeneratedKernel::sweep
};

// Blocks of a launch over rows: each takes a band of consecutive rows (jit/codegen.cpp). About
// kReductionBlocks for a reducing launch, whose block partials one block then combines (CG's dot
// products on an 8192^2 grid, 4 elements per thread: 8 x 512 blocks of 16 rows), about
// kRowBlocks for others (the stencil on a 16384^2 grid, 2 elements per thread: 32 x 2048 blocks
// of 8 rows). Measured on an H200 (tessera-bench stencil --n 16384, ms/iter): one row per block
// 1.333, bands from 4,096 / 16,384 / 65,536 blocks 1.91 / 1.47 / 1.251.
constexpr std::int64_t kReductionBlocks = 4096;
constexpr std::int64_t kRowBlocks = 65536;
// Rows per band at least, for a kernel that keeps loads from one row for the next
// (GeneratedKernel::carries): the first row of each band loads everything.
constexpr std::int64_t kCarryBand = 16;
// A kernel that marches through planes (GeneratedKernel::marches): about kMarchBlocks blocks, each
// a tile of a band of at least kMarchBand planes (its first plane loads every view).
constexpr std::int64_t kMarchBlocks = 16384;
constexpr std::int64_t kMarchBand = 16;

class Jit {
 public:
  // elements: per thread, 1, 2 or 4 for every kernel, or 0 to choose per program (TESSERA_JIT_ELEMENTS).
  // wait: a kernel's first launch waits for its compile too (TESSERA_JIT_WAIT); threads: the
  // compile pool's workers (TESSERA_JIT_THREADS); sources: where each generated kernel is written,
  // or empty (TESSERA_JIT_SOURCES).
  Jit(std::string cache_dir, int arch, int rank, int elements, bool wait, int threads, std::string sources)
      : cache_(std::move(cache_dir), arch),
        sources_(std::move(sources)),
        rank_(rank),
        elements_(elements),
        wait_(wait),
        pool_(std::make_unique<CompilePool>(threads)) {}
  ~Jit() {
    pool_.reset();  // the compiles in flight finish before the kernels they fill in go
    for (auto& [hash, k] : kernels_)
      if (k->module) cuModuleUnload(k->module);
  }
  Jit(const Jit&) = delete;
  Jit& operator=(const Jit&) = delete;

  JitKernel* kernel(const Program& program, int nargs, const KernelShape& shape) {
    if (!jit_supports(program, nargs)) {
      fall_back("a program with " + std::to_string(nargs) + " arguments exceeds the JIT's parameter block");
      return nullptr;
    }
    try {
      const int elements = elements_ > 0 ? elements_ : elements_per_thread(program, shape);
      return load(generate_cuda(program, nargs, shape, elements));
    } catch (const Error& e) {
      fall_back(e.what());
      return nullptr;
    }
  }

  // The kernel of a generated source: known already (a cache hit), read from the disk cache, or
  // compiled in the background (state() waits for it where a launch needs it).
  JitKernel* load(GeneratedKernel g) {
    Stats& stats = core_state().stats();
    auto it = kernels_.find(g.hash);
    if (it != kernels_.end()) {
      stats.kernel_cache_hits++;
      return it->second.get();
    }
    auto owned = std::make_unique<JitKernel>();
    JitKernel* k = owned.get();
    kernels_.emplace(g.hash, std::move(owned));
    if (!sources_.empty()) write_generated_source(sources_, g.hash, ".cu", g.source);
    k->key = cache_.key(g);
    k->generated = std::move(g);
    if (cache_.read(k->key, k->cubin)) {
      stats.kernel_cache_hits++;
      stats.kernel_disk_hits++;
      k->state.store(JitKernel::Compiled, std::memory_order_release);
      return k;
    }
    stats.kernel_compiles++;
    // On the worker even when the launch waits for it (TESSERA_JIT_WAIT=1): one way to compile.
    pool_->submit([this, k] { compile(*k); });
    return k;
  }

  // Who runs this launch of the kernel. Its first launch in the process runs on the interpreter
  // (unless TESSERA_JIT_WAIT=1, or the interpreter would run it on few threads) while it
  // compiles, with the other new kernels of the window; every later launch runs the compiled
  // kernel, waiting for its compile if it has not finished. The rule depends on the op stream
  // only, not on how fast compiles are or what the disk cache holds: a program's floats are the
  // same from run to run (the interpreter's and a kernel's can differ in the last bits:
  // contraction, reduction order). The module is loaded here, on the launching thread.
  JitState state(JitKernel& k, bool interpret_first) {
    if (!k.launched) {
      k.launched = true;
      if (!wait_ && interpret_first) return JitState::Interpret;
    }
    if (k.state.load(std::memory_order_acquire) == JitKernel::Compiling) {
      std::unique_lock<std::mutex> lock(mutex_);
      compiled_.wait(lock, [&] { return k.state.load(std::memory_order_acquire) != JitKernel::Compiling; });
    }
    switch (k.state.load(std::memory_order_acquire)) {
      case JitKernel::Loaded: return JitState::Ready;
      case JitKernel::Failed: fall_back(k.error); return JitState::Failed;
      default: break;
    }
    const GeneratedKernel& g = k.generated;
    k.elements = g.elements;
    k.row_group = g.row_group;
    k.staged = g.staged;
    k.carries = g.carries;
    k.marches = g.marches;
    k.sweep = g.sweep;
    check(cuModuleLoadData(&k.module, k.cubin.data()), "cuModuleLoadData");
    check(cuModuleGetFunction(&k.main, k.module, g.main_name.c_str()), "cuModuleGetFunction");
    if (!g.finish_name.empty())
      check(cuModuleGetFunction(&k.finish, k.module, g.finish_name.c_str()), "cuModuleGetFunction");
    k.cubin = {};
    k.generated.source = {};
    k.state.store(JitKernel::Loaded, std::memory_order_relaxed);
    return JitState::Ready;
  }

  // Blocks until every background compile requested so far has finished.
  void wait_idle() { pool_->wait_idle(); }

  void launch(const JitKernel& k, const Program& program, const std::vector<Accessor>& args, const Domain& domain,
              const ReductionTarget& target, const std::string& label) {
    KernelParams p;
    p.domain = domain;
    // Constants past the parameter block are literals in the kernel (jit/codegen.cpp).
    std::copy_n(program.constants.begin(), std::min<std::size_t>(program.constants.size(), kMaxJitConstants),
                p.constants);
    std::copy(args.begin(), args.end(), p.args);
    if (program.nested.dim >= 0) return launch_nested(k, program, p, target, label);
    if (k.sweep) return launch_sweep(k, program, p, target, label);
    if (!program.reduce_kinds.empty() && program.reduce_dim >= 0) return launch_along(k, program, p, target, label);
    if (k.marches) return launch_march(k, p, label);
    const PartialsView& partials = target.partials;
    const std::int64_t rows = domain.n[0] * domain.n[1];
    const std::int64_t span = std::int64_t(kJitBlockX) * k.elements;  // columns of one block's row
    const unsigned gx = static_cast<unsigned>(std::max<std::int64_t>(1, (domain.n[2] + span - 1) / span));
    const int nreduce = static_cast<int>(program.reduce_kinds.size());
    // A reducing block also combines its values (shuffles, shared memory, a barrier): with a few
    // elements per thread that costs as much as the elements. Reductions over rows therefore use
    // about kReductionBlocks blocks and each thread takes several rows (the row loop); the
    // launch shape is fixed by the domain, so results stay the same from run to run.
    std::int64_t max_gy = std::max<std::int64_t>(1, (nreduce > 0 ? kReductionBlocks : kRowBlocks) / gx);
    if (k.carries) max_gy = std::min(max_gy, std::max<std::int64_t>(1, rows / kCarryBand));
    const unsigned gy = static_cast<unsigned>(std::max<std::int64_t>(1, std::min({rows, max_gy, std::int64_t(65535)})));
    p.nblocks = static_cast<std::int64_t>(gx) * gy;
    Kokkos::View<char*, MemSpace> block_partials;
    if (nreduce > 0) {
      block_partials =
          allocate(static_cast<std::size_t>(p.nblocks) * 2 * nreduce * sizeof(Value), "tessera::partials", false);
      p.block_partials = block_partials.data();
      p.partials = partials.data();
    }
    const CUstream stream = reinterpret_cast<CUstream>(ExecSpace().cuda_stream());
    void* params[] = {&p};
    std::uint64_t id = 0;
    Kokkos::Tools::beginParallelFor(label, Kokkos::Tools::Experimental::device_id(ExecSpace()), &id);
    check(cuLaunchKernel(k.main, gx, gy, 1, kJitBlockX, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel");
    if (nreduce > 0) {  // the finish kernel folds the blocks as the chunks of one output, a lane per block
      p.count = 1;
      p.chunks = p.nblocks;
      launch_finish(k, p, kJitBlockX, stream);
    }
    Kokkos::Tools::endParallelFor(id);
    recycle(std::move(block_partials));  // stream-ordered: the next user runs after these kernels
  }

  // A kernel marching through planes (jit/codegen.cpp, generate_march): a block per tile of a plane, bands of planes.
  void launch_march(const JitKernel& k, KernelParams& p, const std::string& label) {
    const std::int64_t* n = p.domain.n;
    const std::int64_t W = std::int64_t(kMarchColumns) * k.elements;  // a tile's columns
    const std::int64_t tiles = ((n[2] + W - 1) / W) * ((n[1] + kMarchRows - 1) / kMarchRows);
    if (tiles == 0 || n[0] == 0) return;
    const std::int64_t bands =
        std::clamp<std::int64_t>(kMarchBlocks / tiles, 1, std::clamp<std::int64_t>(n[0] / kMarchBand, 1, 65535));
    const CUstream stream = reinterpret_cast<CUstream>(ExecSpace().cuda_stream());
    void* params[] = {&p};
    std::uint64_t id = 0;
    Kokkos::Tools::beginParallelFor(label, Kokkos::Tools::Experimental::device_id(ExecSpace()), &id);
    check(cuLaunchKernel(k.main, static_cast<unsigned>(tiles), static_cast<unsigned>(bands), 1, kJitBlockX, 1, 1, 0,
                         stream, params, nullptr),
          "cuLaunchKernel");
    Kokkos::Tools::endParallelFor(id);
  }

  // The finish kernel (jit/codegen.cpp, finish_kernel): p.count outputs of p.chunks partials each, `lanes`
  // threads per output.
  static void launch_finish(const JitKernel& k, KernelParams& p, std::int64_t lanes, CUstream stream) {
    p.finish_lanes = lanes;
    const std::int64_t outputs_per_block = kJitBlockX / lanes;
    const unsigned blocks = static_cast<unsigned>(
        std::clamp<std::int64_t>((p.count + outputs_per_block - 1) / outputs_per_block, 1, std::int64_t(1) << 20));
    void* params[] = {&p};
    check(cuLaunchKernel(k.finish, blocks, 1, 1, kJitBlockX, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel");
  }

  // Reductions along a dimension (jit/codegen.cpp, generate_along). Along the last one: row_threads
  // threads per output row (a segment), each segment folding row_group rows (GeneratedKernel), so a
  // block covers kJitBlockX / row_threads * row_group rows. Along an outer one: a thread per E outputs, and the
  // reduced dimension cut into chunks until about kAlongThreads threads run (an H200 holds
  // 132 x 2048), each chunk at least kMinChunk long; the finish kernel folds the chunks.
  static constexpr std::int64_t kAlongThreads = std::int64_t(1) << 18;
  // Threads that fold one row along the last dimension: threads_per_row (jit/codegen.hpp), as many
  // as give each E elements per pass. A warp per row of 32 elements (logistic regression's X @ w, 10^7 x 32) left 28 of
  // its lanes idle after one load each: 3.58 ms per step on the H200 with the matvec generated, 1.81 with 8 threads per
  // row. A block per row (its warps combined in shared memory) was no better for long rows: Jacobi at N = 32768 2.07 ms
  // per iteration against 2.01 with a warp, 0.528 against 0.540 at 16384.
  static constexpr std::int64_t kMinChunk = 8;
  void launch_along(const JitKernel& k, const Program& program, KernelParams& p, const ReductionTarget& target,
                    const std::string& label) {
    const int R = program.reduce_dim;
    const std::int64_t* n = p.domain.n;
    const int nreduce = static_cast<int>(program.reduce_kinds.size());
    p.partials = target.along;
    p.count = target.count;
    p.chunks = 1;
    unsigned gx = 1, gy = 1;
    Kokkos::View<char*, MemSpace> chunk_partials;
    if (R == 2) {
      p.row_threads = threads_per_row(n[2], k.elements);
      const std::int64_t rows_per_block = kJitBlockX / p.row_threads * k.row_group;
      gx = static_cast<unsigned>(
          std::clamp<std::int64_t>((n[0] * n[1] + rows_per_block - 1) / rows_per_block, 1, std::int64_t(1) << 20));
    } else {
      const std::int64_t span = std::int64_t(kJitBlockX) * k.elements, outer = n[1 - R], reduced = n[R];
      gx = static_cast<unsigned>(std::max<std::int64_t>(1, (n[2] + span - 1) / span));
      const std::int64_t threads = std::max<std::int64_t>(1, gx * std::int64_t(kJitBlockX) * outer);
      p.chunks = std::clamp<std::int64_t>(kAlongThreads / threads, 1, std::max<std::int64_t>(1, reduced / kMinChunk));
      gy = static_cast<unsigned>(std::clamp<std::int64_t>(outer * p.chunks, 1, 65535));
      if (p.chunks > 1) {
        chunk_partials = allocate(static_cast<std::size_t>(p.chunks * 2 * nreduce * p.count) * sizeof(Value),
                                  "tessera::partials", false);
        p.block_partials = chunk_partials.data();
      }
    }
    if (p.count == 0) return;  // no outputs on this rank
    const CUstream stream = reinterpret_cast<CUstream>(ExecSpace().cuda_stream());
    void* params[] = {&p};
    std::uint64_t id = 0;
    Kokkos::Tools::beginParallelFor(label, Kokkos::Tools::Experimental::device_id(ExecSpace()), &id);
    check(cuLaunchKernel(k.main, gx, gy, 1, kJitBlockX, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel");
    if (p.chunks > 1) launch_finish(k, p, finish_lanes(p.chunks), stream);
    Kokkos::Tools::endParallelFor(id);
    recycle(std::move(chunk_partials));
  }

  // A sweep (jit/codegen.cpp, generate_sweep): T threads per row (sweep_threads), and the rows dealt in bands to at
  // most kSweepBlocks blocks (an H200 holds 132 x 8 of them), each at least kMinSweepRows rows; the finish kernel folds
  // the bands' partial outputs.
  static constexpr std::int64_t kSweepBlocks = 1024;
  static constexpr std::int64_t kMinSweepRows = 256;
  void launch_sweep(const JitKernel& k, const Program& program, KernelParams& p, const ReductionTarget& target,
                    const std::string& label) {
    const std::int64_t* n = p.domain.n;
    const int outputs = output_slots(program);
    p.partials = target.along;
    p.count = target.count;
    p.row_threads = sweep_threads(n[2]);  // as the kernel was compiled for (KernelShape::sweep_columns)
    if (n[0] != 1 || n[2] > p.row_threads * k.elements)
      raise("internal: ", label, " sweeps ", n[0], " planes of rows of ", n[2], " elements");
    if (p.count == 0) return;  // no outputs on this rank
    p.chunks = std::clamp<std::int64_t>((n[1] + kMinSweepRows - 1) / kMinSweepRows, 1, kSweepBlocks);
    Kokkos::View<char*, MemSpace> chunk_partials;
    if (p.chunks > 1) {
      chunk_partials = allocate(static_cast<std::size_t>(p.chunks * 2 * outputs * p.count) * sizeof(Value),
                                "tessera::partials", false);
      p.block_partials = chunk_partials.data();
    }
    const CUstream stream = reinterpret_cast<CUstream>(ExecSpace().cuda_stream());
    void* params[] = {&p};
    std::uint64_t id = 0;
    Kokkos::Tools::beginParallelFor(label, Kokkos::Tools::Experimental::device_id(ExecSpace()), &id);
    check(cuLaunchKernel(k.main, static_cast<unsigned>(p.chunks), 1, 1, kJitBlockX, 1, 1, 0, stream, params, nullptr),
          "cuLaunchKernel");
    if (p.chunks > 1) launch_finish(k, p, finish_lanes(p.chunks), stream);
    Kokkos::Tools::endParallelFor(id);
    recycle(std::move(chunk_partials));
  }

  // A nested reduction (jit/codegen.cpp, generate_nested): a thread per output, no finish kernel.
  // Its staged operands (k-means' centroids) get shared memory, 8 bytes per element, when they
  // fit in kMaxStagedBytes (p.nblocks = 1 tells the kernel); larger ones are read from global
  // memory.
  static constexpr std::int64_t kMaxStagedBytes = std::int64_t(16) << 10;
  static constexpr std::int64_t kNestedBlocks = 4096;
  void launch_nested(const JitKernel& k, const Program& program, KernelParams& p, const ReductionTarget& target,
                     const std::string& label) {
    p.partials = target.along;
    p.count = target.count;
    if (p.count == 0) return;  // no outputs on this rank
    const std::int64_t bytes = static_cast<std::int64_t>(__builtin_popcountll(k.staged)) * 8 *
                               p.domain.n[program.reduce_dim] * p.domain.n[program.nested.dim];
    p.nblocks = bytes > 0 && bytes <= kMaxStagedBytes ? 1 : 0;
    const unsigned shared = p.nblocks ? static_cast<unsigned>(bytes) : 0;
    // At most kNestedBlocks blocks (several resident waves on an H200), each thread taking several
    // outputs, so that the staging is paid a few thousand times rather than once per 256 outputs.
    const unsigned gx =
        static_cast<unsigned>(std::clamp<std::int64_t>((p.count + kJitBlockX - 1) / kJitBlockX, 1, kNestedBlocks));
    const CUstream stream = reinterpret_cast<CUstream>(ExecSpace().cuda_stream());
    void* params[] = {&p};
    std::uint64_t id = 0;
    Kokkos::Tools::beginParallelFor(label, Kokkos::Tools::Experimental::device_id(ExecSpace()), &id);
    check(cuLaunchKernel(k.main, gx, 1, 1, kJitBlockX, 1, 1, shared, stream, params, nullptr), "cuLaunchKernel");
    Kokkos::Tools::endParallelFor(id);
  }

  // A batch of small programs as one kernel (jit/codegen.cpp, generate_batch), or nullptr;
  // generated once per distinct list of parts: generating its source (every part's program
  // emitted, the prelude prepended) and hashing it at each launch cost the host more than the
  // launches the batch saves.
  JitKernel* batch_kernel(const std::vector<BatchPart>& parts, const std::vector<std::uint64_t>& key,
                          BatchOrder order) {
    auto known = batches_.find(key);
    if (known != batches_.end()) return known->second;
    JitKernel* k = nullptr;
    if (batch_fits(parts)) {
      try {
        k = load(generate_batch(parts, order));
      } catch (const Error& e) {
        fall_back(e.what());
      }
    }
    batches_.emplace(key, k);
    return k;
  }

  void launch_batch(const JitKernel& k, const std::vector<BatchPart>& parts, const std::vector<const Accessor*>& args,
                    const std::vector<Domain>& domains, const std::string& label, BatchOrder order) {
    BatchParams p;
    int arg_base = 0, const_base = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      p.domain[i] = domains[i];
      p.volume[i] = domains[i].volume();
      p.first_block[i + 1] = p.first_block[i] + batch_part_blocks(p.volume[i]);
      const Program& program = *parts[i].program;
      for (std::size_t c = 0; c < program.constants.size() && const_base + static_cast<int>(c) < kMaxJitConstants; ++c)
        p.constants[const_base + c] = program.constants[c];
      std::copy_n(args[i], parts[i].nargs, p.args + arg_base);
      arg_base += parts[i].nargs;
      const_base += static_cast<int>(program.constants.size());
    }
    // InOrder: one block; Independent: each part's blocks (p.first_block), none for an empty one.
    const bool in_order = order == BatchOrder::InOrder;
    const unsigned blocks = in_order ? 1u : static_cast<unsigned>(p.first_block[parts.size()]);
    if (blocks == 0) return;
    const CUstream stream = reinterpret_cast<CUstream>(ExecSpace().cuda_stream());
    void* params[] = {&p};
    std::uint64_t id = 0;
    Kokkos::Tools::beginParallelFor(label, Kokkos::Tools::Experimental::device_id(ExecSpace()), &id);
    check(cuLaunchKernel(k.main, blocks, 1, 1, in_order ? kJitBatchThreads : kJitBlockX, 1, 1, 0, stream, params,
                         nullptr),
          "cuLaunchKernel");
    Kokkos::Tools::endParallelFor(id);
  }

  double compile_seconds() const { return cache_.compile_seconds(); }

 private:
  static void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* text = nullptr;
    cuGetErrorString(r, &text);
    fatal(std::string("CUDA driver ") + what + " failed: " + (text ? text : "unknown error"));
  }
  void fall_back(const std::string& why) {
    if (warned_) return;
    warned_ = true;
    std::fprintf(stderr, "[tessera %d] JIT: %s; this kernel (and any other that fails) runs on the interpreter\n",
                 rank_, why.c_str());
  }

  // NVRTC, then the disk cache; publishes the outcome in k.state. Runs on a pool worker and
  // touches only k and the thread-safe cache.
  void compile(JitKernel& k) {
    int outcome = JitKernel::Compiled;
    try {
      k.cubin = cache_.compile(k.generated.source);
      cache_.write(k.key, k.cubin);
    } catch (const std::exception& e) {
      k.error = e.what();
      outcome = JitKernel::Failed;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);  // no lost wake-up between state()'s test and wait
      k.state.store(outcome, std::memory_order_release);
    }
    compiled_.notify_all();
  }

  KernelCache cache_;
  std::string sources_;                                          // TESSERA_JIT_SOURCES
  std::map<std::uint64_t, std::unique_ptr<JitKernel>> kernels_;  // by source hash; launching thread
  std::map<std::vector<std::uint64_t>, JitKernel*> batches_;     // batch_kernel's, by their parts
  int rank_;
  int elements_;
  bool wait_;
  bool warned_ = false;
  std::mutex mutex_;  // a kernel's state leaving Compiling, and the wait for it
  std::condition_variable compiled_;
  std::unique_ptr<CompilePool> pool_;  // last: its workers stop before the members they use go
};

static_assert(sizeof(KernelParams) <= 4096, "the JIT parameter block must fit CUDA's kernel parameter limit");
static_assert(sizeof(BatchParams) <= 4096, "a batch's parameter block must fit CUDA's kernel parameter limit");
static_assert(offsetof(KernelParams, args) + sizeof(Accessor) * kMaxArgs == sizeof(KernelParams),
              "KernelParams layout changed: update the mirror in jit/codegen.cpp");

std::shared_ptr<Jit> make_jit(const Config& config, int rank) {
  if (config.backend == Backend::Interp) return nullptr;
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    std::fprintf(stderr, "[tessera %d] JIT: no usable CUDA device; running the interpreter\n", rank);
    return nullptr;
  }
  const std::string dir = config.cache_dir.empty() ? KernelCache::default_directory() : config.cache_dir;
  // One worker unless asked: NVRTC 13 runs one compile at a time in a process, so more workers
  // only take the compiles out of the order the launches need them (docs/JIT.md).
  return std::make_shared<Jit>(dir, major * 10 + minor, rank, config.jit_elements, config.jit_wait,
                               compile_threads(config, 1), config.jit_sources);
}

JitKernel* jit_kernel(Jit& jit, const Program& program, int nargs, const KernelShape& shape) {
  return jit.kernel(program, nargs, shape);
}

JitState jit_state(Jit& jit, JitKernel& kernel, bool interpret_first) { return jit.state(kernel, interpret_first); }
void jit_wait_idle(Jit& jit) { jit.wait_idle(); }

void jit_launch(Jit& jit, const JitKernel& kernel, const Program& program, const std::vector<Accessor>& args,
                const Domain& domain, const ReductionTarget& target, const std::string& label) {
  jit.launch(kernel, program, args, domain, target, label);
}

double jit_compile_seconds(const Jit& jit) { return jit.compile_seconds(); }

JitKernel* jit_batch_kernel(Jit& jit, const std::vector<BatchPart>& parts, const std::vector<std::uint64_t>& key,
                            BatchOrder order) {
  return jit.batch_kernel(parts, key, order);
}

void jit_launch_batch(Jit& jit, const JitKernel& kernel, const std::vector<BatchPart>& parts,
                      const std::vector<const Accessor*>& args, const std::vector<Domain>& domains,
                      const std::string& label, BatchOrder order) {
  jit.launch_batch(kernel, parts, args, domains, label, order);
}

}  // namespace tessera::detail
