#pragma once
// The bytecode interpreter: the fused-kernel backend of every Kokkos backend and the reference for
// the others. On hosts it runs each instruction over a block of elements along the last dimension
// (NumExpr style) so decoding is paid once per block; on GPUs a block is one element per thread.

#include <string>
#include <vector>

#include "tessera/core/kokkos_compat.hpp"
#include "tessera/fusion/program.hpp"

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

struct Accumulators {
  Value v[kMaxReductions];
};

// Runs `program` over `domain`. If it reduces, this rank's partial results are written to
// `partials` (device memory) without synchronizing the host.
void interpret(const std::string& label, const Program& program, const std::vector<Accessor>& args,
               const Domain& domain, const Kokkos::View<Accumulators, MemSpace>& partials);

}  // namespace tessera::detail
