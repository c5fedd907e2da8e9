// The README's quickstart (kept identical to it): a 2-D stencil written with views, a reduction.
//   mpirun -n 2 ./build/examples/tessera-quickstart
#include <cstdio>

#include <tessera/tessera.hpp>

namespace ts = tessera;

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);  // initializes MPI and Kokkos (unless the application did)
  const std::int64_t n = 512;
  auto a = ts::random<double>({n, n}, 42);  // uniform in [0, 1): the same array for any rank count
  auto b = ts::zeros<double>({n, n});

  // b[1:-1, 1:-1] = mean of the four neighbours in a. Views share storage; reading shifted views
  // makes the ranks exchange halos, nothing else moves.
  auto in = ts::slice(1, -1);
  b(in, in).assign(0.25 * (a(ts::slice(0, -2), in) + a(ts::slice(2, ts::end), in) + a(in, ts::slice(0, -2)) +
                           a(in, ts::slice(2, ts::end))));

  auto change = ts::norm(b(in, in) - a(in, in));  // a 0-d array: stays on the device
  // item() is the one way a value reaches the host. Every rank calls it (it may synchronize);
  // only rank 0 prints.
  double total = ts::sum(b).item();
  double distance = change.item();
  if (rt.rank() == 0) std::printf("ranks=%d sum=%.10f |b-a|=%.10f\n", rt.size(), total, distance);
  return 0;
}
