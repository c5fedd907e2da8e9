// NVRTC compile time on the main thread and on a worker thread, before and after CUDA is
// initialized in the process (the cold-start difference seen in tessera).
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
double compile(const std::string& src) {
  auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "k.cu", 0, nullptr, nullptr);
  const char* opts[] = {"--gpu-architecture=sm_90", "-std=c++17"};
  if (nvrtcCompileProgram(p, 2, opts) != NVRTC_SUCCESS) std::printf("compile failed\n");
  nvrtcDestroyProgram(&p);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
void round(const char* what, const std::vector<std::string>& srcs) {
  double main_s = 0, worker_s = 0;
  for (const auto& s : srcs) main_s += compile(s);
  std::thread t([&] {
    for (const auto& s : srcs) worker_s += compile(s);
  });
  t.join();
  std::printf("%-28s main thread %.3f s, worker thread %.3f s (%zu kernels)\n", what, main_s, worker_s, srcs.size());
}
int main(int argc, char** argv) {
  std::vector<std::string> srcs;
  for (int i = 1; i < argc; ++i) {
    std::ifstream f(argv[i]);
    std::stringstream ss;
    ss << f.rdbuf();
    srcs.push_back(ss.str());
  }
  round("before CUDA", srcs);
  cudaFree(nullptr);
  round("after cudaFree(0)", srcs);
  void* p = nullptr;
  cudaMalloc(&p, size_t(1) << 30);
  void* h = nullptr;
  cudaMallocHost(&h, size_t(1) << 28);
  round("after 1 GiB device, pinned", srcs);
  for (int threads : {1, 2, 4, 8}) {  // throughput: `threads` workers, each compiling every kernel
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&] {
        for (const auto& s : srcs) compile(s);
      });
    for (auto& t : ts) t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%d worker(s) x %zu kernels: %.3f s wall, %.1f ms per kernel\n", threads, srcs.size(), s,
                1e3 * s / (threads * srcs.size()));
  }
  std::vector<void*> blocks;
  for (int i = 0; i < 200000; ++i) blocks.push_back(malloc(64 + (i % 7) * 512));
  for (int i = 0; i < 200000; i += 2) free(blocks[i]);
  round("after a fragmented heap", srcs);
}
