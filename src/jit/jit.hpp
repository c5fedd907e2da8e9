#pragma once
// The JIT tier (CUDA builds with NVRTC): fused programs become compiled kernels (jit/codegen.hpp),
// compiled through the kernel cache (jit/kernel_cache.hpp), loaded with the driver API and
// launched on the Kokkos execution space's stream. A program that cannot be compiled is logged
// once and runs on the interpreter.
//
// A kernel missing from the disk cache is compiled in the background (jit/compile_pool.hpp): its
// first launch runs on the interpreter (unless the interpreter would run it on few threads:
// program/interpreter.hpp, interpreter_spreads), so the launching thread goes on while the
// window's new kernels compile, instead of stalling at each; later launches run the compiled
// kernel (waiting for it if need be). TESSERA_JIT_WAIT=1 waits at the first launch instead;
// Runtime::flush() waits for the compiles in flight.

#include <cstdint>
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

// The kernel of `program` for launches of this shape (perhaps still compiling: jit_state), or
// nullptr (it cannot be generated: logged once).
JitKernel* jit_kernel(Jit& jit, const Program& program, int nargs, const KernelShape& shape);
// Who runs this launch of the kernel: the interpreter (its first launch, while it compiles, where
// `interpret_first`: the interpreter runs the program well), the kernel (Ready: compiled, waited
// for if need be, its module loaded on the calling thread), or the interpreter for good (Failed:
// it did not compile, logged once).
enum class JitState { Interpret, Ready, Failed };
JitState jit_state(Jit& jit, JitKernel& kernel, bool interpret_first);
void jit_launch(Jit& jit, const JitKernel& kernel, const Program& program, const std::vector<Accessor>& args,
                const Domain& domain, const ReductionTarget& target, const std::string& label);
// NVRTC seconds spent so far, summed over the compiling threads.
double jit_compile_seconds(const Jit& jit);
// Blocks until every background compile requested so far has finished.
void jit_wait_idle(Jit& jit);

// A batch of programs as one kernel (jit/codegen.hpp), or nullptr where it does not fit.
struct BatchPart;
// `key`: each part's program image serial and argument count, in order, then the order (the
// batch's identity).
JitKernel* jit_batch_kernel(Jit& jit, const std::vector<BatchPart>& parts, const std::vector<std::uint64_t>& key,
                            BatchOrder order);
// args[i]: the accessors of part i (parts[i].nargs of them).
void jit_launch_batch(Jit& jit, const JitKernel& kernel, const std::vector<BatchPart>& parts,
                      const std::vector<const Accessor*>& args, const std::vector<Domain>& domains,
                      const std::string& label, BatchOrder order);

}  // namespace tessera::detail
