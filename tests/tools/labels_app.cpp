// The program the labels test runs under the label_recorder Kokkos tool (check_labels.sh): a few
// steps of a 5-point stencil (fused kernels and halo exchanges), a far shift of one array
// (a redistribution), reductions (allreduces), to_host (a gather) and a local task (its region,
// and the kernel the application labels itself).
//   mpirun -n 2 ./tessera-labels-app
#include <cstdio>

#include <tessera/tessera.hpp>

namespace ts = tessera;

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  const std::int64_t n = 32;
  auto u = ts::random<double>({n, n}, 7);
  const auto inner = ts::slice(1, -1);
  for (int step = 0; step < 3; ++step) {
    auto update = 0.2 * (u(ts::slice(0, -2), inner) + u(ts::slice(2, ts::end), inner) + u(inner, ts::slice(0, -2)) +
                         u(inner, ts::slice(2, ts::end)) - 4.0 * u(inner, inner));
    u(inner, inner) += update;
  }
  // Arrays of different lengths are cut differently: one operand is redistributed to the other's tiles.
  auto x = ts::arange<double>(n);
  auto y = ts::linspace<double>(0, 1, 2 * n);
  auto folded = x(ts::slice(0, n / 2)) - y(ts::slice(n, n + n / 2));
  ts::local_task("relax", ts::writes(u), [](ts::Tile<double, 2> t) {
    Kokkos::parallel_for(
        "labels_app::relax",
        Kokkos::MDRangePolicy<ts::ExecSpace, Kokkos::Rank<2>>({0, 0},
                                                              {std::int64_t(t.extent(0)), std::int64_t(t.extent(1))}),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { t(i, j) *= 0.5; });
  });
  const double total = ts::sum(u).item();
  const double largest = ts::max(folded).item();
  const std::vector<double> host = u.to_host();
  if (rt.rank() == 0)
    std::printf("labels-app: ranks=%d sum=%.15e max=%.15e elements=%zu\n", rt.size(), total, largest, host.size());
  return 0;
}
