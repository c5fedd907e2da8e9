// Which backend runs a launch: the JIT's compiled kernel where the runtime has a JIT and the
// program compiles, else the interpreter. The choice is made once per distinct program.

#include <algorithm>
#include <cstdio>

#include "tessera/core/runtime_state.hpp"
#include "tessera/fusion/interpreter.hpp"
#include "tessera/jit/codegen.hpp"
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
#endif

#ifndef TESSERA_HAVE_HOST_JIT
// Device builds have no host tier.
std::shared_ptr<HostJit> make_host_jit(const Config&, int) { return nullptr; }
bool host_launch(HostJit&, ProgramImage&, const std::string&, const Program&, const std::vector<Accessor>&,
                 const Domain&, const ReductionTarget&) {
  return false;
}
double host_compile_seconds(const HostJit&) { return 0; }
std::string host_compile_command(const HostJit&) { return ""; }
void host_wait_idle(HostJit&) {}
#endif

namespace {
LaunchObserver observer = nullptr;
}  // namespace

KernelShape kernel_shape(const Program& program, const std::vector<Accessor>& args, const Domain& domain) {
  KernelShape shape;
  shape.flat = domain.n[0] * domain.n[1] == 1;
  // Outputs along dimension 0 (the third of a nested reduction's dimensions), more than one.
  const bool nested_rows = program.nested.dim >= 0 && program.nested.dim + program.reduce_dim == 3 && domain.n[0] > 1;
  for (std::size_t a = 0; a < args.size(); ++a) {
    const Accessor& x = args[a];
    const bool scalar = x.origin == 0 && x.stride[0] == 0 && x.stride[1] == 0 && x.stride[2] == 0;
    if (scalar)
      shape.scalar |= std::uint64_t(1) << a;
    else if (x.stride[2] == 1)
      shape.unit |= std::uint64_t(1) << a;
    if (nested_rows && !scalar && x.stride[0] == 0) shape.invariant |= std::uint64_t(1) << a;
    if (shape.flat || scalar) continue;
    for (std::size_t b = 0; b < a; ++b)
      if (shape.same_rows[b] == 0 && !(shape.scalar >> b & 1) && args[b].stride[0] == x.stride[0] &&
          args[b].stride[1] == x.stride[1]) {
        shape.same_rows[a] = static_cast<std::uint8_t>(b + 1);
        break;
      }
  }
  return shape;
}

void set_launch_observer(LaunchObserver o) { observer = o; }

void launch_batch(const std::string& label, const std::vector<BatchLaunch>& parts) {
#ifdef TESSERA_HAVE_JIT
  if (Jit* jit = runtime().jit()) {
    std::vector<BatchPart> programs;
    std::vector<const Accessor*> args;
    std::vector<Domain> domains;
    for (const BatchLaunch& part : parts) {
      if (observer)
        observer(*part.program, static_cast<int>(part.args.size()),
                 kernel_shape(*part.program, part.args, part.domain));
      programs.push_back({part.program, static_cast<int>(part.args.size())});
      args.push_back(part.args.data());
      domains.push_back(part.domain);
    }
    if (const JitKernel* kernel = jit_batch_kernel(*jit, programs)) {
      jit_launch_batch(*jit, *kernel, programs, args, domains, label);
      return;
    }
  }
#endif
  for (const BatchLaunch& part : parts) launch_kernel(label, *part.program, part.args, part.domain, {});
}

void launch_kernel(const std::string& label, const Program& program, const std::vector<Accessor>& args,
                   const Domain& domain, const ReductionTarget& target) {
  if (observer) observer(program, static_cast<int>(args.size()), kernel_shape(program, args, domain));
  RuntimeState& rt = runtime();
  ProgramImage& image = rt.programs().get(program);
#ifdef TESSERA_HAVE_JIT
  if (Jit* jit = rt.jit()) {
    const KernelShape shape = kernel_shape(program, args, domain);
    auto it = std::find_if(image.jit.begin(), image.jit.end(), [&](const auto& v) { return v.first == shape; });
    if (it == image.jit.end())
      it = image.jit.insert(image.jit.end(), {shape, jit_kernel(*jit, program, static_cast<int>(args.size()), shape)});
    if (it->second) {
      jit_launch(*jit, *it->second, program, args, domain, target, label);
      return;
    }
  }
#endif
  if (HostJit* host = rt.host_jit())
    if (host_launch(*host, image, label, program, args, domain, target)) return;
  interpret(label, program, image, args, domain, target);
}

}  // namespace tessera::detail
