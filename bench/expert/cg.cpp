// CG by hand: three kernels per iteration, each fused by hand, and two device-side allreduces;
// nothing waits for the host. Scalars (p.q, r.r) stay in device memory and every thread reads
// alpha = rr / pq and beta = rr_new / rr from them; r.r alternates between two scalars so that
// no kernel overwrites a value that it reads.
//   1. q = A p on the interior, fused with p.q               (reads p, writes q)
//   2. r -= alpha q, fused with r.r                          (reads r, q, writes r)
//   3. x += alpha p and p = r + beta p                       (reads x, p, r, writes x, p)
// The pointwise kernels run over the owned rows as one contiguous range: boundary cells are zero
// in every vector and stay zero.

#include <cmath>

#include "../systems.hpp"
#include "../workloads.hpp"
#include "row_block.hpp"

namespace bench::expert {

namespace {

double dot(const RowBlock& block, const Grid& u, const Grid& v) {
  const Flat us = block.owned_cells(u), vs = block.owned_cells(v);
  double mine = 0;
  Kokkos::parallel_reduce(
      "expert::cg::check_dot", Range(0, static_cast<std::int64_t>(us.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t k, double& s) { s += us(k) * vs(k); }, mine);
  return sum_over_ranks(mine);
}

// ||b - A x||^2 and the energy -(b.x + (b - A x).x) / 2, with b computed from its definition
// into `b` and the residual into `res` (both overwritten; res is zero on the boundary).
void finish(const RowBlock& block, const Grid& x, const Grid& b, const Grid& res, cg::Final& f) {
  block.exchange(x);
  block.fill_uniform(b, cg::kSeed, true);
  const std::int64_t begin = block.interior_begin(), cols = block.cols();
  Kokkos::parallel_for(
      "expert::cg::residual", Rows(static_cast<int>(block.interior_end() - begin), Kokkos::AUTO),
      KOKKOS_LAMBDA(const Member& team) {
        const std::int64_t i = begin + team.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, std::int64_t(1), cols - 1), [&](const std::int64_t j) {
          res(i, j) = b(i, j) - (4.0 * x(i, j) - x(i - 1, j) - x(i + 1, j) - x(i, j - 1) - x(i, j + 1));
        });
      });
  f.rr_true = dot(block, res, res);
  f.energy = -0.5 * (dot(block, x, b) + dot(block, x, res));
}

}  // namespace

Result cg(tessera::Runtime& rt, const Options& o) {
  const RowBlock block(o.rows, o.n);
  Grid x = block.allocate("expert::cg::x"), r = block.allocate("expert::cg::r"), p = block.allocate("expert::cg::p"),
       q = block.allocate("expert::cg::q");
  block.fill_uniform(r, cg::kSeed, true);
  Kokkos::deep_copy(p, r);
  const Flat xs = block.owned_cells(x), rs = block.owned_cells(r), ps = block.owned_cells(p), qs = block.owned_cells(q);
  const std::int64_t cells = block.owned() * o.n, begin = block.interior_begin(), cols = o.n;
  const int rows = static_cast<int>(block.interior_end() - begin);
  const Scalar pq("expert::cg::pq"), rr[2] = {Scalar("expert::cg::rr_a"), Scalar("expert::cg::rr_b")};
  Kokkos::parallel_reduce(
      "expert::cg::dot", Range(0, cells), KOKKOS_LAMBDA(const std::int64_t k, double& s) { s += rs(k) * rs(k); },
      rr[0]);
  allreduce_sum(rr[0]);
  cg::Final f;
  Kokkos::deep_copy(f.rr0, rr[0]);

  int parity = 0;
  std::int64_t received = 0;
  auto body = [&] {
    received += block.exchange(p);
    const Scalar PQ = pq, RR = rr[parity], RR_NEW = rr[1 - parity];
    Kokkos::parallel_reduce(
        "expert::cg::laplacian_dot", Rows(rows, Kokkos::AUTO),
        KOKKOS_LAMBDA(const Member& team, double& sum) {
          const std::int64_t i = begin + team.league_rank();
          double row = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, std::int64_t(1), cols - 1),
              [&](const std::int64_t j, double& s) {
                const double v = 4.0 * p(i, j) - p(i - 1, j) - p(i + 1, j) - p(i, j - 1) - p(i, j + 1);
                q(i, j) = v;
                s += p(i, j) * v;
              },
              row);
          if (team.team_rank() == 0) sum += row;
        },
        PQ);
    allreduce_sum(PQ);
    Kokkos::parallel_reduce(
        "expert::cg::update_r_dot", Range(0, cells),
        KOKKOS_LAMBDA(const std::int64_t k, double& s) {
          const double v = rs(k) - RR() / PQ() * qs(k);
          rs(k) = v;
          s += v * v;
        },
        RR_NEW);
    allreduce_sum(RR_NEW);
    Kokkos::parallel_for(
        "expert::cg::update_x_p", Range(0, cells), KOKKOS_LAMBDA(const std::int64_t k) {
          const double alpha = RR() / PQ(), beta = RR_NEW() / RR(), pk = ps(k);
          xs(k) += alpha * pk;
          ps(k) = rs(k) + beta * pk;
        });
    parity = 1 - parity;
  };
  auto sync = [] { wait("expert::cg"); };
  Result res;
  warm_up(o, res, body, sync);
  received = 0;
  time_rounds(o, res, body, sync);
  const double interior = static_cast<double>(rows) * static_cast<double>(cols - 2);
  const double bytes = 16.0 * interior + (24.0 + 40.0) * static_cast<double>(cells);
  set_counters(res, o, 3.0 * o.iters, 0, bytes * o.iters, static_cast<double>(received));
  res.min_bytes_per_iter = cg::kBytesPerPoint * static_cast<double>((o.rows - 2) * (o.n - 2));

  Kokkos::deep_copy(f.rr, rr[parity]);
  f.conjugacy = dot(block, p, q) / std::sqrt(dot(block, p, p) * dot(block, q, q));
  finish(block, x, p, q, f);  // p and q are overwritten
  f.x = [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
    return block.gather(x, r0, r1, c0, c1);
  };
  f.r = [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
    return block.gather(r, r0, r1, c0, c1);
  };
  set_check(res, cg::check(o.rows, o.n, o.warmup + o.iters, rt.size(), f));
  res.checksum = f.rr;
  return res;
}

}  // namespace bench::expert
