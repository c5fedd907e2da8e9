// bsr: Black-Scholes kernels compiled with NVRTC on the machine that runs them (as tessera's JIT
// does) and launched as tessera launches a 1-D program (one KernelParams by value, 256 threads a
// block), 2^27 options, timed side by side; outputs checked against the host on a sample and
// compared bit for bit with the first kernel's.
#include <cuda.h>
#include <nvrtc.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#define CK(x)                                            \
  do {                                                   \
    CUresult e_ = (x);                                   \
    if (e_ != CUDA_SUCCESS) {                            \
      const char* m;                                     \
      cuGetErrorString(e_, &m);                          \
      std::printf("CUDA error %s at %d\n", m, __LINE__); \
      std::exit(1);                                      \
    }                                                    \
  } while (0)
struct Accessor {
  char* ptr;
  long origin;
  long stride[3];
};
struct Domain {
  long n[3];
  long global_origin[3];
  long global_stride[3];
};
union Value {
  bool b;
  int i32;
  long i64;
  float f32;
  double f64;
};
struct KernelParams {
  Domain domain;
  Value constants[64];
  void* block_partials;
  void* partials;
  long nblocks;
  long count;
  long chunks;
  long row_threads;
  long finish_lanes;
  Accessor args[28];
};
std::string compile(const std::string& file, std::string& info) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string src = ss.str();
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "k.cu", 0, nullptr, nullptr);
  const char* opts[] = {"--gpu-architecture=sm_90", "-std=c++17", "--ptxas-options=-v"};
  if (nvrtcCompileProgram(p, 3, opts) != NVRTC_SUCCESS) {
    std::printf("compile failed %s\n", file.c_str());
    std::exit(1);
  }
  size_t n;
  nvrtcGetProgramLogSize(p, &n);
  std::string log(n, 0);
  nvrtcGetProgramLog(p, log.data());
  std::istringstream ls(log);
  std::string line;
  while (std::getline(ls, line))
    if (line.find("spill") != std::string::npos || line.find("Used") != std::string::npos)
      info += line.substr(line.find(':') + 1) + ";";
  nvrtcGetCUBINSize(p, &n);
  std::string cubin(n, 0);
  nvrtcGetCUBIN(p, cubin.data());
  nvrtcDestroyProgram(&p);
  if (const char* dir = std::getenv("BSR_CUBINS"))
    std::ofstream(std::string(dir) + "/" + file + ".cubin", std::ios::binary).write(cubin.data(), cubin.size());
  return cubin;
}
double cnd(double d) {
  const double k = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
  const double tail =
      0.39894228040143267793994605993438 * std::exp(-0.5 * d * d) *
      (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
  return d > 0 ? 1.0 - tail : tail;
}
int main(int argc, char** argv) {
  const long n = 1L << 27;
  const int rounds = argc > 1 && std::strcmp(argv[1], "--once") == 0 ? 1 : 3;
  const int first = rounds == 1 ? 2 : 1;
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  std::vector<double> S(n), X(n), T(n);
  unsigned long x = 88172645463325252ul;
  auto uniform = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (x >> 11) * (1.0 / 9007199254740992.0);
  };
  for (long i = 0; i < n; ++i)
    S[i] = uniform() * 25.0 + 5.0, X[i] = uniform() * 99.0 + 1.0, T[i] = uniform() * 9.75 + 0.25;
  CUdeviceptr d[5];
  for (auto& p : d) CK(cuMemAlloc(&p, n * 8));
  CK(cuMemcpyHtoD(d[0], S.data(), n * 8));
  CK(cuMemcpyHtoD(d[1], X.data(), n * 8));
  CK(cuMemcpyHtoD(d[2], T.data(), n * 8));
  KernelParams p;
  std::memset(&p, 0, sizeof p);
  p.domain.n[0] = p.domain.n[1] = 1;
  p.domain.n[2] = n;
  p.domain.global_stride[2] = 1;
  std::ifstream cs("constants.txt");
  int nc = 0;
  for (std::string hex; cs >> hex;) p.constants[nc++].f64 = std::strtod(hex.c_str(), nullptr);
  for (int a = 0; a < 5; ++a) {
    p.args[a].ptr = (char*)d[a];
    p.args[a].stride[2] = 1;
  }
  struct K {
    std::string name;
    CUfunction f;
    std::string info;
    int per_thread;
  };
  std::vector<K> ks;
  for (int i = first; i < argc; ++i) {
    K k{argv[i], nullptr, "", 1};
    std::ifstream f(argv[i]);
    std::string line;
    std::getline(f, line);
    if (line.rfind("// per-thread ", 0) == 0) k.per_thread = std::atoi(line.c_str() + 14);
    std::string cubin = compile(argv[i], k.info);
    CUmodule mod;
    CK(cuModuleLoadData(&mod, cubin.data()));
    CK(cuModuleGetFunction(&k.f, mod, "tessera_fused"));
    ks.push_back(k);
  }
  CUevent a, b;
  CK(cuEventCreate(&a, 0));
  CK(cuEventCreate(&b, 0));
  std::vector<double> call(n), put(n), call0(n), put0(n);
  for (int round = 0; round < rounds; ++round)
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const K& k = ks[i];
      void* params[] = {&p};
      const unsigned blocks = (unsigned)((n + 256L * k.per_thread - 1) / (256L * k.per_thread));
      auto launch = [&] { CK(cuLaunchKernel(k.f, blocks, 1, 1, 256, 1, 1, 0, 0, params, nullptr)); };
      std::string check = "-";
      if (round == 0) {
        CK(cuMemsetD8(d[3], 0, n * 8));
        CK(cuMemsetD8(d[4], 0, n * 8));
        launch();
        CK(cuCtxSynchronize());
        CK(cuMemcpyDtoH(call.data(), d[3], n * 8));
        CK(cuMemcpyDtoH(put.data(), d[4], n * 8));
        double worst = 0;
        for (long s = 0; s < n; s += 4099) {
          const double sq = std::sqrt(T[s]);
          const double d1 = std::log(S[s] / X[s]) + (0.02 + 0.5 * 0.3 * 0.3) * T[s] / (0.3 * sq), d2 = d1 - 0.3 * sq;
          const double e = std::exp(-0.02 * T[s]);
          const double c = S[s] * cnd(d1) - X[s] * e * cnd(d2), q = X[s] * e * (1.0 - cnd(d2)) - S[s] * (1.0 - cnd(d1));
          worst = std::fmax(worst, std::fmax(std::fabs(call[s] - c) / std::fmax(1.0, std::fabs(c)),
                                             std::fabs(put[s] - q) / std::fmax(1.0, std::fabs(q))));
        }
        if (i == 0) call0 = call, put0 = put;
        long differ = 0;
        for (long s = 0; s < n; ++s) differ += call[s] != call0[s] || put[s] != put0[s];
        char buf[128];
        std::snprintf(buf, sizeof buf, "host max rel %.1e, %ld differ from the first", worst, differ);
        check = buf;
      }
      for (int w = 0; w < 3; ++w) launch();
      CK(cuEventRecord(a, 0));
      for (int t = 0; t < 20; ++t) launch();
      CK(cuEventRecord(b, 0));
      CK(cuEventSynchronize(b));
      float ms = 0;
      CK(cuEventElapsedTime(&ms, a, b));
      std::printf("{\"round\": %d, \"kernel\": \"%s\", \"ms\": %.4f, \"check\": \"%s\", \"ptxas\": \"%s\"}\n", round,
                  k.name.c_str(), ms / 20, check.c_str(), k.info.c_str());
      std::fflush(stdout);
    }
  return 0;
}
