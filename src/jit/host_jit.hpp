#pragma once
// The host tier of the JIT (host builds: Kokkos Serial, OpenMP, Threads): fused programs become
// C++ (jit/host_codegen.hpp), compiled by the C++ compiler tessera was built with (TESSERA_CXX
// overrides it) into one shared object per program, kept in the kernel cache
// (jit/disk_cache.hpp) and loaded with dlopen.
//
// Compiles run in the background (jit/compile_pool.hpp: TESSERA_JIT_THREADS at once): a program
// runs on the interpreter until its code is ready, so no launch waits for the compiler, and
// Runtime::flush() waits for the compiles in flight. A program is handed to the compiler once it
// is hot: once its launches have covered kHotElements elements (small programs, which the
// interpreter runs in microseconds, are never compiled). TESSERA_JIT_WAIT=1 instead compiles every
// program at its first launch and waits for it (tests that compare compiled results). Without a
// usable compiler the interpreter runs everything, after one message.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/core/config.hpp"
#include "tessera/jit/program_images.hpp"

namespace tessera::detail {

class HostJit;

// Elements a program's interpreted launches cover before it is compiled (about 10 ms of the
// interpreter; a compile takes 0.1 to 0.5 s on a background thread).
constexpr std::int64_t kHotElements = std::int64_t(1) << 20;

// The runtime's host tier, or nullptr (TESSERA_BACKEND=interp; no compiler: reported once on rank 0).
std::shared_ptr<HostJit> make_host_jit(const Config& config, int rank);

// Runs the launch with the program's compiled code if it is ready (or, under TESSERA_JIT_WAIT=1,
// once it is); false: it was not run, the interpreter runs it.
bool host_launch(HostJit& jit, KernelImage& image, const std::string& label, const Program& program,
                 const std::vector<Accessor>& args, const Domain& domain, const ReductionTarget& target);

// Seconds the compiler ran so far (the first run's compile time, in benchmarks).
double host_compile_seconds(const HostJit& jit);
// The compiler and flags that compile host kernels (part of every cache key).
std::string host_compile_command(const HostJit& jit);
// Blocks until every requested compile has finished (benchmarks, tests).
void host_wait_idle(HostJit& jit);

}  // namespace tessera::detail
