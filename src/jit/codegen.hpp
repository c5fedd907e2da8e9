#pragma once
// Code generation: a fused Program becomes CUDA C++ source for NVRTC. It is the same program the
// interpreter runs, translated one instruction at a time into straight-line typed code, with the
// scalar semantics taken from the same header (program/element_ops.hpp, embedded at build time),
// so the two backends cannot disagree.
//
// The kernel takes one parameter block (KernelParams below, mirrored in the generated source):
// the launch domain, the argument accessors, the program's constants, and where reductions go.
// Threads cover the last dimension (x) and rows (y, grid-strided); each thread computes E elements
// of a row (1, 2 or 4: elements_per_thread, or TESSERA_JIT_ELEMENTS), at columns j + e*kJitBlockX
// so that every access of a warp stays coalesced. Where all E are inside the row, the program runs
// instruction-major over them (each instruction for every element before the next), so the loads
// of all E elements are in flight together; the ragged end of a row runs them one at a time,
// guarded. Reductions are deterministic: each thread adds its elements in order, each block writes
// its partial results, and a second kernel of the same module combines the blocks in a fixed
// order.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/program/interpreter.hpp"
#include "tessera/program/program.hpp"

namespace tessera::detail {

constexpr int kJitBlockX = 256;
// The elements of a row that a thread of a sweep holds at most (generate_sweep), and the threads
// that share a row: the fewest, a power of two up to a warp, that hold all of it.
constexpr int kSweepLanes = 8;
// The threads that share a row of `columns` elements, `elements` each per pass: the fewest, a
// power of two (their shuffles stay inside a segment of the warp), at most a warp.
constexpr std::int64_t threads_per_row(std::int64_t columns, int elements) {
  std::int64_t t = 1;
  while (t < 32 && t * elements < columns) t *= 2;
  return t;
}
constexpr std::int64_t sweep_threads(std::int64_t columns) { return threads_per_row(columns, kSweepLanes); }
// The threads of a finish kernel (generate_along's, generate_sweep's) that fold one output's
// `chunks` partial values together: a power of two up to a block, each thread folding about
// kFinishChunksPerLane of them (fewer outputs than chunks is the common case: 4096 column sums of
// 256 chunks, or 32 gradient entries of 1024 bands).
constexpr std::int64_t kFinishChunksPerLane = 4;
constexpr std::int64_t finish_lanes(std::int64_t chunks) {
  std::int64_t lanes = 1;
  while (lanes < kJitBlockX && lanes * 2 * kFinishChunksPerLane <= chunks) lanes *= 2;
  return lanes;
}
constexpr int kMaxJitConstants = 64;  // constants in the parameter block; later ones are literals

struct KernelParams {
  Domain domain;
  Value constants[kMaxJitConstants];
  void* block_partials = nullptr;  // full reductions: nblocks x 2 nreduce values; along: chunks' partials
  void* partials = nullptr;        // Accumulators, or ReductionTarget::along
  std::int64_t nblocks = 0;
  std::int64_t count = 0;         // reductions along a dimension: outputs per slot
  std::int64_t chunks = 1;        // ... and ranges of the reduced dimension folded apart
  std::int64_t row_threads = 32;  // along the last dimension: threads that fold one row together
  std::int64_t finish_lanes = 1;  // the finish kernel's threads per output (finish_lanes)

  Accessor args[kMaxArgs];  // last: only the used prefix matters
};

struct GeneratedKernel {
  std::string source;
  int elements = 1;  // per thread and row: the launch's blocks along a row cover kJitBlockX * elements
  // A reduction along rows: the rows each segment of KernelParams::row_threads threads folds together
  // (generate_along), so a block covers kJitBlockX / row_threads * row_group rows.
  int row_group = 1;
  std::string main_name = "tessera_fused";
  std::string finish_name = "tessera_finish";  // only when the program reduces
  std::uint64_t hash = 0;                      // of the source
  // Nested reductions: bit a: argument a is staged in dynamic shared memory, each in 8-byte slots
  // of domain.n[reduce_dim] * domain.n[nested.dim] elements, in argument order, when the launch
  // gives the kernel that much (KernelParams::nblocks = 1); otherwise it reads global memory.
  std::uint64_t staged = 0;
  // Loads kept from one row for the next (KernelShape::row_carry): the launch gives each block a
  // band of several rows, as the first row of a band loads everything.
  bool carries = false;
  // A kernel that marches through planes (KernelShape::march_planes, generate_march in codegen.cpp):
  // launched with one block per tile of a plane (gridDim.x) and bands of planes (gridDim.y).
  bool marches = false;
  // A sweep's kernel (generate_sweep; also a column reduction of rows of at most
  // kMaxSweepColumns): T threads per row (KernelParams::row_threads), bands of rows per block.
  bool sweep = false;
};

// Whether a program can be compiled (every opcode, dtype and number of constants can; this checks
// the number of arguments).
bool jit_supports(const Program& program, int nargs);
// Elements per thread (1, 2 or 4) that suit `program`: several for short memory-bound programs,
// one for long compute-bound ones (the reasons are in codegen.cpp).
// `shape` tells which loads are of replicated values (KernelShape{}: none).
int elements_per_thread(const Program& program, const KernelShape& shape = {});

// A plane-marching kernel's elements per thread along its row (generate_march in codegen.cpp):
// its tile of a plane is kMarchColumns * kMarchElements columns by kMarchRows rows. Two loads
// per view in flight per thread: on an H200 the 27-point stencil (512^3) took 0.77-0.80 ms/iter
// with 2, 0.80-0.85 with 1 and 0.85-0.87 with 4 (docs/JIT.md, "Planes marched").
constexpr int kMarchElements = 2;

// A batch: several programs as one kernel. InOrder: small programs (boundary strips) run one after
// the other by one block of kJitBatchThreads, a barrier between them, so a part reads what the
// parts before it wrote. Independent: part k takes blocks [first_block[k], first_block[k + 1]) of
// kJitBlockX threads, batch_part_blocks of them (a larger part strides through its elements).
constexpr int kJitBatchThreads = 1024;
constexpr std::int64_t kMaxBatchPartBlocks = 16384;
inline std::int64_t batch_part_blocks(std::int64_t volume) {
  return std::min<std::int64_t>((volume + kJitBlockX - 1) / kJitBlockX, kMaxBatchPartBlocks);
}
struct BatchParams {
  Domain domain[kMaxBatchParts];
  std::int64_t volume[kMaxBatchParts] = {};
  std::int64_t first_block[kMaxBatchParts + 1] = {};  // Independent batches' blocks per part
  Value constants[kMaxJitConstants];  // the parts' constants one after the other; later ones are literals
  Accessor args[kMaxArgs];            // the parts' arguments one after the other
};
struct BatchPart {
  const Program* program = nullptr;
  int nargs = 0;
};
bool batch_fits(const std::vector<BatchPart>& parts);
GeneratedKernel generate_batch(const std::vector<BatchPart>& parts, BatchOrder order = BatchOrder::InOrder);

// `shape` (interpreter.hpp) specializes the address arithmetic (KernelShape{} assumes nothing);
// `elements` (1, 2 or 4) is the number of elements each thread computes per row.
GeneratedKernel generate_cuda(const Program& program, int nargs, const KernelShape& shape, int elements);

}  // namespace tessera::detail
