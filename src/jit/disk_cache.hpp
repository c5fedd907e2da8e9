#pragma once
// The kernel cache's files, shared by both compiled tiers (CUDA CUBINs from NVRTC, shared objects
// from the host compiler): one file <dir>/<key 16 hex digits><extension> per entry, holding a
// header (magic, format version, payload size, FNV-1a hash of the payload) and the payload.
//
// Trust: a host entry is machine code that tessera loads into the process, so the folder must be
// one only its user can write. The folder is created 0700 (an existing one owned by the user is
// tightened to that); a folder owned by someone else, or that others can write, is not used (one
// message, kernels are then cached in memory only). An entry is read only if it is a regular file
// owned by the user that others cannot write, and only if its payload matches its hash; otherwise
// it is reported, compiled again and replaced. Entries are created 0600 under a unique temporary
// name and renamed into place, so several ranks of a node may write the same entry at once, and
// several threads of one (jit/compile_pool.hpp) may read and write entries at once.
//
//   DiskCache cache(DiskCache::default_directory(), ".so");
//   std::vector<char> bytes;
//   if (!cache.read(key, bytes)) { bytes = compile(); cache.write(key, bytes); }

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::detail {

class DiskCache {
 public:
  // dir empty: no disk cache (read finds nothing, write does nothing).
  DiskCache(std::string dir, std::string extension);

  // The payload of entry `key`; false if there is none or it is unusable (reported on stderr).
  bool read(std::uint64_t key, std::vector<char>& out);
  void write(std::uint64_t key, const std::vector<char>& payload);

  std::string path_for(std::uint64_t key) const;
  const std::string& directory() const { return dir_; }
  static std::string default_directory();  // $XDG_CACHE_HOME/tessera or ~/.cache/tessera

 private:
  bool usable_directory();  // creates or checks the folder once
  bool check_directory();

  std::string dir_;
  std::string extension_;
  std::once_flag checked_;
  bool usable_ = false;
};

// Config::jit_sources: the source of a generated kernel as <dir>/<hash 16 hex digits><extension>
// (the folder created if missing), written under a unique temporary name and renamed, since the
// ranks of a node write the same files. A failure is reported on stderr and changes nothing else.
void write_generated_source(const std::string& dir, std::uint64_t hash, const std::string& extension,
                            const std::string& source);

// FNV-1a over bytes, continuing from h.
std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ull);

}  // namespace tessera::detail
