// Black-Scholes by hand: one kernel per iteration over this rank's block of options.

#include <algorithm>
#include <utility>
#include <vector>

#include "../systems.hpp"
#include "../workloads.hpp"
#include "row_block.hpp"

namespace bench::expert {

Result black_scholes(tessera::Runtime& rt, const Options& o) {
  namespace bs = bench::black_scholes;
  const std::int64_t first = o.n * rt.rank() / rt.size(), count = o.n * (rt.rank() + 1) / rt.size() - first;
  Vector S("expert::black_scholes::S", count), X("expert::black_scholes::X", count),
      T("expert::black_scholes::T", count), call("expert::black_scholes::call", count),
      put("expert::black_scholes::put", count);
  Kokkos::parallel_for(
      "expert::black_scholes::inputs", Range(0, count), KOKKOS_LAMBDA(const std::int64_t k) {
        S(k) = bs::spot(first + k);
        X(k) = bs::strike(first + k);
        T(k) = bs::years(first + k);
      });
  auto body = [&] {
    Kokkos::parallel_for(
        "expert::black_scholes", Range(0, count),
        KOKKOS_LAMBDA(const std::int64_t k) { bs::price(S(k), X(k), T(k), call(k), put(k)); });
  };
  auto sync = [] { wait("expert::black_scholes"); };
  Result r;
  warm_up(o, r, body, sync);
  time_rounds(o, r, body, sync);
  set_counters(r, o, o.iters, 0, bs::kBytesPerOption * static_cast<double>(count) * o.iters, 0);
  r.min_bytes_per_iter = bs::kBytesPerOption * static_cast<double>(o.n);

  // Every rank checks options at the start and the end of its block.
  const std::int64_t k = std::min<std::int64_t>(count / 2, 256);
  std::vector<std::int64_t> index;
  std::vector<double> cs, ps;
  for (std::int64_t start : {std::int64_t(0), count - k}) {
    const auto part = std::make_pair(start, start + k);
    auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(call, part));
    auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(put, part));
    for (std::int64_t i = 0; i < k; ++i) {
      index.push_back(first + start + i);
      cs.push_back(c(i));
      ps.push_back(p(i));
    }
  }
  set_check(r, bs::check_sample(index, cs, ps));
  double sum = 0;
  Kokkos::parallel_reduce(
      "expert::black_scholes::checksum", Range(0, count),
      KOKKOS_LAMBDA(const std::int64_t i, double& s) { s += call(i) + put(i); }, sum);
  r.checksum = sum_over_ranks(sum);
  return r;
}

}  // namespace bench::expert
