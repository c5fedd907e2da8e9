#include "tessera/jit/kernel_cache.hpp"

#include <nvrtc.h>

#include <chrono>

#include "tessera/core/error.hpp"

namespace tessera::detail {
namespace {

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) raise("NVRTC ", what, " failed: ", nvrtcGetErrorString(r));
}

}  // namespace

KernelCache::KernelCache(std::string cache_dir, int arch)
    : disk_(std::move(cache_dir), ".cubin"),
      arch_(arch),
      salt_("sm_" + std::to_string(arch) + " nvrtc " + nvrtc_version()) {}

std::string KernelCache::nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string KernelCache::default_directory() { return DiskCache::default_directory(); }

std::uint64_t KernelCache::key(const GeneratedKernel& kernel) const {
  return fnv1a(salt_.data(), salt_.size(), kernel.hash);
}

bool KernelCache::read(std::uint64_t key, std::vector<char>& cubin) { return disk_.read(key, cubin); }

void KernelCache::write(std::uint64_t key, const std::vector<char>& cubin) { disk_.write(key, cubin); }

double KernelCache::compile_seconds() const {
  std::lock_guard<std::mutex> lock(seconds_mutex_);
  return compile_seconds_;
}

const std::vector<char>& KernelCache::cubin(const GeneratedKernel& kernel, Stats& stats) {
  const std::uint64_t k = key(kernel);
  auto it = memory_.find(k);
  if (it != memory_.end()) {
    stats.kernel_cache_hits++;
    return it->second;
  }
  std::vector<char> image;
  if (read(k, image)) {
    stats.kernel_cache_hits++;
    stats.kernel_disk_hits++;
  } else {
    image = compile(kernel.source);
    stats.kernel_compiles++;
    write(k, image);
  }
  return memory_.emplace(k, std::move(image)).first->second;
}

std::vector<char> KernelCache::compile(const std::string& source, Stage stage) {
  const auto start = std::chrono::steady_clock::now();
  nvrtcProgram prog;
  check(nvrtcCreateProgram(&prog, source.c_str(), "tessera_fused.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
  const std::string arch = std::string(stage == Stage::Ptx ? "--gpu-architecture=compute_" : "--gpu-architecture=sm_") +
                           std::to_string(arch_);
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
  std::vector<char> image;
  if (stage == Stage::Ptx) {
    check(nvrtcGetPTXSize(prog, &size), "nvrtcGetPTXSize");
    image.resize(size);
    check(nvrtcGetPTX(prog, image.data()), "nvrtcGetPTX");
  } else {
    check(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize");
    image.resize(size);
    check(nvrtcGetCUBIN(prog, image.data()), "nvrtcGetCUBIN");
  }
  nvrtcDestroyProgram(&prog);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(seconds_mutex_);
  compile_seconds_ += seconds;
  return image;
}

}  // namespace tessera::detail
