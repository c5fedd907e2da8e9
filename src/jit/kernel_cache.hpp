#pragma once
// The kernel cache: generated CUDA source -> a CUBIN for one GPU architecture, compiled by NVRTC.
// Looked up in memory, then on disk, then compiled. On disk each entry is one file
// <cache dir>/<key>.cubin, the key hashing the source, the architecture and the NVRTC version;
// the files are jit/disk_cache.hpp's (a header with the CUBIN's hash, a folder and entries only
// the user can write, written under a temporary name and renamed); an unreadable, truncated,
// corrupt or foreign-owned entry is logged, compiled again and replaced. Counts go to Stats (kernel_cache_hits: memory
// or disk; kernel_disk_hits; kernel_compiles).
//
// cubin() does all of it on the calling thread. The JIT's background compiles use the steps one by
// one (key, read, compile, write): those may run on several threads at once (NVRTC is thread-safe).

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/core/stats.hpp"
#include "tessera/jit/codegen.hpp"
#include "tessera/jit/disk_cache.hpp"

namespace tessera::detail {

class KernelCache {
 public:
  // cache_dir empty: memory only. arch: compute capability, e.g. 90 for sm_90.
  KernelCache(std::string cache_dir, int arch);

  // The CUBIN for this kernel. Throws tessera::Error with NVRTC's log if it does not compile.
  const std::vector<char>& cubin(const GeneratedKernel& kernel, Stats& stats);

  // The steps, each safe to call from several threads at once.
  std::uint64_t key(const GeneratedKernel& kernel) const;  // of the disk entry
  bool read(std::uint64_t key, std::vector<char>& cubin);  // false: not on disk, or unusable
  // NVRTC; throws tessera::Error with its log. Stage::Ptx stops before machine code (the PTX text,
  // for compute_<arch>): a fifth of the time, for checks of many generated sources at once
  // (tests/jit_codegen_check.cpp); the JIT loads CUBINs only.
  enum class Stage { Ptx, Cubin };
  std::vector<char> compile(const std::string& source, Stage stage = Stage::Cubin);
  void write(std::uint64_t key, const std::vector<char>& cubin);

  // Seconds NVRTC spent in this cache's compiles, summed over threads (for benchmarks and the
  // closing figures).
  double compile_seconds() const;
  static std::string nvrtc_version();
  static std::string default_directory();  // $XDG_CACHE_HOME/tessera or ~/.cache/tessera

 private:
  DiskCache disk_;
  int arch_;
  std::string salt_;                                   // the architecture and NVRTC's version
  std::map<std::uint64_t, std::vector<char>> memory_;  // cubin()'s: its caller's thread only
  mutable std::mutex seconds_mutex_;
  double compile_seconds_ = 0;
};

}  // namespace tessera::detail
