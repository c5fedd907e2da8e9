#pragma once
// Host code generation: a fused Program becomes C++ for the host compiler (the host tier of the
// JIT, docs/JIT.md). The same instruction-by-instruction translation as the CUDA tier's
// (jit/emitter.hpp) and the same scalar semantics (program/element_ops.hpp, embedded as text),
// around loops over the tile instead of threads: rows outside, the last dimension inside,
// unit-stride where the launch's shape says so and vectorizable (`#pragma omp simd`: fusion
// never lets one element write what another reads).
//
// Results are the interpreter's, bit for bit: every reduction folds its elements in the
// interpreter's order (row-major over the tile, the reduced dimension in order for reductions
// along a dimension, the inner dimension in order for nested ones), and the source is compiled
// without fast-math and without contraction (jit/host_jit.cpp).
//
// One shared object per program serves every shape: `tessera_host` is specialized for the shape
// of the launch that asked for it (unit-stride and replicated arguments), `tessera_host_any`
// assumes nothing, for launches of other shapes. Both have the signature of HostFunction:
// items [first, last) are rows (elementwise programs, full reductions, reductions along the last
// dimension), the outputs' outer index (reductions along an outer dimension) or outputs (nested
// reductions); `acc` (full reductions only) holds the Accumulators folded into, in and out.

#include <cstdint>
#include <string>

#include "tessera/jit/codegen.hpp"
#include "tessera/program/interpreter.hpp"
#include "tessera/program/program.hpp"

namespace tessera::detail {

using HostFunction = void (*)(const KernelParams& p, std::int64_t first, std::int64_t last, Value* acc);

struct HostSource {
  std::string source;
  std::uint64_t hash = 0;  // of the source
  KernelShape shape;       // what tessera_host assumes (flat and invariant are not used)
  bool has_any = false;    // whether tessera_host_any is a function of its own (else: tessera_host)
};

// The shape the host tier specializes for: only unit-stride and replicated arguments matter.
KernelShape host_shape(const KernelShape& shape);

// Throws tessera::Error for a program the host tier does not take (more than kMaxArgs arguments).
HostSource generate_host(const Program& program, int nargs, const KernelShape& shape);

// The items a launch of `program` over `domain` has (see above).
std::int64_t host_items(const Program& program, const Domain& domain, std::int64_t outputs);

}  // namespace tessera::detail
