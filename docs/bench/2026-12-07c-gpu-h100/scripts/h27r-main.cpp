// h27r: generated 27-point marching kernels compiled with NVRTC on the machine that runs them (as
// tessera's JIT does) and launched as launch_march launches them, 512^3, timed side by side.
#include <cuda.h>
#include <nvrtc.h>
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
  for (std::string line; std::getline(std::stringstream(log) >> std::ws, line);) break;
  std::istringstream ls(log);
  std::string line;
  while (std::getline(ls, line))
    if (line.find("spill") != std::string::npos || line.find("Used") != std::string::npos)
      info += line.substr(line.find(':') + 1) + ";";
  nvrtcGetCUBINSize(p, &n);
  std::string cubin(n, 0);
  nvrtcGetCUBIN(p, cubin.data());
  nvrtcDestroyProgram(&p);
  return cubin;
}
int main(int argc, char** argv) {
  const long m = 512, n = m - 2, S0 = m * m, S1 = m, total = m * m * m;
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CUdeviceptr in, out, ref;
  CK(cuMemAlloc(&in, total * 8));
  CK(cuMemAlloc(&out, total * 8));
  CK(cuMemAlloc(&ref, total * 8));
  {
    std::vector<double> h(total);
    unsigned long x = 88172645463325252ul;
    for (auto& v : h) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      v = (x >> 11) * (1.0 / 9007199254740992.0);
    }
    CK(cuMemcpyHtoD(in, h.data(), total * 8));
  }
  KernelParams p;
  std::memset(&p, 0, sizeof p);
  for (int d = 0; d < 3; ++d) p.domain.n[d] = n;
  p.constants[0].f64 = 0.037;
  for (int a = 0; a < 27; ++a) {
    p.args[a].ptr = (char*)in;
    p.args[a].origin = (a / 9) * S0 + (a / 3 % 3) * S1 + a % 3;
    p.args[a].stride[0] = S0;
    p.args[a].stride[1] = S1;
    p.args[a].stride[2] = 1;
  }
  p.args[27] = p.args[0];
  p.args[27].ptr = (char*)out;
  p.args[27].origin = S0 + S1 + 1;
  const long tiles = ((n + 63) / 64) * ((n + 7) / 8);
  struct K {
    std::string name;
    CUfunction f;
    std::string info;
  };
  std::vector<K> ks;
  for (int i = 1; i < argc; ++i) {
    K k{argv[i], nullptr, ""};
    std::string cubin = compile(argv[i], k.info);
    CUmodule mod;
    CK(cuModuleLoadData(&mod, cubin.data()));
    CK(cuModuleGetFunction(&k.f, mod, "tessera_fused"));
    ks.push_back(k);
  }
  CUevent a, b;
  CK(cuEventCreate(&a, 0));
  CK(cuEventCreate(&b, 0));
  std::vector<double> h1(total), h2(total);
  for (int round = 0; round < 2; ++round)
    for (long bands : {16L, 31L, 63L})
      for (std::size_t i = 0; i < ks.size(); ++i) {
        const K& k = ks[i];
        void* params[] = {&p};
        auto launch = [&] {
          CK(cuLaunchKernel(k.f, (unsigned)tiles, (unsigned)bands, 1, 256, 1, 1, 0, 0, params, nullptr));
        };
        CK(cuMemsetD8(out, 0, total * 8));
        launch();
        CK(cuCtxSynchronize());
        std::string check = "first";
        if (i == 0 && round == 0 && bands == 31)
          CK(cuMemcpyDtoD(ref, out, total * 8));
        else if (round == 0) {
          CK(cuMemcpyDtoH(h1.data(), out, total * 8));
          CK(cuMemcpyDtoH(h2.data(), ref, total * 8));
          check = std::memcmp(h1.data(), h2.data(), total * 8) == 0 ? "equal" : "DIFFERENT";
        } else
          check = "-";
        for (int w = 0; w < 3; ++w) launch();
        CK(cuEventRecord(a, 0));
        for (int t = 0; t < 20; ++t) launch();
        CK(cuEventRecord(b, 0));
        CK(cuEventSynchronize(b));
        float ms = 0;
        CK(cuEventElapsedTime(&ms, a, b));
        std::printf(
            "{\"round\": %d, \"kernel\": \"%s\", \"bands\": %ld, \"ms\": %.4f, \"check\": \"%s\", \"ptxas\": \"%s\"}\n",
            round, k.name.c_str(), bands, ms / 20, check.c_str(), k.info.c_str());
      }
  return 0;
}
