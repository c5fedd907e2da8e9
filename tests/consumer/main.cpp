// Uses the installed tessera through <tessera/tessera.hpp> only; exits non-zero on a wrong result.
//   mpirun -n 2 ./app
#include <cmath>
#include <cstdio>

#include <tessera/tessera.hpp>

namespace ts = tessera;

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  const std::int64_t n = 64;
  // a[i, j] = i * n + j; b = the sum of the four neighbours of a's interior = 4 * a[1:-1, 1:-1].
  auto a = ts::from_host<double>({n, n}, ts::arange<double>(n * n).to_host());
  auto inner = ts::slice(1, -1);
  auto b = a(ts::slice(0, -2), inner) + a(ts::slice(2, ts::end), inner) + a(inner, ts::slice(0, -2)) +
           a(inner, ts::slice(2, ts::end));
  double checksum = ts::sum(b).item();
  double want = 0.0;
  for (std::int64_t i = 1; i < n - 1; ++i)
    for (std::int64_t j = 1; j < n - 1; ++j) want += 4.0 * static_cast<double>(i * n + j);
  bool ok = std::abs(checksum - want) <= 1e-12 * std::abs(want);
  if (rt.rank() == 0)
    std::printf("consumer: ranks=%d checksum=%.17g expected=%.17g %s\n", rt.size(), checksum, want,
                ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
