// s27.cu -- which kernel shape of a float64 27-point stencil gets close to the memory floor?
//
//   out[z][y][x] = 0.037 * sum_{dz,dy,dx in {-1,0,1}} in[z+dz][y+dy][x+dx],   1 <= z,y,x <= n-2
//
// `in` and `out` are separate n^3 double arrays, row-major, index (z*n + y)*n + x. The faces of
// `out` are never written (zeroed once before the check run). The memory floor is reading `in`
// once and writing the interior of `out` once: 8 * (n^3 + (n-2)^3) bytes (2.15 GB at n = 512).
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o s27 s27.cu
// Run:   ./s27 [n]        n = grid side, even, >= 4 (default 512)
// stdout: one JSON line for the device, then one per measurement; stderr: a readable table.
//
// Variants (all compared with `naive`, all write exactly the interior):
//   naive             one thread per output, 27 loads through L1.
//   march_regs        a 32x8 thread block owns an (x,y) tile (EX elements per thread in x, strided
//                     by 32 so warps stay coalesced) and marches through a band of z planes.
//                     Each plane's 3x3 in-plane sum S[z] is computed once (9 global loads, L1
//                     catches the x/y reuse) and reused by three outputs:
//                     out[z] = 0.037 * (S[z-1] + S[z] + S[z+1]).
//   march_smem_plain  same marching, but the plane tile plus halo is staged in shared memory with
//                     ordinary loads. NB=1: load, barrier, compute, barrier. NB=2: register
//                     prefetch of the next plane during the compute of the current one, double
//                     buffered tiles, one barrier per plane.
//   march_smem_async  staging with 16-byte cp.async into a ring of NB plane tiles (NB-1 planes in
//                     flight while one is computed; NB=1 is the unpipelined cp.async baseline).
//   march_sep         march_smem_async where each thread owns RY > 1 vertically adjacent outputs:
//                     3-wide row sums from shared memory are shared between them (separable
//                     3x3 sum: (RY+2)*3 shared loads per RY outputs instead of 9*RY).
// References: cudaMemcpy device-to-device and a 16-byte streaming copy kernel (2 * 8 n^3 bytes).

#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                                            \
  do {                                                                                                      \
    const cudaError_t err_ = (call);                                                                        \
    if (err_ != cudaSuccess) {                                                                              \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n  in: %s\n", cudaGetErrorName(err_), __FILE__, __LINE__, \
              cudaGetErrorString(err_), #call);                                                             \
      exit(1);                                                                                              \
    }                                                                                                       \
  } while (0)

constexpr double kC = 0.037;
constexpr int kWarmup = 3;
constexpr int kTimed = 20;

static inline int cdiv(int a, int b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------------
// Setup, checking and reference kernels
// ---------------------------------------------------------------------------------------------

// Deterministic pseudo-random values in [0, 1): splitmix64 of the linear index.
__global__ void fill_kernel(double* a, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long h = i + 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    a[i] = (double)(h >> 11) * 0x1.0p-53;
  }
}

// res[0] = max |a - ref| (NaN counts as +inf), res[1] = max |ref|. Both are kept as the bit
// pattern of a non-negative double, whose unsigned order equals the numeric order, so
// atomicMax on unsigned long long does the reduction. Launch with a multiple of 32 threads.
__global__ void maxdiff_kernel(const double* a, const double* ref, size_t count, unsigned long long* res) {
  double d = 0.0, m = 0.0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    double di = fabs(a[i] - ref[i]);
    if (!(di <= DBL_MAX)) di = INFINITY;
    d = fmax(d, di);
    m = fmax(m, fabs(ref[i]));
  }
  for (int o = 16; o > 0; o >>= 1) {
    d = fmax(d, __shfl_xor_sync(0xffffffffu, d, o));
    m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&res[0], (unsigned long long)__double_as_longlong(d));
    atomicMax(&res[1], (unsigned long long)__double_as_longlong(m));
  }
}

// Streaming copy, one 16-byte element per thread: the achievable read+write bandwidth reference.
__global__ void copy_kernel(const double2* __restrict__ src, double2* __restrict__ dst, size_t count2) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < count2) dst[i] = src[i];
}

// ---------------------------------------------------------------------------------------------
// 1. naive: one thread per output point, 27 loads.
// ---------------------------------------------------------------------------------------------

__global__ void __launch_bounds__(256) naive_kernel(const double* __restrict__ in, double* __restrict__ out, int n) {
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y = blockIdx.y * 8 + threadIdx.y;
  const int z = blockIdx.z;
  if (x < 1 || x > n - 2 || y < 1 || y > n - 2 || z < 1 || z > n - 2) return;
  const ptrdiff_t sy = n, sz = (ptrdiff_t)n * n;
  const ptrdiff_t c = z * sz + y * sy + x;
  double s = 0.0;
#pragma unroll
  for (int dz = -1; dz <= 1; ++dz)
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
      for (int dx = -1; dx <= 1; ++dx) s += __ldg(in + c + dz * sz + dy * sy + dx);
  out[c] = kC * s;
}

// ---------------------------------------------------------------------------------------------
// 2. march_regs: z-marching with rolling in-plane sums in registers, neighbours from global/L1.
// ---------------------------------------------------------------------------------------------

// 3x3 in-plane sum around in[i] (row pitch n).
__device__ __forceinline__ double plane9(const double* __restrict__ in, ptrdiff_t i, ptrdiff_t n) {
  double s = 0.0;
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) s += __ldg(in + i + dy * n + dx);
  return s;
}

// Block 32x8 threads, tile 32*EX (x) by 8 (y), BAND output planes per block.
template <int EX, int BAND>
__global__ void __launch_bounds__(256)
    march_regs_kernel(const double* __restrict__ in, double* __restrict__ out, int n) {
  const ptrdiff_t sz = (ptrdiff_t)n * n;
  const int y = 1 + blockIdx.y * 8 + threadIdx.y;
  const int z0 = 1 + blockIdx.z * BAND;
  const int z1 = min(z0 + BAND, n - 1);  // one past the last output plane of this band

  bool act[EX];
  ptrdiff_t idx[EX];      // linear index of this thread's point in the current plane z
  double sm[EX], s0[EX];  // S[z-1], S[z]
#pragma unroll
  for (int e = 0; e < EX; ++e) {
    const int x = blockIdx.x * (32 * EX) + threadIdx.x + 32 * e;
    act[e] = y <= n - 2 && x >= 1 && x <= n - 2;
    idx[e] = z0 * sz + (ptrdiff_t)y * n + x;
    sm[e] = act[e] ? plane9(in, idx[e] - sz, n) : 0.0;
    s0[e] = act[e] ? plane9(in, idx[e], n) : 0.0;
  }
  for (int z = z0; z < z1; ++z) {
#pragma unroll
    for (int e = 0; e < EX; ++e) {
      if (act[e]) {
        const double sp = plane9(in, idx[e] + sz, n);
        out[idx[e]] = kC * (sm[e] + s0[e] + sp);
        sm[e] = s0[e];
        s0[e] = sp;
      }
      idx[e] += sz;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3./4. march_smem / march_sep: z-marching with the plane tile staged in shared memory.
// ---------------------------------------------------------------------------------------------
//
// Block tile: outputs x in [xt, xt+TX) with xt = blockIdx.x*TX (aligned, so each warp's stores
// cover whole 32-byte sectors; x = 0 and x = n-1 are masked), y in [y0, y0+TY) with
// y0 = 1 + blockIdx.y*TY, z in [z0, z0+BAND) with z0 = 1 + blockIdx.z*BAND (all clipped to n-2).
// The staged tile of one plane is (TY+2) rows x (TX+4) doubles starting at global
// (y0-1, xt-2): TX+2 would suffice for the halo, but starting two columns early keeps every
// 16-byte chunk aligned in global and shared memory (requires n even). Chunks outside the
// grid are zero-filled; they only feed outputs that are masked anyway.
//
// Threads: 32 x (TY/RY). Thread (tx, ty) owns columns tx + 32*e (e < TX/32) and rows
// ty*RY .. ty*RY+RY-1 of the tile.

enum class Load { Plain, Async };

// 16-byte global->shared copy, bypassing L1 (.cg). src_bytes = 0 writes 16 zero bytes without
// reading global memory (the source address must still be a valid pointer).
__device__ __forceinline__ void cp_async16(double* smem_dst, const double* gmem_src, int src_bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem_src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Wait until at most N of this thread's most recent commit groups are still pending.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Assignment of the 16-byte chunks of one plane tile to the block's threads. Computed once per
// block; while marching in z only the plane base pointer changes.
template <int TX, int TY, int THREADS>
struct TileLoader {
  static constexpr int W = TX + 4;   // shared row pitch in doubles (even: rows 16-byte aligned)
  static constexpr int CPR = W / 2;  // 16-byte chunks per row
  static constexpr int CHUNKS = (TY + 2) * CPR;
  static constexpr int LPT = (CHUNKS + THREADS - 1) / THREADS;  // chunks per thread
  static constexpr int TILE = (TY + 2) * W;                     // doubles per plane tile

  int soff[LPT];  // chunk offset in the tile (doubles), -1 if this thread has no k-th chunk
  int goff[LPT];  // chunk offset in the global plane, -1 if outside the grid (zero-filled)

  __device__ TileLoader(int n, int xt, int y0, int tid) {
#pragma unroll
    for (int k = 0; k < LPT; ++k) {
      const int i = tid + k * THREADS;
      const int r = i / CPR, c = 2 * (i % CPR);
      const int gy = y0 - 1 + r, gx = xt - 2 + c;  // gy >= 0 always; gx even, n even
      soff[k] = i < CHUNKS ? r * W + c : -1;
      goff[k] = (i < CHUNKS && gy < n && gx >= 0 && gx < n) ? gy * n + gx : -1;
    }
  }

  __device__ __forceinline__ void issue_async(double* tile, const double* plane) const {
#pragma unroll
    for (int k = 0; k < LPT; ++k)
      if (soff[k] >= 0) cp_async16(tile + soff[k], goff[k] >= 0 ? plane + goff[k] : plane, goff[k] >= 0 ? 16 : 0);
  }
  __device__ __forceinline__ void load_regs(double2 (&v)[LPT], const double* plane) const {
#pragma unroll
    for (int k = 0; k < LPT; ++k)
      v[k] = goff[k] >= 0 ? __ldg(reinterpret_cast<const double2*>(plane + goff[k])) : make_double2(0.0, 0.0);
  }
  __device__ __forceinline__ void store_regs(double* tile, const double2 (&v)[LPT]) const {
#pragma unroll
    for (int k = 0; k < LPT; ++k)
      if (soff[k] >= 0) *reinterpret_cast<double2*>(tile + soff[k]) = v[k];
  }
};

// In-plane 3x3 sums of the thread's EX x RY outputs from a staged tile: 3-wide row sums first,
// then 3 rows. With RY = 1 that is the direct 9-load form; with RY > 1 the row sums are shared
// by vertically adjacent outputs.
template <int TX, int RY, int EX>
__device__ __forceinline__ void tile_sums(const double* tile, int tx, int row0, double (&s)[EX][RY]) {
  constexpr int W = TX + 4;
#pragma unroll
  for (int e = 0; e < EX; ++e) {
    // Output column c = tx + 32e is global x = xt + c; its x-1 neighbour is tile column c + 1.
    const double* col = tile + row0 * W + tx + 32 * e + 1;
    double rs[RY + 2];
#pragma unroll
    for (int r = 0; r < RY + 2; ++r) rs[r] = col[r * W] + col[r * W + 1] + col[r * W + 2];
#pragma unroll
    for (int j = 0; j < RY; ++j) s[e][j] = rs[j] + rs[j + 1] + rs[j + 2];
  }
}

template <int TX, int TY, int RY, int BAND, Load LD, int NB>
__global__ void __launch_bounds__(32 * (TY / RY))
    march_smem_kernel(const double* __restrict__ in, double* __restrict__ out, int n) {
  static_assert(TX % 32 == 0 && TY % RY == 0, "tile shape");
  static_assert(NB >= 1 && NB <= 4 && (LD == Load::Async || NB <= 2), "pipeline depth");
  constexpr int EX = TX / 32;
  constexpr int THREADS = 32 * (TY / RY);
  using Loader = TileLoader<TX, TY, THREADS>;
  __shared__ __align__(16) double tiles[NB][Loader::TILE];

  const int tx = threadIdx.x, row0 = threadIdx.y * RY;
  const int xt = blockIdx.x * TX, y0 = 1 + blockIdx.y * TY, z0 = 1 + blockIdx.z * BAND;
  const int planes = min(BAND, n - 1 - z0) + 2;  // input planes z0-1 .. last output plane + 1
  const ptrdiff_t sz = (ptrdiff_t)n * n;
  const double* src = in + (z0 - 1) * sz;  // input plane p of the band is src + p*sz
  const Loader ld(n, xt, y0, tx + 32 * threadIdx.y);

  // Which of the thread's outputs are interior points, and where they go within a plane.
  unsigned mask = 0;
#pragma unroll
  for (int e = 0; e < EX; ++e)
#pragma unroll
    for (int j = 0; j < RY; ++j) {
      const int x = xt + tx + 32 * e, y = y0 + row0 + j;
      if (x >= 1 && x <= n - 2 && y <= n - 2) mask |= 1u << (e * RY + j);
    }
  const ptrdiff_t obase = (ptrdiff_t)(y0 + row0) * n + xt + tx;

  double sm[EX][RY], s0[EX][RY], sp[EX][RY];  // in-plane sums of planes p-2, p-1, p
  // Consume staged input plane p: its sums complete the outputs of plane p-1 (global z0+p-2).
  auto consume = [&](const double* tile, int p) {
    tile_sums<TX, RY, EX>(tile, tx, row0, sp);
    if (p >= 2) {
      double* o = out + (z0 + p - 2) * sz + obase;
#pragma unroll
      for (int e = 0; e < EX; ++e)
#pragma unroll
        for (int j = 0; j < RY; ++j)
          if (mask & (1u << (e * RY + j))) o[(ptrdiff_t)j * n + 32 * e] = kC * (sm[e][j] + s0[e][j] + sp[e][j]);
    }
#pragma unroll
    for (int e = 0; e < EX; ++e)
#pragma unroll
      for (int j = 0; j < RY; ++j) {
        sm[e][j] = s0[e][j];
        s0[e][j] = sp[e][j];
      }
  };

  if constexpr (LD == Load::Plain && NB == 1) {
    // Load, barrier, compute, barrier: load latency is hidden only by other resident blocks.
    double2 v[Loader::LPT];
    for (int p = 0; p < planes; ++p) {
      ld.load_regs(v, src + p * sz);
      ld.store_regs(tiles[0], v);
      __syncthreads();
      consume(tiles[0], p);
      __syncthreads();
    }
  } else if constexpr (LD == Load::Plain) {
    // Register prefetch: plane p+1 is loaded into registers before plane p is computed and
    // stored into the other tile afterwards. The single barrier per plane both publishes
    // tile (p+1)&1 and guarantees nobody still reads tile p&1 when it is refilled at p+1.
    double2 v[Loader::LPT];
    ld.load_regs(v, src);
    ld.store_regs(tiles[0], v);
    __syncthreads();
    for (int p = 0; p < planes; ++p) {
      const bool next = p + 1 < planes;
      if (next) ld.load_regs(v, src + (p + 1) * sz);
      consume(tiles[p & 1], p);
      if (next) ld.store_regs(tiles[(p + 1) & 1], v);
      __syncthreads();
    }
  } else if constexpr (NB == 1) {
    // cp.async without overlap: the baseline for the pipelined versions.
    for (int p = 0; p < planes; ++p) {
      __syncthreads();  // everyone has finished reading the tile of plane p-1
      ld.issue_async(tiles[0], src + p * sz);
      cp_async_commit();
      cp_async_wait<0>();
      __syncthreads();  // everyone's copies of plane p have landed
      consume(tiles[0], p);
    }
  } else {
    // Ring of NB tiles, one commit group per plane (plane p is group p). While plane p is
    // computed, planes p+1 .. p+NB-1 are in flight.
#pragma unroll
    for (int s = 0; s < NB - 1; ++s) {
      if (s < planes) ld.issue_async(tiles[s], src + s * sz);
      cp_async_commit();
    }
    int cur = 0;  // tile holding plane p (= p % NB)
    for (int p = 0; p < planes; ++p) {
      // NB-1+p groups are committed; allowing NB-2 pending means groups 0..p are complete.
      cp_async_wait<NB - 2>();
      // After this barrier every thread's copies of plane p are visible, and every thread has
      // finished consume(p-1), so the tile of plane p-1 may be overwritten.
      __syncthreads();
      const int q = p + NB - 1;  // refill the tile of plane p-1: (p+NB-1) % NB == (p-1) % NB
      if (q < planes) ld.issue_async(tiles[cur == 0 ? NB - 1 : cur - 1], src + q * sz);
      cp_async_commit();  // always commit (possibly empty) so that plane p stays group p
      consume(tiles[cur], p);
      cur = cur + 1 == NB ? 0 : cur + 1;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host: variants and their launch wrappers
// ---------------------------------------------------------------------------------------------

// All stencil kernels share the signature (const double* in, double* out, int n), so a
// variant is its kernel plus launch geometry.
struct Variant {
  std::string name;    // unique id
  std::string family;  // naive, march_regs, march_smem_plain, march_smem_async, march_sep
  std::string params;  // JSON object with the template parameters
  const void* func;
  dim3 grid, block;
};

static Variant naive_variant(int n) {
  return {"naive", "naive", "{}", (const void*)naive_kernel, dim3(cdiv(n, 32), cdiv(n, 8), n), dim3(32, 8, 1)};
}

template <int EX, int BAND>
static Variant march_regs_variant(int n) {
  char name[64], params[64];
  snprintf(name, sizeof name, "march_regs_ex%d_b%d", EX, BAND);
  snprintf(params, sizeof params, "{\"EX\":%d,\"BAND\":%d}", EX, BAND);
  return {name,
          "march_regs",
          params,
          (const void*)march_regs_kernel<EX, BAND>,
          dim3(cdiv(n, 32 * EX), cdiv(n - 2, 8), cdiv(n - 2, BAND)),
          dim3(32, 8, 1)};
}

template <int TX, int TY, int RY, int BAND, Load LD, int NB>
static Variant march_smem_variant(int n) {
  const char* family = RY > 1 ? "march_sep" : (LD == Load::Async ? "march_smem_async" : "march_smem_plain");
  char name[96], params[128];
  snprintf(name, sizeof name, "%s_tx%d_ty%d_ry%d_b%d_nb%d", family, TX, TY, RY, BAND, NB);
  snprintf(params, sizeof params, "{\"TX\":%d,\"TY\":%d,\"RY\":%d,\"BAND\":%d,\"NB\":%d,\"load\":\"%s\"}", TX, TY, RY,
           BAND, NB, LD == Load::Async ? "cp.async" : "plain");
  return {name,
          family,
          params,
          (const void*)march_smem_kernel<TX, TY, RY, BAND, LD, NB>,
          dim3(cdiv(n, TX), cdiv(n - 2, TY), cdiv(n - 2, BAND)),
          dim3(32, TY / RY, 1)};
}

static void launch(const Variant& v, const double* in, double* out, int n) {
  void* args[] = {(void*)&in, (void*)&out, (void*)&n};
  CK(cudaLaunchKernel(v.func, v.grid, v.block, args, 0, nullptr));
}

static std::vector<Variant> all_variants(int n) {
  return {
      naive_variant(n),
      march_regs_variant<1, 32>(n),
      march_regs_variant<2, 16>(n),
      march_regs_variant<2, 32>(n),
      march_regs_variant<2, 64>(n),
      // Plain staging: unpipelined vs register-prefetch double buffering.
      march_smem_variant<32, 8, 1, 32, Load::Plain, 1>(n),
      march_smem_variant<64, 8, 1, 32, Load::Plain, 1>(n),
      march_smem_variant<32, 8, 1, 32, Load::Plain, 2>(n),
      march_smem_variant<64, 8, 1, 32, Load::Plain, 2>(n),
      march_smem_variant<64, 16, 1, 32, Load::Plain, 2>(n),
      // cp.async pipeline depth at two tile widths.
      march_smem_variant<32, 8, 1, 32, Load::Async, 1>(n),
      march_smem_variant<32, 8, 1, 32, Load::Async, 2>(n),
      march_smem_variant<32, 8, 1, 32, Load::Async, 3>(n),
      march_smem_variant<32, 8, 1, 32, Load::Async, 4>(n),
      march_smem_variant<64, 8, 1, 32, Load::Async, 2>(n),
      march_smem_variant<64, 8, 1, 32, Load::Async, 3>(n),
      march_smem_variant<64, 8, 1, 32, Load::Async, 4>(n),
      // Tile height (halo overhead (TY+2)/TY vs. blocks per SM).
      march_smem_variant<64, 4, 1, 32, Load::Async, 3>(n),
      march_smem_variant<32, 16, 1, 32, Load::Async, 3>(n),
      march_smem_variant<64, 16, 1, 32, Load::Async, 2>(n),
      march_smem_variant<64, 16, 1, 32, Load::Async, 3>(n),
      // Band length (z halo overhead (BAND+2)/BAND vs. number of blocks).
      march_smem_variant<64, 8, 1, 16, Load::Async, 3>(n),
      march_smem_variant<64, 8, 1, 64, Load::Async, 3>(n),
      // Separable in-plane sum, RY outputs per thread in y.
      march_smem_variant<32, 16, 2, 32, Load::Async, 3>(n),
      march_smem_variant<64, 16, 2, 32, Load::Async, 3>(n),
      march_smem_variant<64, 16, 4, 32, Load::Async, 3>(n),
  };
}

// ---------------------------------------------------------------------------------------------
// Host: measurement
// ---------------------------------------------------------------------------------------------

// Mean milliseconds per call of f over kTimed calls, after kWarmup untimed calls.
template <class F>
static double time_ms(F&& f) {
  for (int i = 0; i < kWarmup; ++i) f();
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  CK(cudaEventRecord(t0));
  for (int i = 0; i < kTimed; ++i) f();
  CK(cudaEventRecord(t1));
  CK(cudaEventSynchronize(t1));
  CK(cudaGetLastError());
  float ms = 0.f;
  CK(cudaEventElapsedTime(&ms, t0, t1));
  CK(cudaEventDestroy(t0));
  CK(cudaEventDestroy(t1));
  return ms / kTimed;
}

struct Diff {
  double maxdiff, maxref;
};

static Diff compare(const double* a, const double* ref, size_t count, unsigned long long* d_res) {
  CK(cudaMemset(d_res, 0, 2 * sizeof(unsigned long long)));
  maxdiff_kernel<<<1024, 256>>>(a, ref, count, d_res);
  CK(cudaGetLastError());
  unsigned long long h[2];
  CK(cudaMemcpy(h, d_res, sizeof h, cudaMemcpyDeviceToHost));
  Diff d;
  memcpy(&d.maxdiff, &h[0], sizeof(double));
  memcpy(&d.maxref, &h[1], sizeof(double));
  return d;
}

static void report_copy(const char* name, double ms, double bytes, const Diff& d) {
  const char* check = d.maxdiff == 0.0 ? "PASS" : "FAIL";
  printf(
      "{\"variant\":\"%s\",\"family\":\"reference\",\"ms\":%.5f,\"gbps\":%.1f,\"regs\":null,"
      "\"blocks_per_sm\":null,\"blocks\":null,\"maxdiff\":%.3e,\"check\":\"%s\"}\n",
      name, ms, bytes / ms * 1e-6, d.maxdiff, check);
  fprintf(stderr, "%-44s %9.4f %8.1f %36s %s\n", name, ms, bytes / ms * 1e-6, "", check);
  fflush(stdout);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 512;
  if (n < 4 || n % 2 != 0) {
    fprintf(stderr, "usage: %s [n]   (n = grid side, even, >= 4; default 512)\n", argv[0]);
    return 2;
  }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));

  const size_t count = (size_t)n * n * n;
  const size_t bytes = count * sizeof(double);
  const double m = n - 2;
  const double floor_bytes = 8.0 * ((double)count + m * m * m);  // read in + write interior
  const double copy_bytes = 2.0 * (double)bytes;                 // read + write n^3 doubles

  printf(
      "{\"device\":\"%s\",\"sms\":%d,\"l2_bytes\":%d,\"n\":%d,\"floor_bytes\":%.0f,"
      "\"warmup\":%d,\"timed\":%d}\n",
      prop.name, prop.multiProcessorCount, prop.l2CacheSize, n, floor_bytes, kWarmup, kTimed);
  fprintf(stderr, "device: %s (%d SMs, L2 %.0f MiB)\n", prop.name, prop.multiProcessorCount,
          prop.l2CacheSize / 1048576.0);
  fprintf(stderr, "grid %d^3, floor traffic %.4f GB, %d warm-up + %d timed launches each\n\n", n, floor_bytes * 1e-9,
          kWarmup, kTimed);

  double *in, *out, *ref;
  unsigned long long* d_res;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMalloc(&ref, bytes));
  CK(cudaMalloc(&d_res, 2 * sizeof(unsigned long long)));
  fill_kernel<<<4096, 256>>>(in, count);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  fprintf(stderr, "%-44s %9s %8s %5s %6s %5s %9s %7s %5s\n", "variant", "ms", "GB/s", "regs", "smem", "b/SM", "blocks",
          "%copy", "check");

  // Copy references.
  const double memcpy_ms = time_ms([&] { CK(cudaMemcpy(out, in, bytes, cudaMemcpyDeviceToDevice)); });
  report_copy("cudaMemcpyD2D", memcpy_ms, copy_bytes, compare(out, in, count, d_res));

  CK(cudaMemset(out, 0, bytes));
  const size_t count2 = count / 2;
  const unsigned copy_blocks = (unsigned)((count2 + 255) / 256);
  const double copyk_ms = time_ms([&] {
    copy_kernel<<<copy_blocks, 256>>>(reinterpret_cast<const double2*>(in), reinterpret_cast<double2*>(out), count2);
  });
  report_copy("copy_kernel", copyk_ms, copy_bytes, compare(out, in, count, d_res));

  const double copy_gbps = copy_bytes / fmin(memcpy_ms, copyk_ms) * 1e-6;
  fprintf(stderr, "%-44s %9.4f   (floor traffic at the best copy bandwidth)\n", "floor@copy",
          floor_bytes / copy_gbps * 1e-6);

  // Reference result.
  const std::vector<Variant> variants = all_variants(n);
  CK(cudaMemset(ref, 0, bytes));
  launch(variants[0], in, ref, n);
  CK(cudaDeviceSynchronize());

  int failures = 0;
  for (const Variant& v : variants) {
    CK(cudaMemset(out, 0, bytes));
    launch(v, in, out, n);
    CK(cudaDeviceSynchronize());
    const Diff d = compare(out, ref, count, d_res);
    const bool pass = d.maxref > 0.0 && d.maxdiff < 1e-12 * d.maxref;
    failures += !pass;

    const double ms = time_ms([&] { launch(v, in, out, n); });
    const double gbps = floor_bytes / ms * 1e-6;

    cudaFuncAttributes attr;
    CK(cudaFuncGetAttributes(&attr, v.func));
    const int threads = (int)(v.block.x * v.block.y * v.block.z);
    int blocks_per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, v.func, threads, 0));
    const long long blocks = (long long)v.grid.x * v.grid.y * v.grid.z;

    printf(
        "{\"variant\":\"%s\",\"family\":\"%s\",\"params\":%s,\"ms\":%.5f,\"gbps\":%.1f,"
        "\"regs\":%d,\"smem_bytes\":%zu,\"threads\":%d,\"blocks_per_sm\":%d,\"blocks\":%lld,"
        "\"maxdiff\":%.3e,\"check\":\"%s\"}\n",
        v.name.c_str(), v.family.c_str(), v.params.c_str(), ms, gbps, attr.numRegs, attr.sharedSizeBytes, threads,
        blocks_per_sm, blocks, d.maxdiff, pass ? "PASS" : "FAIL");
    fflush(stdout);
    fprintf(stderr, "%-44s %9.4f %8.1f %5d %6zu %5d %9lld %6.1f%% %s\n", v.name.c_str(), ms, gbps, attr.numRegs,
            attr.sharedSizeBytes, blocks_per_sm, blocks, 100.0 * gbps / copy_gbps, pass ? "PASS" : "FAIL");
  }

  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(ref));
  CK(cudaFree(d_res));
  fprintf(stderr, "\n%d variant(s) failed the check\n", failures);
  return failures ? 1 : 0;
}
