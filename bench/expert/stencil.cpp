// The 5-point stencil by hand: double-buffered (the new values go to the other grid, so an
// iteration is one kernel that reads every point once and writes it once), ghost rows exchanged
// before each step. A team per row and the row's columns across the team's threads: on GPUs
// consecutive threads touch consecutive columns (coalesced); no index arithmetic per point.

#include <utility>

#include "../systems.hpp"
#include "../workloads.hpp"
#include "row_block.hpp"

namespace bench::expert {

Result stencil(tessera::Runtime& rt, const Options& o) {
  const RowBlock block(o.rows, o.n);
  Grid current = block.allocate("expert::stencil::a"), next = block.allocate("expert::stencil::b");
  block.fill_uniform(current, stencil::kSeed, false);
  Kokkos::deep_copy(next, current);  // the boundary is never written: both grids keep it
  const std::int64_t begin = block.interior_begin(), cols = o.n;
  const int rows = static_cast<int>(block.interior_end() - begin);
  std::int64_t received = 0;
  auto body = [&] {
    received += block.exchange(current);
    const Grid in = current, out = next;
    Kokkos::parallel_for(
        "expert::stencil", Rows(rows, Kokkos::AUTO), KOKKOS_LAMBDA(const Member& team) {
          const std::int64_t i = begin + team.league_rank();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, std::int64_t(1), cols - 1), [&](const std::int64_t j) {
            out(i, j) = 0.2 * (in(i, j) + in(i - 1, j) + in(i, j + 1) + in(i, j - 1) + in(i + 1, j));
          });
        });
    std::swap(current, next);
  };
  auto sync = [] { wait("expert::stencil"); };
  Result r;
  warm_up(o, r, body, sync);
  received = 0;
  time_rounds(o, r, body, sync);
  const double interior = static_cast<double>(rows) * static_cast<double>(cols - 2);
  set_counters(r, o, o.iters, 0, stencil::kBytesPerPoint * interior * o.iters, static_cast<double>(received));
  r.min_bytes_per_iter = stencil::kBytesPerPoint * static_cast<double>((o.rows - 2) * (o.n - 2));
  const Grid final_grid = current;
  set_check(r, stencil::check(o.rows, o.n, o.warmup + o.iters, rt.size(),
                              [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
                                return block.gather(final_grid, r0, r1, c0, c1);
                              }));
  r.checksum = block.sum(current);
  return r;
}

}  // namespace bench::expert
