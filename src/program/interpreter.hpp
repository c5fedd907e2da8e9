#pragma once
// The bytecode interpreter: the fused-kernel backend of every Kokkos backend and the reference for
// the others. On hosts it runs each instruction over a block of elements along the last dimension
// (NumExpr style) so decoding is paid once per block; on GPUs a block is one element per thread.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/core/kokkos_compat.hpp"
#include "tessera/program/program.hpp"

namespace tessera::detail {

// Where argument k lives: element (i0, i1, i2) of the launch tile (padded to 3-D, leading
// dimensions of extent 1) is at ptr + (origin + i0*stride[0] + i1*stride[1] + i2*stride[2]) * size.
// A 0-d (replicated) argument has all strides 0.
struct Accessor {
  char* ptr = nullptr;
  std::int64_t origin = 0;
  std::int64_t stride[3] = {0, 0, 0};
};

// The launch tile, padded to 3-D, and what Index needs: where the tile starts in the global array
// and the global row-major strides.
struct Domain {
  std::int64_t n[3] = {1, 1, 1};
  std::int64_t global_origin[3] = {0, 0, 0};
  std::int64_t global_stride[3] = {0, 0, 1};
  std::int64_t volume() const { return n[0] * n[1] * n[2]; }
};

// Kernel arguments travel inside the kernel's parameters (no per-launch device allocation, no
// copy); the planner closes a group before it would need more.
constexpr int kMaxArgs = 64;

// The largest inner extent a nested reduction's kernel is compiled for (KernelShape::nested_extent).
constexpr std::int64_t kMaxFixedNestedExtent = 16;
// The largest |column_shift| (KernelShape::column_of): a stencil's reach along a row.
constexpr std::int64_t kMaxColumnShift = 16;

// Plane marching (KernelShape::march_planes): a block's threads, kMarchColumns along a row (a
// warp) by kMarchRows rows (each thread takes kMarchElements of its row: jit/codegen.hpp), and
// the least loads and planes of a program that marches (programs of more than 8 loads run one
// element per thread in the rows' kernel: jit/codegen.cpp, elements_per_thread).
constexpr int kMarchColumns = 32;
constexpr int kMarchRows = 8;
constexpr int kMinMarchLoads = 9;
// The largest |row shift| between views a marching kernel stages together (KernelShape::tile_of).
constexpr int kMaxTileRowShift = 4;
constexpr std::int64_t kMinMarchPlanes = 8;

// What a launch lets a compiled kernel assume, part of the kernel's identity: a flat domain (one
// row: i0 = i1 = 0), arguments with stride 1 along the last dimension (every row-major layout) and
// replicated ones (offset 0). The address arithmetic they save is a large part of a kernel that
// computes one or a few elements per thread.
// A nested reduction whose outputs run along dimension 0 (k-means' points) also learns which
// arguments are the same for every output (stride 0 along it, not replicated: the centroids),
// which its kernel stages in shared memory.
struct KernelShape {
  bool flat = false;
  std::uint64_t unit = 0;       // bit a: argument a has stride 1 along the last dimension
  std::uint64_t scalar = 0;     // bit a: argument a is replicated (all strides 0, origin 0)
  std::uint64_t invariant = 0;  // bit a: argument a has stride 0 along a nested reduction's outputs
  // same_rows[a] = b + 1: argument a steps along rows (stride[0], stride[1]) as argument b < a
  // does (views of one store: a stencil's neighbours), so a kernel computes that part of their
  // addresses once per row; 0: its own (or a replicated argument, or a one-row domain).
  std::uint8_t same_rows[kMaxArgs] = {};
  // row_carry[a] = b + 1: element (i0, i1 + 1, j) of argument a is element (i0, i1, j) of argument
  // b (two views of one store a row apart, the store not written by the program: a stencil's
  // rows above and below), so a kernel that steps through consecutive rows keeps what it loaded
  // of b for a's load of the next row; 0: a loads its own. A 27-point stencil loads 9 of its 27
  // views per row instead of 27. Every such pair is set; the JIT carries them where that pays
  // (jit/carry_plan.hpp).
  std::uint8_t row_carry[kMaxArgs] = {};
  // The kernel marches through planes rather than rows (jit/codegen.cpp, generate_march): a block
  // takes a tile of a plane and steps it through a band of consecutive planes, and row_carry
  // pairs views a *plane* apart (element (i0 + 1, i1, j) of a is element (i0, i1, j) of b).
  // Chosen over rows for programs of at least kMinMarchLoads loads without reductions whose loads
  // are at least two thirds paired that way, on domains of at least kMinMarchPlanes planes of
  // kMarchRows rows: a 27-point stencil's neighbours in the rows above and below are then loaded
  // by the same block in the same step (from L1), not by other blocks (from L2).
  bool march_planes = false;
  // column_of[a] = b + 1: argument a is argument b (b < a) shifted by column_shift[a] elements
  // along the last dimension (views of one store in one row: a stencil's left and right
  // neighbours; both stride 1 there), so a kernel addresses a from b's address plus a literal,
  // which a GPU load takes as an immediate offset: one address computed for a row's three views
  // of a 27-point stencil instead of three; 0: a is addressed on its own.
  std::uint8_t column_of[kMaxArgs] = {};
  std::int8_t column_shift[kMaxArgs] = {};
  // Plane marching only: tile_of[a] = b + 1: argument a is argument b (b < a, tile_of[b] == 0) in
  // the same plane, shifted by tile_rows[a] rows and tile_columns[a] columns (views of one store
  // the program does not write, both stride 1 along rows: a 27-point stencil's nine views of one
  // plane), so a marching kernel stages the part of b's plane that a tile's loads of such views
  // read in shared memory, once per plane, and takes the loads from there (jit/codegen.cpp,
  // generate_march); 0: a is loaded on its own (or is the first of its views).
  std::uint8_t tile_of[kMaxArgs] = {};
  std::int8_t tile_rows[kMaxArgs] = {};
  std::int8_t tile_columns[kMaxArgs] = {};
  // A nested reduction's inner extent (domain.n[nested.dim]: k-means' dimensions) where it is 1
  // to kMaxFixedNestedExtent, which its kernel is compiled for (its inner loops unrolled without
  // guards); 0: known only at run time.
  std::int64_t nested_extent = 0;
  // A sweep (Program::sweep), or a reduction along dimension 1 of a one-plane domain whose rows
  // have 1 to kMaxSweepColumns elements (a narrow matrix's column sums, x @ A for logistic
  // regression's 32 features): the length of its rows, for which the JIT compiles it as a sweep
  // (jit/codegen.cpp, generate_sweep; without row slots, its threads share rows rather than take
  // a column each, which would leave most of a block idle); 0: not such a program.
  std::int64_t sweep_columns = 0;
  // Sweeps and reductions along rows: bit a: argument a is the same in every row (stride 0 along
  // dimensions 0 and 1, not replicated: logistic regression's w, a matvec's x), so its address has
  // no row part (and a row reduction folds several rows per load of it: jit/codegen.cpp, row_group).
  std::uint64_t row_invariant = 0;
  friend bool operator==(const KernelShape& a, const KernelShape& b) {
    return a.flat == b.flat && a.march_planes == b.march_planes && a.sweep_columns == b.sweep_columns &&
           a.row_invariant == b.row_invariant && a.unit == b.unit && a.scalar == b.scalar &&
           a.invariant == b.invariant && a.nested_extent == b.nested_extent &&
           std::memcmp(a.same_rows, b.same_rows, sizeof a.same_rows) == 0 &&
           std::memcmp(a.row_carry, b.row_carry, sizeof a.row_carry) == 0 &&
           std::memcmp(a.column_of, b.column_of, sizeof a.column_of) == 0 &&
           std::memcmp(a.column_shift, b.column_shift, sizeof a.column_shift) == 0 &&
           std::memcmp(a.tile_of, b.tile_of, sizeof a.tile_of) == 0 &&
           std::memcmp(a.tile_rows, b.tile_rows, sizeof a.tile_rows) == 0 &&
           std::memcmp(a.tile_columns, b.tile_columns, sizeof a.tile_columns) == 0;
  }
};
static_assert(kMaxArgs <= 64, "KernelShape has one bit per argument");

KernelShape kernel_shape(const Program& program, const std::vector<Accessor>& args, const Domain& domain);

// A row reduced along its last dimension by the interpreter (on every backend) and the host
// tier, which agree bit for bit, folds column j into lane j % kRowLanes, the columns after the
// row's last full group of kRowLanes into lane 0, and joins the lanes in order at the row's end:
// one chain of dependent additions per row left the host tier's row sums bound by the adder's
// latency (sum(A, 1) of 4096 x 4096 on the 2-core CPU machine: 10.0-10.8 ms before, 3.6-6.7
// with lanes; docs/JIT.md). Only where every slot sums (a matvec, sum, mean, count_nonzero along
// rows): that changes a float sum's order within the rounding every order has, and the arg
// kinds' ties and min and max's NaN keep one lane. 1 for other programs. (The GPU tier's row
// kernels fold in an order of their own: jit/codegen.cpp.)
constexpr int kRowLanes = 4;
int row_lanes(const Program& program);

// The device copy of a program's code and constants that the interpreter reads, made once per
// distinct program and kept by the runtime with what the JIT tiers compiled of it
// (jit/program_images.hpp).
struct ProgramImage {
  Kokkos::View<const Instr*, MemSpace> code;
  Kokkos::View<const Value*, MemSpace> constants;
};

// A full reduction's partial result per slot: the value and, for arg kinds, its index (laid out
// as ReductionTarget::along with one output).
struct Accumulators {
  struct Slot {
    Value v, index;
  };
  Slot slot[kMaxReductions];
};
using PartialsView = Kokkos::View<Accumulators, MemSpace, Kokkos::MemoryUnmanaged>;

// Where a launch's reductions go (device memory). Full reductions: one Accumulators. Reductions
// along a dimension (Program::reduce_dim): `count` outputs per slot, row-major over the other
// dimensions of the launch; slot k's values at along[2 k count ...], its indices (arg kinds) at
// along[(2 k + 1) count ...].
struct ReductionTarget {
  PartialsView partials;
  Value* along = nullptr;
  std::int64_t count = 0;
};

// Runs `program` over `domain`. If it reduces, this rank's partial results are written to the
// target without synchronizing the host.
void interpret(const std::string& label, const Program& program, const ProgramImage& image,
               const std::vector<Accessor>& args, const Domain& domain, const ReductionTarget& target);

// Whether interpret() spreads `program` over many items: elementwise programs and full
// reductions (an item per block of a row), reductions along the last dimension (per row) and
// nested ones (per output). Not reductions along an outer dimension, sweeps among them, whose
// items each walk every row of the tile: on a GPU a tall tile's few columns are a few threads.
bool interpreter_spreads(const Program& program);

// Folds `from` into `into` (both device partials of `program`'s reductions), on the device: the
// partial results of a launch run in several parts (interior and boundary strips).
void combine_partials(const Program& program, const PartialsView& into, const PartialsView& from);

// A batch (fusion/backend.hpp) has at most kMaxBatchParts parts and kMaxArgs arguments in all
// (they share one parameter block). Its parts run in program order, each seeing what the parts
// before it wrote (InOrder: small programs, one block on a GPU), or in any order (Independent:
// programs that touch nothing another writes, each over blocks of its own).
constexpr int kMaxBatchParts = 8;
enum class BatchOrder { InOrder, Independent };

}  // namespace tessera::detail
