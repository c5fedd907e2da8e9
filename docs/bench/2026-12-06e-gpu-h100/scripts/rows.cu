// Row reductions of a row-major float64 matrix (sum(A, 1) and A @ x), kernel shapes side by side
// with cuBLAS's GEMV and a plain streaming read, to find the shape that reads A nearest the peak.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CK(x)                                                     \
  do {                                                            \
    cudaError_t e = (x);                                          \
    if (e != cudaSuccess) {                                       \
      printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); \
      exit(1);                                                    \
    }                                                             \
  } while (0)

template <bool MV>
__device__ __forceinline__ double term(const double* x, long j, double a) {
  return MV ? a * __ldg(x + j) : a;
}

// T threads per row, each VEC contiguous doubles per load, U loads in flight, U accumulators.
template <int T, int VEC, int U, bool MV>
__global__ void __launch_bounds__(256)
    sub_rows(const double* __restrict__ A, const double* __restrict__ x, double* y, long rows, long cols) {
  const int sub = threadIdx.x % T;
  const long per_block = 256 / T;
  for (long base = blockIdx.x * per_block; base < rows; base += (long)gridDim.x * per_block) {
    const long row = base + threadIdx.x / T;
    const bool live = row < rows;
    const double* a = A + (live ? row : 0) * cols;
    double acc[U];
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] = 0.0;
    long j = live ? (long)sub * VEC : cols;
    const long step = (long)T * VEC;
    if (VEC == 2) {
      for (; j + step * (U - 1) + 1 < cols; j += step * U) {
        double2 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = __ldg(reinterpret_cast<const double2*>(a + j + step * u));
#pragma unroll
        for (int u = 0; u < U; ++u) acc[u] += term<MV>(x, j + step * u, v[u].x) + term<MV>(x, j + step * u + 1, v[u].y);
      }
      for (; j + 1 < cols; j += step) acc[0] += term<MV>(x, j, a[j]) + term<MV>(x, j + 1, a[j + 1]);
      if (j < cols) acc[0] += term<MV>(x, j, a[j]);
    } else {
      for (; j + step * (U - 1) < cols; j += step * U) {
        double v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = __ldg(a + j + step * u);
#pragma unroll
        for (int u = 0; u < U; ++u) acc[u] += term<MV>(x, j + step * u, v[u]);
      }
      for (; j < cols; j += step) acc[0] += term<MV>(x, j, a[j]);
    }
    double s = acc[0];
#pragma unroll
    for (int u = 1; u < U; ++u) s += acc[u];
    for (int o = T / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o, T);
    if (live && sub == 0) y[row] = s;
  }
}

// tessera's kernel today: a single accumulator, E = 4 scalar loads in flight, row index math per load.
__global__ void __launch_bounds__(256) today(const double* __restrict__ A, double* y, long rows, long cols) {
  const int T = 32;
  const int sub = threadIdx.x % T;
  const long per_block = 256 / T;
  for (long base = blockIdx.x * per_block; base < rows; base += (long)gridDim.x * per_block) {
    const long row = base + threadIdx.x / T;
    const bool live = row < rows;
    double acc = 0;
    long j = live ? sub : cols;
    for (; j + T * 3 < cols; j += T * 4) {
      const double v0 = A[row * cols + j], v1 = A[row * cols + j + T], v2 = A[row * cols + j + 2 * T],
                   v3 = A[row * cols + j + 3 * T];
      acc += v0;
      acc += v1;
      acc += v2;
      acc += v3;
    }
    for (; j < cols; j += T) acc += A[row * cols + j];
    for (int o = T / 2; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o, T);
    if (live && sub == 0) y[row] = acc;
  }
}

// A block per row: 256 threads, double2 loads, U in flight, warps combined in shared memory.
template <int U, bool MV>
__global__ void __launch_bounds__(256)
    block_rows(const double* __restrict__ A, const double* __restrict__ x, double* y, long rows, long cols) {
  __shared__ double part[8];
  for (long row = blockIdx.x; row < rows; row += gridDim.x) {
    const double* a = A + row * cols;
    double acc[U];
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] = 0.0;
    const long step = 512;
    long j = threadIdx.x * 2;
    for (; j + step * (U - 1) + 1 < cols; j += step * U) {
      double2 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = __ldg(reinterpret_cast<const double2*>(a + j + step * u));
#pragma unroll
      for (int u = 0; u < U; ++u) acc[u] += term<MV>(x, j + step * u, v[u].x) + term<MV>(x, j + step * u + 1, v[u].y);
    }
    for (; j + 1 < cols; j += step) acc[0] += term<MV>(x, j, a[j]) + term<MV>(x, j + 1, a[j + 1]);
    if (j < cols) acc[0] += term<MV>(x, j, a[j]);
    double s = acc[0];
#pragma unroll
    for (int u = 1; u < U; ++u) s += acc[u];
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      double t = 0;
      for (int w = 0; w < 8; ++w) t += part[w];
      y[row] = t;
    }
    __syncthreads();
  }
}

// The floor: every element read once, double2 loads, grid-stride, one partial per thread.
__global__ void __launch_bounds__(256) stream_read(const double* __restrict__ A, double* y, long n) {
  double acc0 = 0, acc1 = 0;
  const long stride = (long)gridDim.x * 256 * 2;
  for (long i = ((long)blockIdx.x * 256 + threadIdx.x) * 2; i + 1 < n; i += stride) {
    const double2 v = __ldg(reinterpret_cast<const double2*>(A + i));
    acc0 += v.x;
    acc1 += v.y;
  }
  if (acc0 + acc1 == 12345.678) y[0] = acc0;  // keeps the loads
}

__global__ void fill(double* A, long n) {
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += (long)gridDim.x * 256) A[i] = 1.0 + (i % 7) * 0.125;
}

// tessera's generated row kernel (src/jit/codegen.cpp generate_along, dumped by a host build at
// E = 2 and 4), compiled by NVRTC as tessera compiles it and launched as jit.cpp launches it.
#include <cuda.h>
#include <nvrtc.h>
#include <fstream>
#include <sstream>
#include <string>
struct HAccessor {
  char* ptr;
  long origin;
  long stride[3];
};
struct HDomain {
  long n[3];
  long global_origin[3];
  long global_stride[3];
};
struct HParams {
  HDomain domain;
  double constants[64];
  void* block_partials;
  void* partials;
  long nblocks, count, chunks, row_threads, finish_lanes;
  HAccessor args[1];
};
CUfunction load_generated(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string src = ss.str();
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "k.cu", 0, nullptr, nullptr);
  const char* opts[] = {"--gpu-architecture=sm_90", "-std=c++17"};
  if (nvrtcCompileProgram(p, 2, opts) != NVRTC_SUCCESS) {
    size_t n;
    nvrtcGetProgramLogSize(p, &n);
    std::string log(n, 0);
    nvrtcGetProgramLog(p, &log[0]);
    printf("# nvrtc: %s\n", log.c_str());
    return nullptr;
  }
  size_t n;
  nvrtcGetCUBINSize(p, &n);
  std::string cubin(n, 0);
  nvrtcGetCUBIN(p, &cubin[0]);
  CUmodule m;
  CUfunction f;
  if (cuModuleLoadData(&m, cubin.data()) != CUDA_SUCCESS || cuModuleGetFunction(&f, m, "tessera_fused") != CUDA_SUCCESS)
    return nullptr;
  int regs = 0;
  cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
  printf("# %s: %d registers\n", path, regs);
  return f;
}
long threads_per_row(long columns, int elements) {
  long t = 1;
  while (t < 32 && t * elements < columns) t *= 2;
  return t;
}
void launch_generated(CUfunction f, int elements, const double* A, double* partials, long rows, long cols) {
  static HParams p;
  memset(&p, 0, sizeof p);
  p.domain.n[0] = 1;
  p.domain.n[1] = rows;
  p.domain.n[2] = cols;
  p.partials = partials;
  p.count = rows;
  p.chunks = 1;
  p.row_threads = threads_per_row(cols, elements);
  p.args[0].ptr = (char*)A;
  p.args[0].stride[0] = 0;
  p.args[0].stride[1] = cols;
  p.args[0].stride[2] = 1;
  const long per_block = 256 / p.row_threads;
  const unsigned gx = (unsigned)std::min<long>(std::max<long>((rows + per_block - 1) / per_block, 1), 1L << 20);
  void* params[] = {&p};
  cuLaunchKernel(f, gx, 1, 1, 256, 1, 1, 0, 0, params, nullptr);
}

int sms = 0;
template <class F>
void timeit(const char* name, long rows, long cols, double bytes, F&& launch, const double* y,
            const std::vector<double>& ref) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const int reps = 20;
  float best = 1e30f, total = 0;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    total += ms;
    if (ms < best) best = ms;
  }
  double err = 0;
  if (y && !ref.empty()) {
    std::vector<double> h(rows);
    cudaMemcpy(h.data(), y, rows * 8, cudaMemcpyDeviceToHost);
    for (long i = 0; i < rows; ++i) err = fmax(err, fabs(h[i] - ref[i]) / fabs(ref[i]));
  }
  printf(
      "{\"kernel\": \"%s\", \"rows\": %ld, \"cols\": %ld, \"ms_mean\": %.4f, \"ms_min\": %.4f, \"TBps_mean\": %.3f, "
      "\"rel_err\": %.2e}\n",
      name, rows, cols, total / reps, best, bytes / (total / reps) / 1e9, err);
  fflush(stdout);
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  sms = prop.multiProcessorCount;
  printf("# %s, %d SMs\n", prop.name, sms);
  cublasHandle_t h;
  cublasCreate(&h);
  const long shapes[][2] = {{32768, 4096}, {32768, 32768}, {16384, 16384}, {10000000, 32}};
  for (auto& sh : shapes) {
    const long rows = sh[0], cols = sh[1], n = rows * cols;
    double *A, *x, *y;
    CK(cudaMalloc(&A, n * 8));
    CK(cudaMalloc(&x, cols * 8));
    CK(cudaMalloc(&y, rows * 16));
    fill<<<4096, 256>>>(A, n);
    std::vector<double> hx(cols);
    for (long j = 0; j < cols; ++j) hx[j] = 1.0;  // x = 1: A @ x == sum(A, 1)
    cudaMemcpy(x, hx.data(), cols * 8, cudaMemcpyHostToDevice);
    std::vector<double> ref(rows);
    for (long i = 0; i < rows; ++i) {
      double s = 0;
      for (long j = 0; j < cols; ++j) s += 1.0 + ((i * cols + j) % 7) * 0.125;
      ref[i] = s;
    }
    const double bytes = n * 8.0;
    const int occ_blocks = sms * 8;
    const unsigned warp_grid = (unsigned)std::min<long>((rows + 7) / 8, 1L << 20);
    for (int e : {2, 4}) {
      static CUfunction fs[5] = {};
      char path[64];
      snprintf(path, sizeof path, "rows/gen_sum1_e%d.cu", e);
      if (!fs[e]) fs[e] = load_generated(path);
      char name[64];
      snprintf(name, sizeof name, "generated_E%d_T%ld", e, threads_per_row(cols, e));
      if (fs[e])
        timeit(
            name, rows, cols, bytes, [&] { launch_generated(fs[e], e, A, y, rows, cols); }, y, ref);
    }
    timeit(
        "stream_read", rows, cols, bytes, [&] { stream_read<<<sms * 16, 256>>>(A, y, n); }, nullptr, ref);
    timeit(
        "today_T32_E4", rows, cols, bytes, [&] { today<<<warp_grid, 256>>>(A, y, rows, cols); }, y, ref);
    if (cols >= 1024) {
      timeit(
          "warp_v1_u4", rows, cols, bytes, [&] { sub_rows<32, 1, 4, false><<<warp_grid, 256>>>(A, x, y, rows, cols); },
          y, ref);
      timeit(
          "warp_v1_u8", rows, cols, bytes, [&] { sub_rows<32, 1, 8, false><<<warp_grid, 256>>>(A, x, y, rows, cols); },
          y, ref);
      timeit(
          "warp_v2_u2", rows, cols, bytes, [&] { sub_rows<32, 2, 2, false><<<warp_grid, 256>>>(A, x, y, rows, cols); },
          y, ref);
      timeit(
          "warp_v2_u4", rows, cols, bytes, [&] { sub_rows<32, 2, 4, false><<<warp_grid, 256>>>(A, x, y, rows, cols); },
          y, ref);
      timeit(
          "warp_v2_u8", rows, cols, bytes, [&] { sub_rows<32, 2, 8, false><<<warp_grid, 256>>>(A, x, y, rows, cols); },
          y, ref);
      timeit(
          "warp_v2_u4_persist", rows, cols, bytes,
          [&] { sub_rows<32, 2, 4, false><<<occ_blocks, 256>>>(A, x, y, rows, cols); }, y, ref);
      timeit(
          "warp_v1_u8_persist", rows, cols, bytes,
          [&] { sub_rows<32, 1, 8, false><<<occ_blocks, 256>>>(A, x, y, rows, cols); }, y, ref);
      timeit(
          "block_v2_u2", rows, cols, bytes,
          [&] { block_rows<2, false><<<(unsigned)std::min<long>(rows, 1L << 20), 256>>>(A, x, y, rows, cols); }, y,
          ref);
      timeit(
          "block_v2_u4", rows, cols, bytes,
          [&] { block_rows<4, false><<<(unsigned)std::min<long>(rows, 1L << 20), 256>>>(A, x, y, rows, cols); }, y,
          ref);
      timeit(
          "block_v2_u4_persist", rows, cols, bytes,
          [&] { block_rows<4, false><<<occ_blocks, 256>>>(A, x, y, rows, cols); }, y, ref);
      timeit(
          "mv_warp_v2_u4", rows, cols, bytes,
          [&] { sub_rows<32, 2, 4, true><<<warp_grid, 256>>>(A, x, y, rows, cols); }, y, ref);
      timeit(
          "mv_warp_v1_u8", rows, cols, bytes,
          [&] { sub_rows<32, 1, 8, true><<<warp_grid, 256>>>(A, x, y, rows, cols); }, y, ref);
      timeit(
          "mv_block_v2_u4", rows, cols, bytes,
          [&] { block_rows<4, true><<<(unsigned)std::min<long>(rows, 1L << 20), 256>>>(A, x, y, rows, cols); }, y, ref);
    } else {
      const unsigned g8 = (unsigned)std::min<long>((rows + 31) / 32, 1L << 20),
                     g4 = (unsigned)std::min<long>((rows + 63) / 64, 1L << 20);
      timeit(
          "T8_v1_u4", rows, cols, bytes, [&] { sub_rows<8, 1, 4, false><<<g8, 256>>>(A, x, y, rows, cols); }, y, ref);
      timeit(
          "T8_v2_u2", rows, cols, bytes, [&] { sub_rows<8, 2, 2, false><<<g8, 256>>>(A, x, y, rows, cols); }, y, ref);
      timeit(
          "T4_v2_u4", rows, cols, bytes, [&] { sub_rows<4, 2, 4, false><<<g4, 256>>>(A, x, y, rows, cols); }, y, ref);
      timeit(
          "mv_T8_v2_u2", rows, cols, bytes, [&] { sub_rows<8, 2, 2, true><<<g8, 256>>>(A, x, y, rows, cols); }, y, ref);
      timeit(
          "mv_T4_v2_u4", rows, cols, bytes, [&] { sub_rows<4, 2, 4, true><<<g4, 256>>>(A, x, y, rows, cols); }, y, ref);
    }
    const double one = 1, zero = 0;
    timeit(
        "cublas_dgemv", rows, cols, bytes,
        [&] { cublasDgemv(h, CUBLAS_OP_T, (int)cols, (int)rows, &one, A, (int)cols, x, 1, &zero, y, 1); }, y, ref);
    cudaFree(A);
    cudaFree(x);
    cudaFree(y);
  }
  return 0;
}
