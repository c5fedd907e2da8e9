#include "tessera/jit/codegen.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/jit/emitter.hpp"

namespace tessera::detail {

namespace {

using namespace codegen;

// The CUDA side of element_ops.hpp's needs (after kStdPrelude).
constexpr const char* kCudaPrelude = R"(#define KOKKOS_FORCEINLINE_FUNCTION __device__ __forceinline__
namespace tessera_math {
__device__ __forceinline__ double fabs(double x) { return ::fabs(x); }
__device__ __forceinline__ float fabs(float x) { return ::fabsf(x); }
__device__ __forceinline__ double pow(double x, double y) { return ::pow(x, y); }
__device__ __forceinline__ float pow(float x, float y) { return ::powf(x, y); }
__device__ __forceinline__ double fmod(double x, double y) { return ::fmod(x, y); }
__device__ __forceinline__ float fmod(float x, float y) { return ::fmodf(x, y); }
}  // namespace tessera_math
#define TESSERA_KOKKOS_MATH tessera_math
)";

// Folds each slot's accumulators across the lanes of a warp, or of each segment of `width` lanes
// (a power of two, a C++ expression), into the segment's first lane.
std::string warp_fold(const Program& p, const std::string& suffix, const std::string& width = "32") {
  std::ostringstream s;
  for (std::size_t k = 0; k < p.reduce_kinds.size(); ++k) {
    const int kk = static_cast<int>(k);
    const std::string acc = "acc" + std::to_string(k) + suffix, idx = "idx" + std::to_string(k) + suffix;
    s << "  for (int offset = " << width << " / 2; offset > 0; offset /= 2) { const auto v = "
      << "__shfl_down_sync(0xffffffffu, " << acc << ", offset, " << width
      << "); const long i = __shfl_down_sync(0xffffffffu, " << idx << ", offset, " << width << "); "
      << fold(p, kk, acc, idx, "v", "i") << " }\n";
  }
  return s.str();
}

}  // namespace

bool jit_supports(const Program&, int nargs) { return nargs <= kMaxArgs; }

// Why several elements: a GPU issues a thread's instructions in order, so with one element per
// thread each thread has one element's loads in flight, and memory-bound kernels reach about half
// of DRAM bandwidth; E interleaved elements put E times as many loads in flight.
// What it costs: registers. Every live value exists E times (a double in two 32-bit registers;
// with the loads first, every loaded value is live from the top), and past 64 registers a thread
// an SM holds fewer blocks; past 255 values spill to local memory.
// Where it pays: short programs, which are memory-bound. Measured on an H200 (float64, loads
// first, device time per kernel for E = 1 / 2 / 4): the 5-point stencil (12 instructions, 3
// registers) 1.561 / 1.311 / 1.378 ms; CG's update of x and r with vdot(r, r) 1.106 / 1.046 /
// 1.014, its vdot(p, A p) 0.316 / 0.251 / 0.250, its update of p 0.460 / 0.402 / 0.399;
// Black-Scholes (104 instructions with exp, log, sqrt and divisions, 13 registers:
// compute-bound) 2.029 / 2.090 / 3.300. Hence: short programs 2 elements, 4 when they reduce (a
// reducing block also combines its partial values: more elements share that cost), medium ones
// 2, long ones 1. The fuzz corpus's programs have at most 36 instructions and 11 registers.
// Programs that load many operands (not counting replicated values) get 1 too: their loaded
// values are live together, E times over. cuPyNumeric's 27-point stencil (27 loads, 56 instructions) took 128 registers
// with E = 2 (a quarter of the SM's threads resident, 14.7% achieved occupancy, 3.4 ms for a 512^3 grid); four of a
// shallow-water step's five kernels took 82-88 (25% occupancy, DRAM 41-62% busy).
constexpr int kMaxLoadsForElements = 8;
// Programs of at least this many instructions, one element per thread and no reduction, are
// compiled for kLongProgramBlocks resident blocks per SM (generate_cuda).
constexpr std::size_t kLongProgram = 128;
constexpr int kLongProgramBlocks = 4;
int elements_per_thread(const Program& program, const KernelShape& shape) {
  const std::size_t instructions = program.code.size();
  const bool reduces = !program.reduce_kinds.empty();
  int loads = 0;  // of elements: a replicated value (CG's alpha) is one register for all of them
  for (const Instr& in : program.code) loads += in.op == OpCode::Load && !(shape.scalar >> in.a & 1);
  if (loads > kMaxLoadsForElements) return 1;
  if (instructions <= 32 && program.registers <= 8) return reduces ? 4 : 2;
  if (instructions <= 64 && program.registers <= 16) return 2;
  return 1;
}

namespace {

// What every kernel's source starts with: the parameter block's capacities, the standard library
// declarations, element_ops.hpp and the parameter block. The block ends with the arguments, and a
// kernel declares only the `nargs` it reads: the launch passes the host's KernelParams, of which
// the driver copies the kernel's parameter size, so a kernel of 5 arguments takes about 0.8 KB per
// launch rather than 3.2 KB (cuLaunchKernel took a quarter of the host's time in the cavity loop;
// the smaller block made that loop 2.5% faster on an H100, docs/BENCHMARKS.md 2026-12-06).
std::string kernel_prelude(int nargs) {
  return "#define KMAX_CONSTANTS " + std::to_string(kMaxJitConstants) + "\n#define KMAX_ARGS " +
         std::to_string(std::max(1, nargs)) + "\n" + kStdPrelude + kCudaPrelude + element_ops_body() + kParams;
}

// The chunks of each output of the first `slots` slots (generate_along's and generate_sweep's
// second kernel; a full reduction's too, as one output whose chunks are the blocks). p.finish_lanes (L, finish_lanes in
// codegen.hpp) threads share an output: lane s folds chunks s, s + L, s + 2 L, ... in order, then the lanes' values are
// folded pairwise in shared memory (lane s with lane s + w, w = L / 2, ..., 1): a fixed order, the same result on every
// run. A block's 256 / L outputs are consecutive, so a warp's loads of one chunk are coalesced. One thread per output
// folding every chunk in order was latency-bound: 45 us of mean(A, 0)'s 0.82 ms on a 32768 x 4096 grid (256 chunks of
// 4096 outputs in 16 blocks), 12 us with 64 lanes (ncu on an H200); logistic regression's gradient (1024 bands of 32
// outputs, in one block) 0.911 -> 0.768 ms per step.
std::string finish_kernel(const Program& program, int slots) {
  std::ostringstream s;
  s << "\nextern \"C\" __global__ void __launch_bounds__(" << kJitBlockX << ") tessera_finish(const KernelParams p) {\n"
    << "  __shared__ Value lanes[" << 2 * slots << "][" << kJitBlockX << "];\n"
    << "  const Value* in = static_cast<const Value*>(p.block_partials);\n"
    << "  Value* out = static_cast<Value*>(p.partials);\n"
    << "  const int L = static_cast<int>(p.finish_lanes), G = " << kJitBlockX << " / L;\n"
    << "  const int o = threadIdx.x % G, lane = threadIdx.x / G;\n"
    << "  for (long base = static_cast<long>(blockIdx.x) * G; base < p.count; base += static_cast<long>(gridDim.x) * "
       "G) {\n"
    << "    const long e = base + o;\n    " << accumulators(program, "") << "\n"
    << "    if (e < p.count) {\n#pragma unroll 4\n      for (long c = lane; c < p.chunks; c += L) {\n";
  for (int k = 0; k < slots; ++k)
    s << "        { const auto v = in[(c * " << 2 * slots << " + " << 2 * k << ") * p.count + e]."
      << acc_member(program, k) << "; const long i = in[(c * " << 2 * slots << " + " << 2 * k + 1
      << ") * p.count + e].i64; " << fold(program, k, "acc" + std::to_string(k), "idx" + std::to_string(k), "v", "i")
      << " }\n";
  s << "      }\n    }\n";
  for (int k = 0; k < slots; ++k)
    s << "    lanes[" << 2 * k << "][threadIdx.x]." << acc_member(program, k) << " = acc" << k << "; lanes["
      << 2 * k + 1 << "][threadIdx.x].i64 = idx" << k << ";\n";
  s << "    for (int w = L / 2; w > 0; w /= 2) {\n      __syncthreads();\n      if (lane < w) {\n";
  for (int k = 0; k < slots; ++k) {
    const char* m = acc_member(program, k);
    const std::string a = "acc" + std::to_string(k), x = "idx" + std::to_string(k);
    s << "        { const auto v = lanes[" << 2 * k << "][threadIdx.x + w * G]." << m << "; const long i = lanes["
      << 2 * k + 1 << "][threadIdx.x + w * G].i64; " << fold(program, k, a, x, "v", "i") << " lanes[" << 2 * k
      << "][threadIdx.x]." << m << " = " << a << "; lanes[" << 2 * k + 1 << "][threadIdx.x].i64 = " << x << "; }\n";
  }
  s << "      }\n    }\n    if (lane == 0 && e < p.count) {\n";
  for (int k = 0; k < slots; ++k)
    s << "      out[" << 2 * k << " * p.count + e]." << acc_member(program, k) << " = acc" << k << "; out[" << 2 * k + 1
      << " * p.count + e].i64 = idx" << k << ";\n";
  s << "    }\n    __syncthreads();\n  }\n}\n";
  return s.str();
}

// The arguments that a row reduction's code [0, end) may load two columns at a time (paired
// loads, generate_along): read along the row with unit stride, not one value for all (scalar),
// every load of the type its elements have, a type of 4 or 8 bytes (a vector of two exists).
std::uint64_t pairable_loads(const Program& program, const KernelShape& shape, int end) {
  std::uint64_t loaded = 0, refused = 0;
  std::vector<int> type_of(kMaxArgs, -1);
  for (int pc = 0; pc < end; ++pc) {
    const Instr& in = program.code[pc];
    if (in.op != OpCode::Load) continue;
    const std::uint64_t bit = std::uint64_t(1) << in.a;
    const bool wide = size_of(in.type) == 4 || size_of(in.type) == 8;
    if (!wide || (shape.scalar & bit) || !(shape.unit & bit) ||
        (type_of[in.a] >= 0 && type_of[in.a] != static_cast<int>(in.type)))
      refused |= bit;
    type_of[in.a] = static_cast<int>(in.type);
    loaded |= bit;
  }
  for (const Instr& in : program.code)  // stored arguments keep their column-by-column loads
    if (in.op == OpCode::Store) refused |= std::uint64_t(1) << in.a;
  return loaded & ~refused;
}

// " && ..." that every paired argument's row starts at a multiple of a vector of two.
std::string pair_alignment(const Program& program, const KernelShape& shape, std::uint64_t pairs) {
  std::ostringstream s;
  for (int a = 0; a < kMaxArgs; ++a) {
    if (!(pairs >> a & 1)) continue;
    const auto load = std::find_if(program.code.begin(), program.code.end(),
                                   [a](const Instr& in) { return in.op == OpCode::Load && in.a == a; });
    s << " && (reinterpret_cast<unsigned long>(reinterpret_cast<const " << ctype(load->type) << "*>(p.args[" << a
      << "].ptr) + " << element_address(a, shape, "0") << ") % " << 2 * size_of(load->type) << " == 0)";
  }
  return s.str();
}

// Rows that a segment of a row reduction folds together (generate_along, GeneratedKernel::row_group):
// kRowGroup where the row's code loads an operand that is the same in every row (a matvec's x,
// KernelShape::row_invariant), 1 otherwise. One row at a time, a matvec reads x once per row of A,
// as many bytes from L2 as A's from DRAM. Measured on an H100 (tessera-bench jacobi with the
// matvec generated, ms/iter; docs/BENCHMARKS.md, 2026-12-06 seventh session): N = 32768 3.83 one
// row at a time, 3.10 with 2 rows of 2 pairs, 2.97 with 4 rows of 2 pairs (cuBLAS's GEMV and the
// epilogue's kernel 2.78); N = 16384 0.99, 0.79, 0.79 (cuBLAS 0.71). Registers bound E: 4 rows of 4
// pairs would hold 32 of A's values per thread.
constexpr int kRowGroup = 4;
constexpr int kRowGroupElements = 2;  // per thread and row of a group: E pairs of each row in flight
int row_group(const Program& program, const KernelShape& shape, int end) {
  if (shape.flat) return 1;
  for (int pc = 0; pc < end; ++pc)
    if (program.code[pc].op == OpCode::Load && (shape.row_invariant >> program.code[pc].a & 1)) return kRowGroup;
  return 1;
}

// Reductions along padded dimension R (Program::reduce_dim): output e (row-major over the other
// two dimensions) of slot k goes to partials[2 k count + e] and its index to [(2 k + 1) count +
// e]. Along the last dimension (a row's sum) a warp takes a row (or a group of rows that read one
// vector: row_group): its lanes stride along it (E elements per lane in flight), then fold by
// shuffles. Along an outer dimension (a column's sum)
// a thread takes E columns (j + e * kJitBlockX, coalesced) and loops over the reduced dimension;
// when there are too few outputs to fill the GPU the reduced dimension is cut into p.chunks
// ranges (blockIdx.y), each writing to block_partials[chunk], and tessera_finish folds the chunks.
// Either way each output is folded in a fixed order: the same result on every run.
GeneratedKernel generate_along(const Program& program, int nargs, const KernelShape& shape, int elements) {
  const int R = program.reduce_dim;
  const int nreduce = static_cast<int>(program.reduce_kinds.size());
  const int body_end = program.epilogue >= 0 ? program.epilogue : static_cast<int>(program.code.size());
  const int G = R == 2 ? row_group(program, shape, body_end) : 1;
  if (G > 1) elements = std::min(elements, kRowGroupElements);
  std::ostringstream s;
  s << "// tessera fused kernel: " << program.describe() << "\n// " << elements << " element(s) per thread\n";
  s << kernel_prelude(nargs);
  s << "\nextern \"C\" __global__ void __launch_bounds__(" << kJitBlockX
    << ") tessera_fused(const KernelParams p) {\n"
       "  const long n1 = p.domain.n[1], n2 = p.domain.n[2];\n";
  std::vector<Lane> lanes;
  for (int e = 0; e < elements; ++e) lanes.push_back({"j_" + std::to_string(e), "_" + std::to_string(e)});
  const auto store = [&](const std::string& base, const std::string& e, const std::string& suffix) {
    for (int k = 0; k < nreduce; ++k)
      s << "      " << base << "[" << 2 * k << " * p.count + " << e << "]." << acc_member(program, k) << " = acc" << k
        << suffix << "; " << base << "[" << 2 * k + 1 << " * p.count + " << e << "].i64 = idx" << k << suffix << ";\n";
  };
  if (R == 2) {
    // p.row_threads (T) threads share a row (jit.cpp, row_threads): a power of two up to 32, whose
    // shuffles stay inside their segment of the warp. The loop over rows is uniform per block
    // (every lane reaches every shuffle); lanes past the last row fold nothing. A segment folds
    // G = row_group rows at once (GeneratedKernel::row_group): row m of the segment has its own
    // row<m>, i0_<m>, i1_<m> and accumulators acc<k>_<m>, and its code runs in a scope that names
    // them i0, i1 and acc<k>, so an operand that is the same in every row (a matvec's x) is loaded
    // once for the G rows (the compiler merges the loads of one address: nothing is stored between
    // them).
    Emitter emitter(program, shape);
    const int n = static_cast<int>(program.code.size());
    s << "  const long rows = p.domain.n[0] * n1;\n  const int T = static_cast<int>(p.row_threads);\n"
      << "  const int sub = threadIdx.x % T;\n  const long per_block = " << kJitBlockX << " / T * " << G << ";\n";
    s << "  for (long base = static_cast<long>(blockIdx.x) * per_block; base < rows; base += "
         "static_cast<long>(gridDim.x)"
      << " * per_block) {\n"
      << "    const long row_first = base + threadIdx.x / T * " << G << ";\n";
    for (int m = 0; m < G; ++m) {
      const std::string r = std::to_string(m);
      s << "    const long row" << r << " = row_first + " << r << ";\n    const long i0_" << r
        << " = p.domain.n[0] == 1 ? 0 : row" << r << " / n1, i1_" << r << " = row" << r << " - i0_" << r
        << " * n1;\n    " << accumulators(program, "_" + r) << "\n";
    }
    // Row m's code: `emit` inside a scope that names its indices and accumulators.
    const auto in_row = [&](int m, const std::string& indent, const auto& emit) {
      const std::string r = std::to_string(m);
      s << indent << "{\n" << indent << "  const long i0 = i0_" << r << ", i1 = i1_" << r << ";";
      for (int k = 0; k < nreduce; ++k)
        s << " " << (program.reduce_float[k] ? "double" : "long") << "& acc" << k << " = acc" << k << "_" << r
          << "; long& idx" << k << " = idx" << k << "_" << r << ";";
      s << "\n";
      emit(indent + "  ");
      s << indent << "}\n";
    };
    const auto every_row = [&](const std::vector<Lane>& lanes, const std::string& indent) {
      for (int m = 0; m < G; ++m)
        in_row(m, indent, [&](const std::string& in) { emitter.body(s, lanes, in, 0, body_end); });
    };
    s << "    if (row_first + " << G << " <= rows) {\n      long j = sub;\n";
    if (const std::uint64_t pairs = pairable_loads(program, shape, body_end)) {
      // Rows whose every paired argument starts 16-byte aligned (8 for 4-byte types) take their
      // columns two at a time: thread sub loads columns 2 sub, 2 sub + 1 of each chunk of 2 T E
      // as one vector, E such pairs in flight; the rest of the row (and any rows not aligned)
      // goes on below, column by column.
      s << "      bool paired = true;\n";
      for (int m = 0; m < G; ++m)
        in_row(m, "      ", [&](const std::string& in) {
          s << in << "paired = paired" << pair_alignment(program, shape, pairs) << ";\n";
        });
      const std::string chunk = "2L * T * " + std::to_string(elements);
      s << "      if (paired) {\n        long jb = 0;\n"
        << "        for (; jb + " << chunk << " <= n2; jb += " << chunk << ") {\n          const long ";
      std::vector<Lane> pair_lanes;
      for (int e = 0; e < elements; ++e) {
        const std::string first = "j_" + std::to_string(2 * e), second = "j_" + std::to_string(2 * e + 1);
        s << (e ? ", " : "") << first << " = jb + 2 * sub + 2L * T * " << e << ", " << second << " = " << first
          << " + 1";
        pair_lanes.push_back({first, "_" + std::to_string(2 * e)});
        pair_lanes.push_back({second, "_" + std::to_string(2 * e + 1)});
      }
      s << ";\n";
      emitter.pair_loads(pairs);
      every_row(pair_lanes, "          ");
      emitter.pair_loads(0);
      s << "        }\n        j = jb + sub;\n      }\n";
    }
    if (elements > 1) {
      s << "      for (; j + static_cast<long>(T) * " << elements - 1 << " < n2; j += static_cast<long>(T) * "
        << elements << ") {\n        const long ";
      for (int e = 0; e < elements; ++e)
        s << (e ? ", " : "") << lanes[e].column << " = j + static_cast<long>(T) * " << e;
      s << ";\n";
      every_row(lanes, "        ");
      s << "      }\n";
    }
    s << "#pragma unroll 1\n      for (; j < n2; j += T) {\n";
    every_row({{"j", ""}}, "        ");
    s << "      }\n    }\n";
    if (G > 1) {
      // The last rows, fewer than a group: one at a time, column by column (not unrolled: with the
      // loops unrolled the matvec's kernel took 128 registers instead of 74).
      s << "    else {\n";
      for (int m = 0; m < G; ++m)
        in_row(m, "      ", [&](const std::string& in) {
          s << in << "if (row" << m << " < rows)\n#pragma unroll 1\n"
            << in << "  for (long j = sub; j < n2; j += T) {\n";
          emitter.body(s, {{"j", ""}}, in + "    ", 0, body_end);
          s << in << "  }\n";
        });
      s << "    }\n";
    }
    for (int m = 0; m < G; ++m) s << warp_fold(program, "_" + std::to_string(m), "T");
    for (int m = 0; m < G; ++m) {
      const std::string r = std::to_string(m);
      s << "    if (row" << r << " < rows && sub == 0) {\n";
      if (program.epilogue >= 0) {
        // The row's first thread holds its results: it runs the epilogue (Program::epilogue), whose
        // views are stretched along the reduced dimension (any column reads the row's elements).
        in_row(m, "      ", [&](const std::string& in) {
          s << in << "const long j = 0;\n";
          emitter.body(s, {{"j", ""}}, in, body_end, n);
        });
      } else {
        s << "      Value* out = static_cast<Value*>(p.partials);\n";
        store("out", "row" + r, "_" + r);
      }
      s << "    }\n";
    }
    s << "  }\n}\n";
  } else {
    Emitter emitter(program, shape, true);
    const char* kept = R == 0 ? "p.domain.n[1]" : "p.domain.n[0]";
    s << "  const long nr = p.domain.n[" << R << "], outer_n = " << kept << ";\n"
      << "  const long j = static_cast<long>(blockIdx.x) * " << kJitBlockX * elements << " + threadIdx.x;\n"
      << "  const long per = (nr + p.chunks - 1) / p.chunks;\n"
      << "  for (long oc = blockIdx.y; oc < outer_n * p.chunks; oc += gridDim.y) {\n"
      << "    const long outer = oc / p.chunks, chunk = oc - outer * p.chunks;\n"
      << "    const long first = chunk * per, last = first + per < nr ? first + per : nr;\n";
    for (const Lane& lane : lanes) s << "    " << accumulators(program, lane.suffix) << "\n";
    s << "    const long ";
    for (int e = 0; e < elements; ++e) s << (e ? ", " : "") << lanes[e].column << " = j + " << kJitBlockX * e;
    s << ";\n";
    const std::string i0 = R == 0 ? "r" : "outer", i1 = R == 0 ? "outer" : "r";
    // Full blocks of E columns run the program instruction-major over them; the ragged end of
    // the last columns runs them one at a time.
    s << "    if (" << lanes.back().column << " < n2) {\n#pragma unroll 4\n"
      << "      for (long r = first; r < last; ++r) {\n        const long i0 = " << i0 << ", i1 = " << i1 << ";\n";
    emitter.body(s, lanes, "        ");
    s << "      }\n    } else {\n";
    for (int e = 0; e < elements; ++e) {
      s << "      if (" << lanes[e].column << " < n2)\n#pragma unroll 4\n"
        << "      for (long r = first; r < last; ++r) {\n        const long i0 = " << i0 << ", i1 = " << i1 << ";\n";
      emitter.body(s, {lanes[e]}, "        ");
      s << "      }\n";
    }
    s << "    }\n    Value* out = static_cast<Value*>(p.chunks == 1 ? p.partials : p.block_partials) + chunk * "
      << 2 * nreduce << " * p.count;\n";
    for (const Lane& lane : lanes) {
      s << "    if (" << lane.column << " < n2) {\n";
      store("out", "outer * n2 + " + lane.column, lane.suffix);
      s << "    }\n";
    }
    s << "  }\n}\n";
    s << finish_kernel(program, nreduce);
  }
  GeneratedKernel g;
  g.elements = elements;
  g.row_group = G;
  g.source = s.str();
  g.hash = fnv1a(g.source);
  if (R == 2) g.finish_name.clear();
  return g;
}

// A sweep (Program::sweep): logistic regression's gradient (y - sigmoid(X @ w)) @ X in one pass
// over X. T = sweep_threads(row length) threads share a row (a power of two, at most a warp),
// each holding up to kSweepLanes of its elements, columns sub + T e, in registers (more lanes
// per thread ran faster on the H200 up to 8: 4 lanes 1.09, 8 lanes 0.96, 16 lanes 1.37 ms for
// logistic regression's gradient at 10^7 x 32 with the row loop unrolled twice, registers
// limiting 16 lanes to few warps); they fold the row into the row
// slots, exchange the results by xor shuffles inside their segment of the warp (every lane ends
// with the same bits: each step folds the same two values, in either order, and the folds
// commute), run the code that is the same along the row, then fold their elements again, from
// the registers, into per-lane accumulators for their columns. Block b takes a contiguous band of
// rows (gridDim.x = p.chunks bands); at its end the segments of a warp are folded by shuffles,
// the warps in order through shared memory, and the band's partial outputs go to
// block_partials[chunk], which tessera_finish folds in a fixed order. Lanes past the row's end, and
// segments past the band's last row, load a clamped element and fold nothing (no branch around
// the shuffles). Also the JIT's kernel for a column reduction of rows of at most
// kMaxSweepColumns, without row slots (KernelShape::sweep_columns).
// Compiled for 2 resident blocks per SM (at most 128 registers per thread): logistic
// regression's gradient at 10^7 x 32 then takes 96 registers (25% occupancy), 0.68 ms per step on
// the H200 against 0.77 without the bound (76 registers) and 0.71 / 0.78 for 3 / 4 blocks per SM,
// side by side (docs/BENCHMARKS.md, "Sweeps").
constexpr int kSweepBlocksPerSM = 2;
GeneratedKernel generate_sweep(const Program& program, int nargs, const KernelShape& shape) {
  const int outputs = output_slots(program), total = static_cast<int>(program.reduce_kinds.size());
  const int n = static_cast<int>(program.code.size());
  // A column reduction without a sweep: no row slots, all of its code the sweep's.
  const int rows_end = program.sweep >= 0 ? program.epilogue : 0, sweep = program.sweep >= 0 ? program.sweep : 0;
  // Compiled for its row length (KernelShape::sweep_columns): lanes past the row are not
  // emitted, a lane that some threads hold past it is guarded, and the lanes' columns are
  // compile-time offsets (a load's immediate).
  const std::int64_t columns = shape.sweep_columns, T = sweep_threads(columns);
  const int lanes = static_cast<int>((columns + T - 1) / T);
  constexpr int warps = kJitBlockX / 32;
  std::ostringstream s;
  s << "// tessera fused kernel: " << program.describe() << "\n// a sweep: rows of " << columns << ", " << T
    << " thread(s) per row\n";
  s << kernel_prelude(nargs);
  s << "\nextern \"C\" __global__ void __launch_bounds__(" << kJitBlockX << ", " << kSweepBlocksPerSM
    << ") tessera_fused(const KernelParams p) {\n"
    << "  const long n1 = p.domain.n[1];\n  constexpr long n2 = " << columns << ";\n  const long i0 = 0;\n"
    << "  constexpr int T = " << T << ";\n  const int sub = threadIdx.x % T;\n"
    << "  constexpr long per_pass = " << kJitBlockX / T << ";\n"
    << "  const long per = (n1 + gridDim.x - 1) / gridDim.x;\n"
    << "  const long first = static_cast<long>(blockIdx.x) * per, last = first + per < n1 ? first + per : n1;\n";
  std::vector<Lane> rows, sweeps;
  std::vector<bool> ragged;  // lane e: some of the threads hold it past the row's end
  for (int e = 0; e < lanes; ++e) {
    const std::string x = std::to_string(e);
    ragged.push_back(T * (e + 1) > columns);
    s << "  const long j_" << x << " = sub + " << T * e << ";\n";
    if (ragged.back())
      s << "  const long jc_" << x << " = j_" << x << " < n2 ? j_" << x << " : n2 - 1;\n";
    else
      s << "  const long jc_" << x << " = j_" << x << ";\n";
    rows.push_back({"jc_" + x, "_" + x, "", ragged.back() ? "j_" + x + " < n2" : ""});
    sweeps.push_back({"jc_" + x, "_" + x, "", "ok_" + x});
  }
  for (const Lane& lane : sweeps) s << "  " << accumulators_of(program, 0, outputs, lane.suffix) << "\n";
  // Two passes per iteration: the second's loads are issued before the first's arithmetic (the
  // loop stores nothing), 0.957 against 1.09 ms for logistic regression's gradient at 10^7 x 32
  // on the H200 (docs/BENCHMARKS.md).
  s << "#pragma unroll 2\n  for (long base = first; base < last; base += per_pass) {\n"
    << "    const long row = base + threadIdx.x / T;\n    const bool live = row < last;\n"
    << "    const long i1 = live ? row : last - 1;\n";
  for (int e = 0; e < lanes; ++e)
    s << "    const bool ok_" << e << " = live" << (ragged[e] ? " && j_" + std::to_string(e) + " < n2" : "") << ";\n";
  s << "    " << accumulators_of(program, outputs, total, "") << "\n";
  Emitter emitter(program, shape);
  emitter.body(s, rows, "    ", 0, rows_end);
  for (int k = outputs; k < total; ++k) {
    const std::string acc = "acc" + std::to_string(k), idx = "idx" + std::to_string(k);
    s << "    for (int offset = T / 2; offset > 0; offset /= 2) { const auto v = __shfl_xor_sync(0xffffffffu, " << acc
      << ", offset); const long i = __shfl_xor_sync(0xffffffffu, " << idx << ", offset); "
      << fold(program, k, acc, idx, "v", "i") << " }\n";
  }
  emitter.body(s, {{"jc_0", ""}}, "    ", rows_end, sweep);
  emitter.share_below(sweep);
  emitter.reuse_loads_below(rows_end);
  emitter.set_per_lane(true);
  emitter.body(s, sweeps, "    ", sweep, n);
  s << "  }\n";
  // The segments of the warp (rows), then the warps in order.
  for (int k = 0; k < outputs; ++k)
    for (const Lane& lane : sweeps) {
      const std::string acc = "acc" + std::to_string(k) + lane.suffix, idx = "idx" + std::to_string(k) + lane.suffix;
      s << "  for (int offset = T; offset < 32; offset *= 2) { const auto v = __shfl_xor_sync(0xffffffffu, " << acc
        << ", offset); const long i = __shfl_xor_sync(0xffffffffu, " << idx << ", offset); "
        << fold(program, k, acc, idx, "v", "i") << " }\n";
    }
  s << "  __shared__ Value warp_values[" << warps << "][" << kMaxSweepColumns << "];\n"
    << "  __shared__ long warp_indices[" << warps << "][" << kMaxSweepColumns << "];\n"
    << "  const int warp = threadIdx.x / 32;\n"
    << "  Value* out = static_cast<Value*>(p.chunks == 1 ? p.partials : p.block_partials) + "
       "static_cast<long>(blockIdx.x) * "
    << 2 * outputs << " * p.count;\n";
  for (int k = 0; k < outputs; ++k) {
    const std::string K = std::to_string(k);
    s << "  if (threadIdx.x % 32 < T) {\n";
    for (int e = 0; e < lanes; ++e)
      s << "    if (j_" << e << " < n2) { warp_values[warp][j_" << e << "]." << acc_member(program, k) << " = acc" << K
        << "_" << e << "; warp_indices[warp][j_" << e << "] = idx" << K << "_" << e << "; }\n";
    s << "  }\n  __syncthreads();\n"
      << "  for (long c = threadIdx.x; c < n2; c += " << kJitBlockX << ") {\n    "
      << accumulators_of(program, k, k + 1, "") << "\n"
      << "    for (int w = 0; w < " << warps << "; ++w) { const auto v = warp_values[w][c]." << acc_member(program, k)
      << "; const long i = warp_indices[w][c]; " << fold(program, k, "acc" + K, "idx" + K, "v", "i") << " }\n"
      << "    out[" << 2 * k << " * p.count + c]." << acc_member(program, k) << " = acc" << K << "; out[" << 2 * k + 1
      << " * p.count + c].i64 = idx" << K << ";\n  }\n  __syncthreads();\n";
  }
  s << "}\n" << finish_kernel(program, outputs);
  GeneratedKernel g;
  g.elements = lanes;
  g.sweep = true;
  g.source = s.str();
  g.hash = fnv1a(g.source);
  return g;
}

// A nested reduction (Program::nested): a thread per output (the element e of the dimension
// neither reduction reduces: a point of k-means), grid-strided. It loops over the outer
// reduction's dimension and, inside, over the inner one in order, folding the inner accumulator
// (nacc, nidx) in registers; after each inner loop the outer code folds its result. Operands the
// same for every output (k-means' centroids: KernelShape::invariant) are staged first: the block
// copies each into shared memory once, and every thread reads them there, if the launch gave the
// kernel the room (p.nblocks = 1; else they are read from global memory, through L1). Output e of
// slot k goes to partials[2 k count + e], as generate_along's.
constexpr int kMaxHoisted = static_cast<int>(kMaxFixedNestedExtent);

GeneratedKernel generate_nested(const Program& program, int nargs, const KernelShape& shape) {
  const NestedReduction& n = program.nested;
  const int R = program.reduce_dim, D = n.dim, K = 3 - R - D;
  const int nreduce = static_cast<int>(program.reduce_kinds.size());
  std::ostringstream s;
  s << "// tessera fused kernel: " << program.describe() << "\n// one output per thread (a nested reduction)\n";
  s << kernel_prelude(nargs);
  // Staged: the invariant arguments the inner code loads (outputs along dimension 0 only), each
  // once, with the type it is loaded as.
  std::uint64_t staged = 0;
  std::vector<const Instr*> staged_loads;
  for (int pc = 0; pc < n.end; ++pc) {
    const Instr& in = program.code[pc];
    if (in.op != OpCode::Load || K != 0) continue;
    const std::uint64_t bit = std::uint64_t(1) << in.a;
    if (!(shape.invariant & bit) || (staged & bit)) continue;
    staged |= bit;
    staged_loads.push_back(&in);
  }
  Emitter emitter(program, shape);
  emitter.stage(staged);
  s << "\nextern \"C\" __global__ void __launch_bounds__(" << kJitBlockX << ") tessera_fused(const KernelParams p) {\n"
    << "  const long nD = ";
  // A literal where the shape fixes it: the unrolled inner loops lose their guards, the staged
  // addresses their multiplications (k-means' 8 dimensions: issue-bound before, ncu on an H200).
  if (shape.nested_extent > 0)
    s << shape.nested_extent << ";\n";
  else
    s << "p.domain.n[" << D << "];\n";
  if (staged) {
    // Each in n[R] * n[D] slots of 8 bytes; the whole block copies them, then one barrier, before
    // any thread can leave (the grid-stride loop below may give a thread no output).
    s << "  extern __shared__ __align__(16) unsigned char tessera_staged[];\n"
      << "  const bool staged = p.nblocks != 0;\n  const long staged_n = p.domain.n[" << R << "] * nD;\n";
    for (std::size_t k = 0; k < staged_loads.size(); ++k) {
      const char* T = ctype(staged_loads[k]->type);
      s << "  " << T << "* const staged" << staged_loads[k]->a << " = reinterpret_cast<" << T << "*>(tessera_staged + "
        << k << " * 8 * staged_n);\n";
    }
    s << "  if (staged) {\n    for (long t = threadIdx.x; t < staged_n; t += " << kJitBlockX << ") {\n"
      << "      const long jo = t / nD, ji = t - jo * nD;\n      " << coords_of("0L", "jo", "ji", K, R, D);
    for (const Instr* in : staged_loads) {
      const char* T = ctype(in->type);
      s << "      staged" << in->a << "[t] = *(reinterpret_cast<const " << T << "*>(p.args[" << in->a << "].ptr) + "
        << element_address(in->a, shape, "jc") << ");\n";
    }
    s << "    }\n    __syncthreads();\n  }\n";
  }
  // Hoisted: the other operands the inner code loads (k-means' point), when at run time they are
  // the same for every outer position (stride 0 along R) and the inner extent is at most
  // kMaxHoisted. Each is then loaded once per output into registers (an unrolled array) rather
  // than once per outer position: a point's coordinates, 64 bytes apart from thread to thread,
  // otherwise cost a warp one L1 wavefront per thread for every centroid, which bound the kernel
  // (L1 busy 97%, 2.8 ms for 10^7 points; ncu on an H200).
  std::uint64_t hoisted = 0, outer_loaded = 0;
  std::vector<const Instr*> hoisted_loads;
  for (std::size_t pc = n.end; pc < program.code.size(); ++pc)
    if (program.code[pc].op == OpCode::Load) outer_loaded |= std::uint64_t(1) << program.code[pc].a;
  bool hoistable = true;
  for (int pc = 0; pc < n.end; ++pc) {
    const Instr& in = program.code[pc];
    const std::uint64_t bit = std::uint64_t(1) << in.a;
    if (in.op != OpCode::Load || (staged & bit) || (shape.scalar & bit)) continue;
    if (outer_loaded & bit) hoistable = false;
    for (const Instr* other : hoisted_loads)
      if (other->a == in.a && other->type != in.type) hoistable = false;
    if (!(hoisted & bit)) hoisted_loads.push_back(&in);
    hoisted |= bit;
  }
  if (!hoistable) hoisted = 0, hoisted_loads.clear();
  // The hoisted form also reads the staged operands without a run-time choice per load (a
  // select there kept both addresses' arithmetic in the inner loop: 1,600 instructions per point).
  if (hoisted) {
    s << "  const bool hoist = " << (staged ? "staged && " : "") << "nD <= " << kMaxHoisted;
    for (const Instr* in : hoisted_loads) s << " && p.args[" << in->a << "].stride[" << R << "] == 0";
    s << ";\n";
  }
  s << "  for (long e = static_cast<long>(blockIdx.x) * " << kJitBlockX << " + threadIdx.x; e < p.count; e += "
    << "static_cast<long>(gridDim.x) * " << kJitBlockX << ") {\n    " << accumulators(program, "") << "\n";
  const auto nest = [&](bool hoisting) {
    emitter.hoist(hoisting ? hoisted : 0);
    emitter.stage(staged, hoisting);
    if (hoisting) {
      for (const Instr* in : hoisted_loads)
        s << "    " << ctype(in->type) << " hoisted" << in->a << "[" << kMaxHoisted << "];\n";
      s << "#pragma unroll\n    for (int ji = 0; ji < " << kMaxHoisted
        << "; ++ji) {\n      if (ji >= nD) break;\n      " << coords_of("e", "0L", "ji", K, R, D);
      for (const Instr* in : hoisted_loads)
        s << "      hoisted" << in->a << "[ji] = *(reinterpret_cast<const " << ctype(in->type) << "*>(p.args[" << in->a
          << "].ptr) + " << element_address(in->a, shape, "jc") << ");\n";
      s << "    }\n";
    }
    s << "    for (long jo = 0; jo < p.domain.n[" << R << "]; ++jo) {\n      " << (n.is_float ? "double" : "long")
      << " nacc = " << identity(n.kind, n.is_float) << "; long nidx = 0x7fffffffffffffffL;\n";
    if (hoisting)
      s << "#pragma unroll\n      for (int ji = 0; ji < " << kMaxHoisted << "; ++ji) {\n        if (ji >= nD) break;\n";
    else
      s << "#pragma unroll 4\n      for (long ji = 0; ji < nD; ++ji) {\n";
    s << "        " << coords_of("e", "jo", "ji", K, R, D);
    emitter.body(s, {{"jc", ""}}, "        ", 0, n.end);
    s << "      }\n      {\n        " << coords_of("e", "jo", "0L", K, R, D);
    emitter.body(s, {{"jc", ""}}, "        ", n.end, static_cast<int>(program.code.size()));
    s << "      }\n    }\n";
  };
  if (hoisted) {
    s << "    if (hoist) {\n";
    nest(true);
    s << "    } else {\n";
    nest(false);
    s << "    }\n";
  } else {
    nest(false);
  }
  s << "    Value* out = static_cast<Value*>(p.partials);\n";
  for (int k = 0; k < nreduce; ++k)
    s << "    out[" << 2 * k << " * p.count + e]." << acc_member(program, k) << " = acc" << k << "; out[" << 2 * k + 1
      << " * p.count + e].i64 = idx" << k << ";\n";
  s << "  }\n}\n";
  GeneratedKernel g;
  g.elements = 1;
  g.source = s.str();
  g.hash = fnv1a(g.source);
  g.finish_name.clear();
  g.staged = staged;
  return g;
}

}  // namespace

bool batch_fits(const std::vector<BatchPart>& parts) {
  int nargs = 0;
  for (const BatchPart& part : parts) {
    if (!part.program->reduce_kinds.empty()) return false;
    nargs += part.nargs;
  }
  return !parts.empty() && parts.size() <= static_cast<std::size_t>(kMaxBatchParts) && nargs <= kMaxArgs;
}

GeneratedKernel generate_batch(const std::vector<BatchPart>& parts, BatchOrder order) {
  if (!batch_fits(parts)) raise("internal: a batch of ", parts.size(), " parts does not fit one kernel");
  const bool in_order = order == BatchOrder::InOrder;
  std::ostringstream s;
  s << "// tessera batch of " << parts.size() << (in_order ? " kernels in order" : " independent kernels")
    << "\n#define KMAX_CONSTANTS " << kMaxJitConstants << "\n#define KMAX_ARGS " << kMaxArgs << "\n"
    << kStdPrelude << kCudaPrelude << element_ops_body() << kParams << "struct BatchParams { Domain domain["
    << kMaxBatchParts << "]; long volume[" << kMaxBatchParts << "]; long first_block[" << kMaxBatchParts + 1
    << "]; Value constants[KMAX_CONSTANTS]; Accessor args[KMAX_ARGS]; };\n"
    << "\nextern \"C\" __global__ void __launch_bounds__(" << (in_order ? kJitBatchThreads : kJitBlockX)
    << ") tessera_batch(const BatchParams p) {\n";
  if (!in_order) s << "  const long blk = blockIdx.x;\n";
  // No assumptions: one source serves every layout of the parts (strips are short, and an
  // independent part's strided views gain little from them).
  const KernelShape any;
  int arg_base = 0, const_base = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Program& program = *parts[k].program;
    const std::string domain = "p.domain[" + std::to_string(k) + "]", K = std::to_string(k),
                      next = std::to_string(k + 1);
    Emitter emitter(program, any, false, Placement{arg_base, const_base, domain});
    if (in_order)
      s << "  {  // " << program.describe() << "\n";
    else
      s << "  if (blk >= p.first_block[" << K << "] && blk < p.first_block[" << next << "]) {  // "
        << program.describe() << "\n";
    s << "    const long n1 = " << domain << ".n[1], n2 = " << domain << ".n[2];\n";
    if (in_order)
      s << "    for (long e = threadIdx.x; e < p.volume[" << K << "]; e += " << kJitBatchThreads << ") {\n";
    else
      s << "    const long step = (p.first_block[" << next << "] - p.first_block[" << K << "]) * " << kJitBlockX
        << ";\n    for (long e = (blk - p.first_block[" << K << "]) * " << kJitBlockX << " + threadIdx.x; e < p.volume["
        << K << "]; e += step) {\n";
    s << "      const long row = e / n2, j = e - row * n2;\n"
      << "      const long i0 = " << domain << ".n[0] == 1 ? 0 : row / n1, i1 = row - i0 * n1;\n";
    emitter.body(s, {{"j", ""}}, "      ");
    s << "    }\n  }\n" << (in_order ? "  __syncthreads();\n" : "");
    arg_base += parts[k].nargs;
    const_base += static_cast<int>(program.constants.size());
  }
  s << "}\n";
  GeneratedKernel g;
  g.source = s.str();
  g.hash = fnv1a(g.source);
  g.main_name = "tessera_batch";
  g.finish_name.clear();
  return g;
}

// Views of one store in one plane that a marching kernel stages together (KernelShape::tile_of):
// the part of the base argument's plane that a tile's loads of them read, rows [row_lo, row_hi]
// and columns [column_lo, column_hi] around the tile.
struct TileFamily {
  int base = 0;
  DType type = DType::Float64;
  std::uint64_t members = 0;
  int row_lo = 0, row_hi = 0, column_lo = 0, column_hi = 0;
  int height() const { return kMarchRows + row_hi - row_lo; }
  int width() const { return kMarchColumns * kMarchElements + column_hi - column_lo; }
};
// Staged only where at least kMinTileViews views share a tile (fewer read little twice), at most
// kMaxTiles tiles and kMaxTileBytes of shared memory a block (two buffers each), which leaves
// kMarchBlocksPerSM blocks resident.
constexpr int kMinTileViews = 3;
constexpr int kMaxTiles = 4;
constexpr int kMaxTileBytes = 32 * 1024;

std::vector<TileFamily> tile_families(const Program& program, const KernelShape& shape, const Emitter& emitter) {
  std::vector<TileFamily> found;
  for (int pc = 0; pc < static_cast<int>(program.code.size()); ++pc) {
    const Instr& in = program.code[pc];
    if (in.op != OpCode::Load || !emitter.loads_each_step(pc)) continue;
    const int a = in.a, base = shape.tile_of[a] ? shape.tile_of[a] - 1 : a;
    if (base == a &&
        std::none_of(std::begin(shape.tile_of), std::end(shape.tile_of), [&](std::uint8_t b) { return b == a + 1; }))
      continue;  // the only view of its tile
    const int row = base == a ? 0 : shape.tile_rows[a], column = base == a ? 0 : shape.tile_columns[a];
    auto f = std::find_if(found.begin(), found.end(), [&](const TileFamily& t) { return t.base == base; });
    if (f == found.end()) {
      found.push_back({base, in.type, 0, row, row, column, column});
      f = found.end() - 1;
    }
    if (f->type != in.type) continue;  // (views of one store load one type)
    f->members |= std::uint64_t(1) << a;
    f->row_lo = std::min(f->row_lo, row), f->row_hi = std::max(f->row_hi, row);
    f->column_lo = std::min(f->column_lo, column), f->column_hi = std::max(f->column_hi, column);
  }
  std::vector<TileFamily> kept;
  int bytes = 0;
  for (const TileFamily& f : found) {
    int views = 0;
    for (std::uint64_t m = f.members; m != 0; m &= m - 1) ++views;
    const int size = 2 * f.height() * f.width() * static_cast<int>(size_of(f.type));
    if (views < kMinTileViews || static_cast<int>(kept.size()) == kMaxTiles || bytes + size > kMaxTileBytes) continue;
    kept.push_back(f);
    bytes += size;
  }
  return kept;
}

// The tiles' code of a marching kernel (generate_march): each thread's share of a tile (element
// threadIdx.x + k * kJitBlockX, k < slots), its offset in a plane of the base argument (or -1:
// past what the tile's threads read, not loaded), the loads of plane `plane` into registers
// pf<f>_<k>, their stores into buffer `buffer`, and the thread's first element in a tile.
struct TileCode {
  const std::vector<TileFamily>& families;
  static int slots(const TileFamily& f) { return (f.height() * f.width() + kJitBlockX - 1) / kJitBlockX; }
  std::string offsets(const std::string& indent) const {
    constexpr int W = kMarchColumns * kMarchElements;
    std::ostringstream s;
    for (std::size_t f = 0; f < families.size(); ++f) {
      const TileFamily& t = families[f];
      const std::string a = "p.args[" + std::to_string(t.base) + "]";
      // The rows and columns of the base argument's plane that the tile's threads read.
      s << indent << "const long rows" << f << " = (n1 - t1 < " << kMarchRows << " ? n1 - t1 : " << kMarchRows << ") + "
        << t.row_hi - t.row_lo << ", columns" << f << " = (n2 - t2 < " << W << " ? n2 - t2 : " << W << ") + "
        << t.column_hi - t.column_lo << ";\n";
      for (int k = 0; k < slots(t); ++k) {
        const std::string e = "threadIdx.x + " + std::to_string(k * kJitBlockX);
        s << indent << "const int o" << f << "_" << k << " = " << e << " < " << t.height() * t.width() << " && (" << e
          << ") / " << t.width() << " < rows" << f << " && (" << e << ") % " << t.width() << " < columns" << f
          << " ? static_cast<int>((t1 + (" << e << ") / " << t.width() << ") * " << a << ".stride[1] + t2 + (" << e
          << ") % " << t.width() << ") : -1;\n";
      }
    }
    return s.str();
  }
  // The loads into pf<f>_<k>, declared before (declare: here).
  std::string loads(const std::string& plane, bool declare, const std::string& indent) const {
    std::ostringstream s;
    for (std::size_t f = 0; f < families.size(); ++f) {
      const TileFamily& t = families[f];
      const std::string T = ctype(t.type);
      const std::string a = "p.args[" + std::to_string(t.base) + "]";
      // The plane's element at the tile's first row and column (row_lo, column_lo from the
      // base's element (t1, t2)): the slots' offsets from it are never negative.
      s << indent << "const " << T << "* const plane" << f << " = reinterpret_cast<const " << T << "*>(" << a
        << ".ptr) + " << a << ".origin + " << plane << " * " << a << ".stride[0]";
      if (t.row_lo != 0) s << " + (" << t.row_lo << ") * " << a << ".stride[1]";
      if (t.column_lo != 0) s << " + (" << t.column_lo << ")";
      s << ";\n";
      for (int k = 0; k < slots(t); ++k)
        s << indent << (declare ? "const " + T + " " : "") << "pf" << f << "_" << k << " = o" << f << "_" << k
          << " >= 0 ? plane" << f << "[o" << f << "_" << k << "] : " << T << "(0);\n";
    }
    return s.str();
  }
  std::string declarations(const std::string& indent) const {
    std::ostringstream s;
    for (std::size_t f = 0; f < families.size(); ++f)
      for (int k = 0; k < slots(families[f]); ++k)
        s << indent << ctype(families[f].type) << " pf" << f << "_" << k << ";\n";
    return s.str();
  }
  // tl<f>: the element of tile f's current buffer at the thread's row and first column (literal
  // offsets from it reach every view's element; threads past the plane's edge read elements that
  // nothing stored this plane, and store nothing).
  std::string pointers(const std::string& indent) const {
    std::ostringstream s;
    for (std::size_t f = 0; f < families.size(); ++f)
      s << indent << "const " << ctype(families[f].type) << "* const tl" << f << " = &tile" << f
        << "[buf][threadIdx.x / " << kMarchColumns << " * " << families[f].width() << " + threadIdx.x % "
        << kMarchColumns << "];\n";
    return s.str();
  }
  std::string stores(const std::string& buffer, const std::string& indent) const {
    std::ostringstream s;
    for (std::size_t f = 0; f < families.size(); ++f) {
      const TileFamily& t = families[f];
      for (int k = 0; k < slots(t); ++k) {
        const std::string e = "threadIdx.x + " + std::to_string(k * kJitBlockX);
        if ((k + 1) * kJitBlockX > t.height() * t.width())
          s << indent << "if (" << e << " < " << t.height() * t.width() << ") ";
        else
          s << indent;
        s << "tile" << f << "[" << buffer << "][" << e << "] = pf" << f << "_" << k << ";\n";
      }
    }
    return s.str();
  }
};

// A kernel that marches through planes (KernelShape::march_planes): a block takes a tile of a
// plane, kMarchRows rows of kMarchColumns * kMarchElements columns (a warp per row, its lanes
// along the row: coalesced; kMarchElements per thread, kMarchColumns apart), tile blockIdx.x,
// and steps it through a band of consecutive planes, band blockIdx.y. Values of one plane are
// kept in registers for the next (row_carry pairs views a plane apart here; jit/carry_plan.hpp):
// cuPyNumeric's 27-point stencil computes the sum of one plane of 9 views per step, from 9 loads.
// Stepping through rows instead, a block's 256 threads took one row and the rows of the planes
// before and after came from L2 (ncu on an H200: L2 93% busy; docs/JIT.md).
// Views of one store in one plane (KernelShape::tile_of: the stencil's 9 views of its leading
// plane) are staged: the block loads the part of the plane its tile reads into shared memory once,
// each thread a few elements, coalesced, and the views' loads read it there; the next plane's part
// is loaded into registers while this plane computes and stored into a second buffer after it, one
// barrier a plane. Read from global memory (L1), the 9 views had each element fetched 9 times.
// Blocks of a marching kernel resident per SM at least (__launch_bounds__): at most 40 registers
// a thread. The kernel waits on memory latency, and the registers the compiler chose on its own
// (62) held occupancy to 48%: with 6 blocks 73%, no spills, and the 27-point stencil at 512^3
// 0.741-0.768 ms/iter against 0.776-0.791 on an H200 (docs/JIT.md, "Planes marched").
constexpr int kMarchBlocksPerSM = 6;

GeneratedKernel generate_march(const Program& program, int nargs, const KernelShape& shape) {
  static_assert(kMarchColumns * kMarchRows == kJitBlockX, "a marching block is one tile");
  constexpr int C = kMarchColumns, R = kMarchRows, E = kMarchElements;
  Emitter emitter(program, shape);
  emitter.use_row_offsets();
  emitter.carry_rows(true);
  const std::vector<TileFamily> families = tile_families(program, shape, emitter);
  const TileCode tiles{families};
  std::ostringstream s;
  s << "// tessera fused kernel: " << program.describe() << "\n// marching through planes in tiles of " << C * E
    << " x " << R << (families.empty() ? "" : ", views staged") << "\n";
  s << kernel_prelude(nargs);
  s << "\nextern \"C\" __global__ void __launch_bounds__(" << kJitBlockX << ", " << kMarchBlocksPerSM
    << ") tessera_fused(const KernelParams p) {\n"
    << "  const long n0 = p.domain.n[0], n1 = p.domain.n[1], n2 = p.domain.n[2];\n"
    << "  const long tiles = (n2 + " << C * E - 1 << ") / " << C * E << ";\n"
    << "  const long tile1 = blockIdx.x / tiles, tile2 = blockIdx.x - tile1 * tiles;\n";
  std::vector<Lane> lanes;
  const bool staged = !families.empty();
  if (!staged) {
    s << "  const long i1 = tile1 * " << R << " + threadIdx.x / " << C << ", j = tile2 * " << C * E
      << " + threadIdx.x % " << C << ";\n"
      << "  if (i1 >= n1 || j >= n2) return;  // no barriers below\n";
    lanes.push_back({"j", E > 1 ? "_0" : ""});
  } else {
    // Threads past the plane's last row or column take part in the loads and barriers: they compute
    // at the last row (column) and store nothing.
    s << "  const long t1 = tile1 * " << R << ", t2 = tile2 * " << C * E << ";\n"
      << "  const long i1 = t1 + threadIdx.x / " << C << " < n1 ? t1 + threadIdx.x / " << C << " : n1 - 1;\n"
      << "  const long jr = t2 + threadIdx.x % " << C << ", j = jr < n2 ? jr : n2 - 1;\n"
      << "  const bool inside = t1 + threadIdx.x / " << C << " < n1 && jr < n2;\n";
    lanes.push_back({"j", E > 1 ? "_0" : "", "", "inside"});
  }
  s << "  const long band = (n0 + gridDim.y - 1) / gridDim.y, first = blockIdx.y * band;\n"
    << "  const long last = first + band < n0 ? first + band : n0;\n";
  // A thread's elements e = 1.. of a tile past the domain's last column load that column (the
  // same one in every plane: what they carry stays consistent) and store nothing.
  const std::string j0 = staged ? "jr" : "j";
  for (int e = 1; e < E; ++e) {
    const std::string column = "j_" + std::to_string(e), past = j0 + " + " + std::to_string(e * C) + " < n2";
    s << "  const long " << column << " = " << past << " ? " << j0 << " + " << e * C << " : n2 - 1;\n";
    lanes.push_back({column, "_" + std::to_string(e), "", staged ? "inside && " + past : past, e * C});
  }
  if (emitter.carries()) s << emitter.carry_declarations(lanes, "  ", staged);
  for (std::size_t f = 0; f < families.size(); ++f) {
    const TileFamily& t = families[f];
    s << "  __shared__ " << ctype(t.type) << " tile" << f << "[2][" << t.height() * t.width() << "];\n";
    for (int a = 0; a < nargs; ++a)
      if (t.members >> a & 1) {
        const bool own = a == t.base;
        const int row = (own ? 0 : shape.tile_rows[a]) - t.row_lo,
                  shift = (own ? 0 : shape.tile_columns[a]) - t.column_lo;
        emitter.tile(a, "tl" + std::to_string(f), row * t.width() + shift);
      }
  }
  if (!staged) {
    s << "  for (long i0 = first; i0 < last; ++i0) {\n" << row_offsets_of(program, shape, "    ");
    emitter.carried_row(s, lanes, "    ", "true");
    s << "  }\n}\n";
  } else {
    // The band's first plane staged; the carried values refilled from global memory once, before
    // the loop (inside it, the refill's registers were live in every plane: spills under NVRTC;
    // running the band's first planes through the staged code instead, storing nothing, was
    // slower: docs/JIT.md). Each plane loads the next one's part into registers first, in a block
    // of its own (a conditional per load let the compiler issue them late, after the plane's first
    // shared loads).
    s << "  if (first >= last) return;  // the same for the whole block\n"
      << tiles.offsets("  ") << "  int buf = 0;\n  {\n"
      << tiles.loads("first", true, "    ") << tiles.stores("0", "    ") << "  }\n  __syncthreads();\n";
    if (emitter.carries()) {
      s << "  {\n    const long i0 = first;\n" << row_offsets_of(program, shape, "    ");
      emitter.refill(s, lanes, "    ");
      s << "  }\n";
    }
    s << "  for (long i0 = first; i0 < last; ++i0) {\n"
      << row_offsets_of(program, shape, "    ") << "    const bool more = i0 + 1 < last;\n"
      << tiles.declarations("    ") << "    if (more) {\n"
      << tiles.loads("(i0 + 1)", false, "      ") << "    }\n"
      << tiles.pointers("    ");
    if (emitter.carries())
      emitter.row_from_carried(s, lanes, "    ");
    else
      emitter.body(s, lanes, "    ");
    s << "    if (more) {\n"
      << tiles.stores("buf ^ 1", "      ") << "    }\n    __syncthreads();\n    buf ^= 1;\n  }\n}\n";
  }
  GeneratedKernel g;
  g.elements = E;
  g.carries = emitter.carries();
  g.marches = true;
  g.source = s.str();
  g.hash = fnv1a(g.source);
  g.finish_name.clear();
  return g;
}

GeneratedKernel generate_cuda(const Program& program, int nargs, const KernelShape& shape, int elements) {
  if (!jit_supports(program, nargs))
    raise("internal: program with ", nargs, " arguments and ", program.constants.size(),
          " constants is not compilable");
  if (elements != 1 && elements != 2 && elements != 4)
    raise("internal: ", elements, " elements per thread (expected 1, 2 or 4)");
  if (program.nested.dim >= 0) return generate_nested(program, nargs, shape);
  if (shape.sweep_columns > 0) return generate_sweep(program, nargs, shape);
  if (!program.reduce_kinds.empty() && program.reduce_dim >= 0) return generate_along(program, nargs, shape, elements);
  if (shape.march_planes && elements == 1 && program.reduce_kinds.empty()) return generate_march(program, nargs, shape);
  const int nreduce = static_cast<int>(program.reduce_kinds.size());
  const int span = kJitBlockX * elements;  // columns of a block's row
  std::ostringstream s;
  s << "// tessera fused kernel: " << program.describe() << "\n// " << elements << " element(s) per thread\n";
  s << kernel_prelude(nargs);
  // Element e (< elements) of a thread is at column j + e * kJitBlockX: every load and store of a
  // warp stays one coalesced access. Long programs that do not reduce are bound by their
  // arithmetic's latency (the shallow-water step's interior, recomputing its half steps, took 74
  // registers: 3 blocks per SM): they ask for kLongProgramBlocks blocks per SM, so at most 64
  // registers per thread.
  const bool long_program = elements == 1 && nreduce == 0 && program.code.size() >= kLongProgram;
  s << "\nextern \"C\" __global__ void __launch_bounds__(" << kJitBlockX
    << (long_program ? ", " + std::to_string(kLongProgramBlocks) : std::string())
    << ") tessera_fused(const KernelParams p) {\n"
       "  const long n1 = p.domain.n[1], n2 = p.domain.n[2], rows = p.domain.n[0] * p.domain.n[1];\n"
       "  const long j = static_cast<long>(blockIdx.x) * "
    << span << " + threadIdx.x;\n";
  s << "  " << accumulators(program, "") << "\n";
  Emitter emitter(program, shape);
  emitter.use_row_offsets();
  // The rows of a thread's band, its code for `lanes` inside: with values taken from the row
  // before where `carry` (rows of the band are run in order; jit/carry_plan.hpp).
  bool carries = false;
  const auto rows = [&](const std::vector<Lane>& lanes, bool carry) {
    emitter.carry_rows(carry && !shape.flat && !shape.march_planes);  // march_planes: pairs a plane apart
    carries = carries || emitter.carries();
    if (shape.flat) {  // one row: the launch has one block row, and the kernel was compiled for it
      s << "    {\n      const long i0 = 0, i1 = 0;\n";
    } else {
      // A block takes a band of consecutive rows: a stencil's rows above and below were loaded by
      // the same threads one or two rows earlier, and are found in L1 instead of L2 (or, paired
      // by row_carry, kept in registers).
      // The row's (i0, i1) are stepped, not divided out of the row number: a 64-bit division is
      // a subroutine of dozens of instructions, once per band here (and none for 1-D and 2-D
      // domains, padded to 3-D with n[0] == 1).
      s << "    const long band = (rows + gridDim.y - 1) / gridDim.y, first = blockIdx.y * band;\n"
           "    long next0 = p.domain.n[0] == 1 ? 0 : first / n1, next1 = first - next0 * n1;\n";
      if (emitter.carries()) s << emitter.carry_declarations(lanes, "    ");
      s << "    for (long row = first; row < rows && row < first + band; ++row) {\n"
           "      const long i0 = next0, i1 = next1;\n"
           "      if (++next1 == n1) next1 = 0, ++next0;\n";
    }
    s << row_offsets_of(program, shape, "      ");
  };
  if (elements == 1) {
    const std::vector<Lane> lanes{{"j", ""}};
    s << "  if (j < n2) {\n";
    rows(lanes, true);
    emitter.carried_row(s, lanes, "      ", "next1 != 0");  // the next row carries if it is in this plane
    s << "    }\n  }\n";
  } else {
    // Every element of the thread inside the row (every block of a row but maybe the last): no
    // guards, the program instruction-major over the elements.
    s << "  if (j + " << span - kJitBlockX << " < n2) {\n";
    std::vector<Lane> lanes;
    for (int e = 0; e < elements; ++e) lanes.push_back({"j_" + std::to_string(e), "_" + std::to_string(e)});
    rows(lanes, true);
    s << "      const long ";
    for (int e = 0; e < elements; ++e) {
      s << (e ? ", " : "") << lanes[e].column << " = j";
      if (e) s << " + " << e * kJitBlockX;
    }
    s << ";\n";
    emitter.carried_row(s, lanes, "      ", "next1 != 0");
    // The ragged end of a row: the elements inside it, one after the other. Rare (one thread
    // column per row), so the loop is not unrolled: one more copy of the program, not several;
    // and it carries nothing between rows.
    s << "    }\n  } else if (j < n2) {\n";
    rows({}, false);
    s << "#pragma unroll 1\n      for (long je = j; je < n2; je += " << kJitBlockX << ") {\n";
    emitter.body(s, {{"je", ""}}, "        ");
    s << "      }\n    }\n  }\n";
  }
  if (nreduce > 0) {
    // Warp shuffles, then one value per warp through shared memory, combined in warp order; each
    // block writes (value, index) per slot: block_partials[block][2 k + 0 / 1].
    s << warp_fold(program, "") << "  __shared__ Value warp_partials[" << 2 * nreduce << "][" << kJitBlockX / 32
      << "];\n  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;\n  if (lane == 0) {\n";
    for (int k = 0; k < nreduce; ++k)
      s << "    warp_partials[" << 2 * k << "][warp]." << acc_member(program, k) << " = acc" << k << "; warp_partials["
        << 2 * k + 1 << "][warp].i64 = idx" << k << ";\n";
    s << "  }\n  __syncthreads();\n  if (threadIdx.x == 0) {\n"
      << "    Value* out = static_cast<Value*>(p.block_partials) + (static_cast<long>(blockIdx.y) * gridDim.x + "
         "blockIdx.x) * "
      << 2 * nreduce << ";\n";
    for (int k = 0; k < nreduce; ++k) {
      const char* m = acc_member(program, k);
      s << "    for (int w = 1; w < " << kJitBlockX / 32 << "; ++w) { const auto v = warp_partials[" << 2 * k << "][w]."
        << m << "; const long i = warp_partials[" << 2 * k + 1 << "][w].i64; "
        << fold(program, k, "acc" + std::to_string(k), "idx" + std::to_string(k), "v", "i") << " }\n"
        << "    out[" << 2 * k << "]." << m << " = acc" << k << "; out[" << 2 * k + 1 << "].i64 = idx" << k << ";\n";
    }
    s << "  }\n";
  }
  s << "}\n";
  // One block folds the blocks' partials (launched as one output of p.nblocks chunks, 256 lanes).
  if (nreduce > 0) s << finish_kernel(program, nreduce);
  GeneratedKernel g;
  g.elements = elements;
  g.carries = carries;
  g.source = s.str();
  g.hash = fnv1a(g.source);
  if (nreduce == 0) g.finish_name.clear();
  return g;
}

}  // namespace tessera::detail
