// h27: tessera's generated 27-point marching kernels (sources dumped from jit/codegen.cpp) timed
// side by side at 512^3, launched as jit.cpp's launch_march launches them.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#define CK(x)                                                                 \
  do {                                                                        \
    cudaError_t e_ = (x);                                                     \
    if (e_ != cudaSuccess) {                                                  \
      std::printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                           \
    }                                                                         \
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
#define K(name) extern "C" __global__ void name(const KernelParams p);
K(k_tiles6) K(k_none6) K(k_rf6) K(k_tiles5) K(k_none5) K(k_rf5) K(k_vec6) K(k_vec5) struct V {
  const char* name;
  void (*k)(const KernelParams);
};
__global__ void fill(double* a, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    unsigned long x = i * 0x9E3779B97F4A7C15ul;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ul;
    x ^= x >> 29;
    a[i] = (x >> 11) * (1.0 / 9007199254740992.0);
  }
}
int main(int argc, char** argv) {
  const long m = argc > 1 ? std::atol(argv[1]) : 512, n = m - 2, S0 = m * m, S1 = m, total = m * m * m;
  double *in, *out, *ref;
  CK(cudaMalloc(&in, total * 8));
  CK(cudaMalloc(&out, total * 8));
  CK(cudaMalloc(&ref, total * 8));
  fill<<<1024, 256>>>(in, total);
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
  const V vs[] = {{"none6", k_none6}, {"tiles6", k_tiles6}, {"tiles5", k_tiles5}, {"rf5", k_rf5},
                  {"rf6", k_rf6},     {"none5", k_none5},   {"vec6", k_vec6},     {"vec5", k_vec5}};
  const long band_choices[] = {0, 16, 8};
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::printf("{\"m\": %ld}\n", m);
  for (int round = 0; round < 2; ++round)
    for (long bc : band_choices)
      for (const V& v : vs) {
        long bands = bc ? bc : std::min(std::max(16384 / tiles, 1L), std::max(std::min(n / 16, 65535L), 1L));
        if (bc) bands = std::max(1L, n / bc);  // bands of about bc planes
        dim3 grid((unsigned)tiles, (unsigned)bands);
        CK(cudaMemset(out, 0, total * 8));
        v.k<<<grid, 256>>>(p);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::string check = "first";
        if (std::strcmp(v.name, "none6") == 0 && bc == 0 && round == 0)
          CK(cudaMemcpy(ref, out, total * 8, cudaMemcpyDeviceToDevice));
        else {
          std::vector<double> h1(total), h2(total);
          CK(cudaMemcpy(h1.data(), out, total * 8, cudaMemcpyDeviceToHost));
          CK(cudaMemcpy(h2.data(), ref, total * 8, cudaMemcpyDeviceToHost));
          check = std::memcmp(h1.data(), h2.data(), total * 8) == 0 ? "equal" : "DIFFERENT";
        }
        for (int w = 0; w < 3; ++w) v.k<<<grid, 256>>>(p);
        CK(cudaEventRecord(a));
        for (int t = 0; t < 20; ++t) v.k<<<grid, 256>>>(p);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        cudaFuncAttributes attr;
        CK(cudaFuncGetAttributes(&attr, v.k));
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.k, 256, 0));
        std::printf(
            "{\"round\": %d, \"variant\": \"%s\", \"bands\": %ld, \"ms\": %.4f, \"regs\": %d, \"blocks_per_sm\": %d, "
            "\"check\": \"%s\"}\n",
            round, v.name, bands, ms / 20, attr.numRegs, per_sm, check.c_str());
      }
  return 0;
}
