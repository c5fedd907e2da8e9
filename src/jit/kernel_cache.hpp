#pragma once
// The kernel cache: generated CUDA source -> a CUBIN for one GPU architecture, compiled by NVRTC.
// Looked up in memory, then on disk, then compiled. On disk each entry is one file
// <cache dir>/<key>.cubin, the key hashing the source, the architecture and the NVRTC version;
// a file holds a header (magic, format version, payload size, payload hash) and the CUBIN. Files
// are written to a unique temporary name and renamed, so several ranks of a node may write the
// same entry at once; an unreadable, truncated or corrupt entry is logged, compiled again and
// replaced. Counts go to Stats (kernel_cache_hits: memory or disk; kernel_disk_hits;
// kernel_compiles).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tessera/core/stats.hpp"
#include "tessera/jit/codegen.hpp"

namespace tessera::detail {

class KernelCache {
 public:
  // cache_dir empty: memory only. arch: compute capability, e.g. 90 for sm_90.
  KernelCache(std::string cache_dir, int arch);

  // The CUBIN for this kernel. Throws tessera::Error with NVRTC's log if it does not compile.
  const std::vector<char>& cubin(const GeneratedKernel& kernel, Stats& stats);

  // Seconds NVRTC spent in this cache's compiles (for benchmarks and the closing figures).
  double compile_seconds() const { return compile_seconds_; }
  static std::string nvrtc_version();
  static std::string default_directory();  // $XDG_CACHE_HOME/tessera or ~/.cache/tessera

 private:
  std::string path_for(std::uint64_t key) const;
  bool read_entry(const std::string& path, std::vector<char>& out) const;
  void write_entry(const std::string& path, const std::vector<char>& cubin) const;
  std::vector<char> compile(const std::string& source);

  std::string dir_;
  int arch_;
  std::map<std::uint64_t, std::vector<char>> memory_;
  double compile_seconds_ = 0;
};

}  // namespace tessera::detail
