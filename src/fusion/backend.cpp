// Which backend runs a launch: the JIT's compiled kernel where the runtime has a JIT and the
// program compiles, else the interpreter. The choice is made once per distinct program.

#include <cstdio>

#include "tessera/core/runtime_state.hpp"
#include "tessera/fusion/interpreter.hpp"
#include "tessera/jit/jit.hpp"

namespace tessera::detail {

#ifndef TESSERA_HAVE_JIT
std::shared_ptr<Jit> make_jit(const Config& config, int rank) {
  if (config.backend == Backend::Jit && rank == 0)
    std::fprintf(stderr,
                 "[tessera] TESSERA_BACKEND=jit: this build has no JIT (CUDA builds with NVRTC only); "
                 "running the interpreter\n");
  return nullptr;
}
#endif

namespace {
LaunchObserver observer = nullptr;
}  // namespace

void set_launch_observer(LaunchObserver o) { observer = o; }

void launch_kernel(const std::string& label, const Program& program, const std::vector<Accessor>& args,
                   const Domain& domain, const PartialsView& partials) {
  if (observer) observer(program, static_cast<int>(args.size()));
  RuntimeState& rt = runtime();
  ProgramImage& image = rt.programs().get(program);
#ifdef TESSERA_HAVE_JIT
  if (Jit* jit = rt.jit()) {
    if (!image.jit_tried) {
      image.jit = jit_kernel(*jit, program, static_cast<int>(args.size()));
      image.jit_tried = true;
    }
    if (image.jit) {
      jit_launch(*jit, *image.jit, program, args, domain, partials, label);
      return;
    }
  }
#endif
  interpret(label, program, image, args, domain, partials);
}

}  // namespace tessera::detail
