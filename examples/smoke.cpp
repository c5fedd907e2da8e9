#include <cstdio>
#include <tessera/tessera.hpp>
namespace ts = tessera;
int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  auto a = ts::arange<double>(10);
  auto b = a(ts::slice(1, -1)) + a(ts::slice(0, -2));
  auto h = b.to_host();
  if (rt.rank() == 0) {
    for (double x : h) std::printf("%g ", x);
    std::printf("\n");
  }
  auto s = ts::sum(a);
  double v = s.item();
  auto g = ts::random<double>({6, 7}, 3);
  auto c = ts::where(g > 0.5, ts::exp(g), -g);
  auto m = ts::zeros<double>({5, 5});
  m(ts::slice(1, -1), ts::slice(1, -1)).assign(1.0);
  auto center = m(ts::slice(1, -1), ts::slice(1, -1));
  center.assign(0.2 * (center + m(ts::slice(0, -2), ts::slice(1, -1)) + m(ts::slice(2, ts::end), ts::slice(1, -1)) +
                       m(ts::slice(1, -1), ts::slice(0, -2)) + m(ts::slice(1, -1), ts::slice(2, ts::end))));
  auto mh = m.to_host();
  double me = ts::mean(a).item(), mx = ts::max(c).item(), nn = ts::norm(a).item();
  if (rt.rank() == 0) {
    std::printf("sum=%g mean=%g max=%g n=%g\n", v, me, mx, nn);
    for (int i = 0; i < 5; i++) {
      for (int j = 0; j < 5; j++) std::printf("%.2f ", mh[i * 5 + j]);
      std::printf("\n");
    }
  }
  std::printf("rank %d stats: ", rt.rank());
  auto st = rt.stats();
  std::printf("kernels=%ld halo=%ld redis=%ld\n", (long)st.kernels, (long)st.halo_exchanges, (long)st.redistributions);
}
