#include "tessera/jit/kernel_cache.hpp"

#include <nvrtc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "tessera/core/error.hpp"

namespace tessera::detail {
namespace {

constexpr char kMagic[4] = {'T', 'S', 'K', 'C'};
constexpr std::uint32_t kFormat = 1;

struct Header {
  char magic[4];
  std::uint32_t format;
  std::uint64_t size;
  std::uint64_t hash;
};

std::uint64_t fnv1a(const char* data, std::size_t n, std::uint64_t h = 1469598103934665603ull) {
  for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  return h;
}

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) raise("NVRTC ", what, " failed: ", nvrtcGetErrorString(r));
}

void warn(const std::string& message) { std::fprintf(stderr, "[tessera] kernel cache: %s\n", message.c_str()); }

}  // namespace

KernelCache::KernelCache(std::string cache_dir, int arch) : dir_(std::move(cache_dir)), arch_(arch) {}

std::string KernelCache::nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string KernelCache::default_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tessera";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tessera";
  return "";
}

std::string KernelCache::path_for(std::uint64_t key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.cubin", static_cast<unsigned long long>(key));
  return dir_ + "/" + name;
}

const std::vector<char>& KernelCache::cubin(const GeneratedKernel& kernel, Stats& stats) {
  const std::string salt = "sm_" + std::to_string(arch_) + " nvrtc " + nvrtc_version();
  const std::uint64_t key = fnv1a(salt.data(), salt.size(), kernel.hash);
  auto it = memory_.find(key);
  if (it != memory_.end()) {
    stats.kernel_cache_hits++;
    return it->second;
  }
  std::vector<char> image;
  const std::string path = dir_.empty() ? "" : path_for(key);
  if (!path.empty() && read_entry(path, image)) {
    stats.kernel_cache_hits++;
    stats.kernel_disk_hits++;
  } else {
    image = compile(kernel.source);
    stats.kernel_compiles++;
    if (!path.empty()) write_entry(path, image);
  }
  return memory_.emplace(key, std::move(image)).first->second;
}

bool KernelCache::read_entry(const std::string& path, std::vector<char>& out) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;  // not cached yet: not worth a message
  Header h{};
  in.read(reinterpret_cast<char*>(&h), sizeof h);
  std::string problem;
  if (!in || std::memcmp(h.magic, kMagic, 4) != 0 || h.format != kFormat) {
    problem = "not a tessera kernel cache entry of format " + std::to_string(kFormat);
  } else if (h.size > (std::uint64_t(1) << 30)) {
    problem = "implausible size " + std::to_string(h.size);
  } else {
    out.resize(h.size);
    in.read(out.data(), static_cast<std::streamsize>(h.size));
    if (!in || in.gcount() != static_cast<std::streamsize>(h.size))
      problem = "truncated";
    else if (fnv1a(out.data(), out.size()) != h.hash)
      problem = "checksum mismatch";
  }
  if (problem.empty()) return true;
  warn(path + " is unusable (" + problem + "): compiling the kernel again and replacing it");
  out.clear();
  return false;
}

void KernelCache::write_entry(const std::string& path, const std::vector<char>& cubin) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  std::random_device entropy;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(entropy());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    Header h{};
    std::memcpy(h.magic, kMagic, 4);
    h.format = kFormat;
    h.size = cubin.size();
    h.hash = fnv1a(cubin.data(), cubin.size());
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
    out.close();
    if (!out) {
      warn("cannot write " + tmp + ": kernels are cached in memory only");
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  // rename() replaces atomically: a reader sees the old entry or the new one, never a mix.
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    warn("cannot rename " + tmp + " to " + path + ": " + ec.message());
    std::filesystem::remove(tmp, ec);
  }
}

std::vector<char> KernelCache::compile(const std::string& source) {
  const auto start = std::chrono::steady_clock::now();
  nvrtcProgram prog;
  check(nvrtcCreateProgram(&prog, source.c_str(), "tessera_fused.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(arch_);
  const char* options[] = {arch.c_str(), "-std=c++17"};
  const nvrtcResult result = nvrtcCompileProgram(prog, 2, options);
  if (result != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    nvrtcDestroyProgram(&prog);
    raise("NVRTC could not compile a fused kernel (", nvrtcGetErrorString(result), "):\n", log, "\nsource:\n", source);
  }
  std::size_t size = 0;
  check(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize");
  std::vector<char> image(size);
  check(nvrtcGetCUBIN(prog, image.data()), "nvrtcGetCUBIN");
  nvrtcDestroyProgram(&prog);
  compile_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return image;
}

}  // namespace tessera::detail
