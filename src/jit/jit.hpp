#pragma once
// The JIT tier (CUDA builds with NVRTC): fused programs become compiled kernels (jit/codegen.hpp),
// compiled through the kernel cache (jit/kernel_cache.hpp), loaded with the driver API and
// launched on the Kokkos execution space's stream. A program that cannot be compiled is logged
// once and runs on the interpreter.

#include <memory>
#include <string>
#include <vector>

#include "tessera/core/config.hpp"
#include "tessera/program/interpreter.hpp"

namespace tessera::detail {

class Jit;
struct JitKernel;

// The runtime's JIT, or nullptr where there is none (CPU builds, builds without NVRTC,
// TESSERA_BACKEND=interp). TESSERA_BACKEND=jit without a JIT is logged once.
std::shared_ptr<Jit> make_jit(const Config& config, int rank);

// The compiled kernel of `program`, or nullptr (it cannot be compiled: logged once).
const JitKernel* jit_kernel(Jit& jit, const Program& program, int nargs, const KernelShape& shape);
void jit_launch(Jit& jit, const JitKernel& kernel, const Program& program, const std::vector<Accessor>& args,
                const Domain& domain, const ReductionTarget& target, const std::string& label);
// NVRTC seconds spent so far.
double jit_compile_seconds(const Jit& jit);

// A batch of small programs as one kernel (jit/codegen.hpp), or nullptr where it does not fit.
struct BatchPart;
const JitKernel* jit_batch_kernel(Jit& jit, const std::vector<BatchPart>& parts);
// args[i]: the accessors of part i (parts[i].nargs of them).
void jit_launch_batch(Jit& jit, const JitKernel& kernel, const std::vector<BatchPart>& parts,
                      const std::vector<const Accessor*>& args, const std::vector<Domain>& domains,
                      const std::string& label);

}  // namespace tessera::detail
