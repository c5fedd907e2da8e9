// The hand-written march_smem_plain<64, 8, 1, 32, Plain, 2> of s27.cu as an NVRTC kernel with
// tessera's parameter block (args[0]: the grid's element (0, 0, 0); args[27]: the output's
// element (1, 1, 1)), launched as launch_march launches: blockIdx.x a tile (x fastest), blockIdx.y a
// band, 256 threads.
#define KMAX_CONSTANTS 64
#define KMAX_ARGS 28
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
  Value constants[KMAX_CONSTANTS];
  void* block_partials;
  void* partials;
  long nblocks;
  long count;
  long chunks;
  long row_threads;
  long finish_lanes;
  Accessor args[KMAX_ARGS];
};
constexpr int TX = 64, TY = 8, THREADS = 256, W = TX + 4, CPR = W / 2, CHUNKS = (TY + 2) * CPR;
constexpr int LPT = (CHUNKS + THREADS - 1) / THREADS, TILE = (TY + 2) * W, EX = TX / 32;
extern "C" __global__ void __launch_bounds__(256, 6) tessera_fused(const KernelParams p) {
  __shared__ __align__(16) double tiles[2][TILE];
  const int n = static_cast<int>(p.domain.n[2]) + 2;  // the grid's side
  const double* in = reinterpret_cast<const double*>(p.args[0].ptr) + p.args[0].origin;
  double* out = reinterpret_cast<double*>(p.args[27].ptr) + p.args[27].origin - (long(n) * n + n + 1);
  const int xtiles = (n + TX - 1) / TX;
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32, tid = threadIdx.x;
  const int xt = (blockIdx.x % xtiles) * TX, y0 = 1 + (blockIdx.x / xtiles) * TY;
  const int band = (static_cast<int>(p.domain.n[0]) + gridDim.y - 1) / gridDim.y, z0 = 1 + blockIdx.y * band;
  if (z0 > n - 2) return;
  const int planes = min(band, n - 1 - z0) + 2;
  const long sz = long(n) * n;
  const double* src = in + (z0 - 1) * sz;
  int soff[LPT], goff[LPT];
#pragma unroll
  for (int k = 0; k < LPT; ++k) {
    const int i = tid + k * THREADS, r = i / CPR, c = 2 * (i % CPR), gy = y0 - 1 + r, gx = xt - 2 + c;
    soff[k] = i < CHUNKS ? r * W + c : -1;
    goff[k] = (i < CHUNKS && gy < n && gx >= 0 && gx < n) ? gy * n + gx : -1;
  }
  unsigned mask = 0;
#pragma unroll
  for (int e = 0; e < EX; ++e) {
    const int x = xt + tx + 32 * e, y = y0 + ty;
    if (x >= 1 && x <= n - 2 && y <= n - 2) mask |= 1u << e;
  }
  const long obase = long(y0 + ty) * n + xt + tx;
  double sm[EX], s0[EX], sp[EX];
  double2 v[LPT];
  auto load = [&](const double* plane) {
#pragma unroll
    for (int k = 0; k < LPT; ++k)
      v[k] = goff[k] >= 0 ? *reinterpret_cast<const double2*>(plane + goff[k]) : make_double2(0.0, 0.0);
  };
  auto store = [&](double* tile) {
#pragma unroll
    for (int k = 0; k < LPT; ++k)
      if (soff[k] >= 0) *reinterpret_cast<double2*>(tile + soff[k]) = v[k];
  };
  auto consume = [&](const double* tile, int pl) {
#pragma unroll
    for (int e = 0; e < EX; ++e) {
      const double* col = tile + ty * W + tx + 32 * e + 1;
      double rs[3];
#pragma unroll
      for (int r = 0; r < 3; ++r) rs[r] = col[r * W] + col[r * W + 1] + col[r * W + 2];
      sp[e] = rs[0] + rs[1] + rs[2];
    }
    if (pl >= 2) {
      double* o = out + (z0 + pl - 2) * sz + obase;
#pragma unroll
      for (int e = 0; e < EX; ++e)
        if (mask & (1u << e)) o[32 * e] = 0.037 * (sm[e] + s0[e] + sp[e]);
    }
#pragma unroll
    for (int e = 0; e < EX; ++e) sm[e] = s0[e], s0[e] = sp[e];
  };
  load(src);
  store(tiles[0]);
  __syncthreads();
  for (int pl = 0; pl < planes; ++pl) {
    const bool next = pl + 1 < planes;
    if (next) load(src + (pl + 1) * sz);
    consume(tiles[pl & 1], pl);
    if (next) store(tiles[(pl + 1) & 1]);
    __syncthreads();
  }
}
