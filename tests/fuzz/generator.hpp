#pragma once
// The generator: a program from a seed, built of random proposals that are each kept only when
// the reference accepts them (reference.hpp). Besides random expressions over shifted, windowed,
// strided, indexed and broadcast views, with axis reductions and shape operations, programs
// contain idioms (generator_idioms.cpp: stencils, sweeps, centering, k-means, red-black and
// multigrid updates ...), loops that repeat a body (plan-cache hits, sometimes with other
// constants), handle swaps and moves, and explicit flushes. The fused runs use a window size
// picked per program (3 to 256). The parts: gen.hpp.

#include <cstdint>

#include "fuzz/program.hpp"

namespace fuzz {

// About target_ops operations (the reference's count), then a check of every live handle.
Program generate(std::uint64_t seed, std::int64_t target_ops);

}  // namespace fuzz
