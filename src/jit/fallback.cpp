// The JIT tiers a build lacks: their factories return nullptr (the interpreter runs every kernel)
// and their entry points are never reached.

#include <cstdio>

#include "tessera/jit/host_jit.hpp"
#include "tessera/jit/jit.hpp"

namespace tessera::detail {

#ifndef TESSERA_HAVE_JIT
std::shared_ptr<Jit> make_jit(const Config& config, int rank) {
  // Host builds: the host tier is the JIT (make_host_jit).
  if (!kDeviceIsHost && config.backend == Backend::Jit && rank == 0)
    std::fprintf(stderr,
                 "[tessera] TESSERA_BACKEND=jit: this build has no JIT (CUDA builds with NVRTC only); "
                 "running the interpreter\n");
  return nullptr;
}
double jit_compile_seconds(const Jit&) { return 0; }
void jit_wait_idle(Jit&) {}
#endif

#ifndef TESSERA_HAVE_HOST_JIT
// Device builds have no host tier.
std::shared_ptr<HostJit> make_host_jit(const Config&, int) { return nullptr; }
bool host_launch(HostJit&, KernelImage&, const std::string&, const Program&, const std::vector<Accessor>&,
                 const Domain&, const ReductionTarget&) {
  return false;
}
double host_compile_seconds(const HostJit&) { return 0; }
std::string host_compile_command(const HostJit&) { return ""; }
void host_wait_idle(HostJit&) {}
#endif

}  // namespace tessera::detail
