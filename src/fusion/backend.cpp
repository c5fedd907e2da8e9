// Which backend runs a launch: the JIT's compiled kernel where the runtime has a JIT and the
// program compiles (the CUDA tier's first launch of a kernel, and the host tier's launches until
// the program's code is ready, run on the interpreter), else the interpreter. The kernel is found
// once per distinct program and shape.

#include "tessera/fusion/backend.hpp"

#include <algorithm>

#include "tessera/fusion/runtime_state.hpp"
#include "tessera/jit/codegen.hpp"
#include "tessera/jit/host_jit.hpp"
#include "tessera/jit/jit.hpp"

namespace tessera::detail {

namespace {
LaunchObserver observer = nullptr;
}  // namespace

void set_launch_observer(LaunchObserver o) { observer = o; }

void launch_batch(const std::string& label, const std::vector<BatchLaunch>& parts, BatchOrder order) {
  // Where the parts run one after the other, independent ones run last first: any order is right
  // for them, and this one makes a wrong independence decision (fusion/window.cpp, batch_runs)
  // give wrong values on every backend, where the tests and the fuzzer see it, not on GPUs only.
  const bool reverse = order == BatchOrder::Independent;
  const auto nth = [&](std::size_t k) { return reverse ? parts.size() - 1 - k : k; };
#ifdef TESSERA_HAVE_JIT
  if (Jit* jit = runtime().jit()) {
    std::vector<BatchPart> programs;
    std::vector<const Accessor*> args;
    std::vector<Domain> domains;
    std::vector<KernelImage*> images;
    std::vector<std::uint64_t> key;
    for (const BatchLaunch& part : parts) {
      if (observer)
        observer(*part.program, static_cast<int>(part.args.size()),
                 kernel_shape(*part.program, part.args, part.domain));
      programs.push_back({part.program, static_cast<int>(part.args.size())});
      images.push_back(&runtime().programs().get(*part.program));
      key.push_back(images.back()->serial);
      key.push_back(part.args.size());
      args.push_back(part.args.data());
      domains.push_back(part.domain);
    }
    key.push_back(static_cast<std::uint64_t>(order));
    if (JitKernel* kernel = jit_batch_kernel(*jit, programs, key, order)) {
      const JitState state = jit_state(*jit, *kernel, true);  // the parts are elementwise
      if (state == JitState::Ready) return jit_launch_batch(*jit, *kernel, programs, args, domains, label, order);
      if (state == JitState::Interpret) {
        // The interpreter runs the parts while the batch's kernel compiles: compiling each part
        // alone as well would be work for this one launch.
        for (std::size_t k = 0; k < parts.size(); ++k) {
          const BatchLaunch& part = parts[nth(k)];
          interpret(label, *part.program, *images[nth(k)], part.args, part.domain, {});
        }
        return;
      }
    }
  }
#endif
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const BatchLaunch& part = parts[nth(k)];
    launch_kernel(label, *part.program, part.args, part.domain, {});
  }
}

void launch_kernel(const std::string& label, const Program& program, const std::vector<Accessor>& args,
                   const Domain& domain, const ReductionTarget& target) {
  if (observer) observer(program, static_cast<int>(args.size()), kernel_shape(program, args, domain));
  RuntimeState& rt = runtime();
  KernelImage& image = rt.programs().get(program);
#ifdef TESSERA_HAVE_JIT
  if (Jit* jit = rt.jit()) {
    const KernelShape shape = kernel_shape(program, args, domain);
    auto it = std::find_if(image.jit.begin(), image.jit.end(), [&](const auto& v) { return v.first == shape; });
    if (it == image.jit.end())
      it = image.jit.insert(image.jit.end(), {shape, jit_kernel(*jit, program, static_cast<int>(args.size()), shape)});
    if (it->second) {
      const JitState state = jit_state(*jit, *it->second, interpreter_spreads(program));
      if (state == JitState::Ready) return jit_launch(*jit, *it->second, program, args, domain, target, label);
      if (state == JitState::Failed) it->second = nullptr;
    }
  }
#endif
  if (HostJit* host = rt.host_jit())
    if (host_launch(*host, image, label, program, args, domain, target)) return;
  interpret(label, program, image, args, domain, target);
}

void wait_for_compiles() {
  RuntimeState& rt = runtime();
  if (Jit* jit = rt.jit()) jit_wait_idle(*jit);
  if (HostJit* host = rt.host_jit()) host_wait_idle(*host);
}

}  // namespace tessera::detail
