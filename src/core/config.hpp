#pragma once
// Runtime configuration. Fields set in code are the defaults; the TESSERA_* environment variables,
// when set, override them (so an operator can switch logging or fusion without rebuilding).
//
//   ts::Config cfg;
//   cfg.fusion = false;                  // TESSERA_FUSION=0|1
//   ts::Runtime rt(argc, argv, cfg);
//
// Values are parsed strictly: a bad value is a tessera::Error naming the variable and the choices.

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// Who runs fused kernels: the bytecode interpreter (every backend, the reference), or compiled code
// (the JIT tier, docs/JIT.md): CUDA through NVRTC on CUDA builds, C++ through the host compiler on
// host builds. Auto and Jit: the compiled tier where the build and the machine have one (Jit says
// so when they have not), else the interpreter.
enum class Backend { Auto, Interp, Jit };

struct Config {
  int window = 64;                  // TESSERA_WINDOW: ops recorded before a flush (positive integer)
  bool fusion = true;               // TESSERA_FUSION: 0 runs every op as its own kernel
  Backend backend = Backend::Auto;  // TESSERA_BACKEND: auto|interp|jit
  std::vector<int> grid;            // TESSERA_GRID: e.g. "2x2": process grid for arrays of that many dims
  std::string log;                  // TESSERA_LOG: comma-separated subset of fusion,comm,exec or all
  std::string cache_dir;            // TESSERA_CACHE_DIR: kernel cache folder
  std::string comm = "auto";        // TESSERA_COMM: auto|mpi|nccl (auto: NCCL on CUDA builds when
                                    // each rank of a node has a GPU of its own, else MPI)
  bool check_divergence = true;     // TESSERA_CHECK_DIVERGENCE: 0 skips comparing the ranks' op
                                    // streams at each flush (docs/RELIABILITY.md)
  bool overlap = true;              // TESSERA_OVERLAP: 0 completes every halo exchange before the
                                    // kernel instead of running the interior behind it
  double comm_timeout = 300;        // TESSERA_COMM_TIMEOUT: seconds a rank waits for the others
                                    // (divergence check, MPI and NCCL communication) before aborting
  int jit_elements = 0;             // TESSERA_JIT_ELEMENTS: elements per thread of JIT kernels, 1, 2
                                    // or 4; 0 chooses per program (docs/JIT.md). For benchmarking
  bool jit_wait = false;            // TESSERA_JIT_WAIT: 1 makes every launch wait for its program's
                                    // compiled code (tests); 0 runs the interpreter meanwhile
  int jit_threads = 0;              // TESSERA_JIT_THREADS: compiles run at once in the background,
                                    // 1 to 64 (at most the hardware threads), or 0: 1 for NVRTC,
                                    // which runs one compile at a time, 4 for the host compiler
  std::string cxx;                  // TESSERA_CXX: the host tier's C++ compiler (default: the one
                                    // tessera was built with)
  std::string jit_sources;          // TESSERA_JIT_SOURCES: a folder (created if missing) that gets
                                    // the source of every kernel the JIT tiers generate, once per
                                    // process: <hash>.cu (CUDA) or <hash>.cpp (host; docs/JIT.md)
  // TESSERA_BATCH_ELEMENTS: consecutive small groups (boundary strips, coarse multigrid levels)
  // of at most this many elements each run as one single-block launch; 0 launches each apart.
  // 4096: host-paced loops of strips ran up to 23% faster batched on an H100, longer strips want
  // every SM (docs/FUSION.md, "Small groups in one kernel").
  std::int64_t batch_elements = 4096;
  // TESSERA_SPMV: auto|generated|cusparse, the SpMV's kernel for a CSR block on CUDA builds
  // (docs/LINALG.md, "Sparse matrices": which is faster; host backends always use the generated).
  std::string spmv = "auto";
  // TESSERA_MATVEC: auto|generated|blas, the kernel of a dense product of a matrix and a vector
  // ((n, k) @ (k,) and (n,) @ (n, k)): a BLAS GEMV task (blas; auto for matrices of more than
  // kMaxSweepColumns columns, where it was faster on the H200, docs/LINALG.md), or a reduction
  // program whose elementwise consumers run in its kernel, and logistic regression's gradient in
  // one pass over X (generated; auto for narrower matrices: an epilogue or a sweep, docs/FUSION.md).
  std::string matvec = "auto";

  // This configuration with every TESSERA_* variable that is set applied on top.
  Config with_environment() const;
  // Throws tessera::Error if a field holds a value the runtime cannot use.
  void validate() const;
};

namespace detail {
std::vector<int> parse_grid(const std::string& text, const char* origin);
}

}  // namespace tessera
