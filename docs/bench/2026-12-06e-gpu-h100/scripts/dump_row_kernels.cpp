// Writes the CUDA source tessera's JIT generates for sum(A, 1) (k0.cu) and A - mean(A, 0) (k1.cu, k2.cu) to
// /tmp/rowdump, from a host build (launch observer + generate_cuda; ELEMS=2|4 forces the elements per thread).
// Call D's rows.cu loads k0.cu as rows/gen_sum1_e<E>.cu. Built against build/src/libtessera.a like an app.
#include <cstdlib>
#include <fstream>
#include <string>
#include <tessera/fusion/backend.hpp>
#include <tessera/jit/codegen.hpp>
#include <tessera/tessera.hpp>
namespace ts = tessera;
namespace td = tessera::detail;
static int idx = 0;
static void observe(const td::Program& p, int nargs, const td::KernelShape& shape) {
  if (!td::jit_supports(p, nargs)) return;
  const int e = getenv("ELEMS") ? atoi(getenv("ELEMS")) : td::elements_per_thread(p, shape);
  td::GeneratedKernel g = td::generate_cuda(p, nargs, shape, e);
  std::ofstream("/tmp/rowdump/k" + std::to_string(idx++) + ".cu") << g.source;
}
int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  auto A = ts::random<double>({512, 256}, 1);
  rt.flush();
  td::set_launch_observer(observe);
  auto s = ts::sum(A, 1);
  rt.flush();
  auto c = A - ts::mean(A, 0);
  rt.flush();
  td::set_launch_observer(nullptr);
  std::printf("%g %g\n", s(0).item(), c(0, 0).item());
  return 0;
}
