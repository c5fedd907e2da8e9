// A 2-D shallow-water solver in TorchSWE's style: the central-upwind finite-volume scheme of
// Kurganov and Petrova, piecewise-linear (minmod) reconstruction, wall (reflective) boundaries
// through two layers of ghost cells, SSP-RK2 in time, dt from the fastest wave (CFL 0.25).
// Flat bottom, so the stage is the depth h. The unit square has n x n cells; a hump of water off
// the centre spreads and reflects from the walls.
//
//   mpirun -n 4 ./tessera-shallow-water --n 512 --iters 100 [--warmup 2] [--check]
//
// Prints the mass (sum of h times the cell area: conserved by the walls), the extremes of h, the
// 2-norms of the momenta, the simulated time and h at one cell. --check fails unless the mass is
// conserved to 1e-12 and h stays positive. The NumPy twin is shallow_water.py.
//
// Every step stays on the device: dt is a 0-d array (a reduction) that later operations read as a
// scalar, so the loop never waits for the host.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;
using ts::slice;

namespace {

constexpr double kGravity = 9.81;
constexpr double kTheta = 1.3;  // minmod's limiter parameter (TorchSWE's default)
constexpr double kCfl = 0.25;   // 2-D central-upwind: dt <= dx / (4 max speed)
constexpr double kDry = 1e-10;  // faces with slower waves than this carry no flux

struct State {
  ts::Array<double> h, hu, hv;  // depth and momenta, (n+4) x (n+4): two ghost layers each side
};

// Wall boundaries: the ghost cells mirror the first two interior cells; the momentum normal to
// the wall changes sign. Columns first (west, east), then rows (south, north).
void walls(State& s, std::int64_t n) {
  for (int k = 0; k < 2; ++k) {
    for (auto [ghost, inner] : {std::pair<std::int64_t, std::int64_t>{1 - k, 2 + k}, {n + 2 + k, n + 1 - k}}) {
      s.h(ts::all, ghost).assign(s.h(ts::all, inner));
      s.hu(ts::all, ghost).assign(-s.hu(ts::all, inner));
      s.hv(ts::all, ghost).assign(s.hv(ts::all, inner));
    }
  }
  for (int k = 0; k < 2; ++k) {
    for (auto [ghost, inner] : {std::pair<std::int64_t, std::int64_t>{1 - k, 2 + k}, {n + 2 + k, n + 1 - k}}) {
      s.h(ghost, ts::all).assign(s.h(inner, ts::all));
      s.hu(ghost, ts::all).assign(s.hu(inner, ts::all));
      s.hv(ghost, ts::all).assign(-s.hv(inner, ts::all));
    }
  }
}

// The central-upwind fluxes through the n+1 faces normal to `axis` (1: between columns, 0:
// between rows) of the n interior cells across it, for h, the normal and the tangential momentum.
// Also the fastest wave speed on those faces.
struct Fluxes {
  ts::Array<double> h, normal, tangential, speed;
};

Fluxes fluxes(const ts::Array<double>& h, const ts::Array<double>& qn, const ts::Array<double>& qt, int axis,
              std::int64_t n) {
  const auto inner = slice(2, n + 2);
  // q[across, along] for axis 1, q[along, across] for axis 0 (NumPy would transpose instead).
  auto cut = [axis](const ts::Array<double>& q, ts::Slice along, ts::Slice across) {
    return axis == 1 ? q(across, along) : q(along, across);
  };
  // Values at the two sides of each face: cells 1..n+1 on the left, 2..n+2 on the right, with the
  // minmod slope of each cell from its neighbours.
  auto sides = [&](const ts::Array<double>& q, ts::Array<double>& left, ts::Array<double>& right) {
    auto dl = cut(q, slice(1, n + 3), inner) - cut(q, slice(0, n + 2), inner);
    auto dr = cut(q, slice(2, n + 4), inner) - cut(q, slice(1, n + 3), inner);
    auto slope = ts::where(
        dl * dr > 0.0,
        ts::sign(dl) * ts::minimum(ts::minimum(kTheta * ts::abs(dl), 0.5 * ts::abs(dl + dr)), kTheta * ts::abs(dr)),
        0.0);
    left = cut(q, slice(1, n + 2), inner) + 0.5 * cut(slope, slice(0, n + 1), ts::all);
    right = cut(q, slice(2, n + 3), inner) - 0.5 * cut(slope, slice(1, n + 2), ts::all);
  };
  ts::Array<double> hL, hR, nL, nR, tL, tR;
  sides(h, hL, hR);
  sides(qn, nL, nR);
  sides(qt, tL, tR);
  auto uL = ts::where(hL > kDry, nL / hL, 0.0), uR = ts::where(hR > kDry, nR / hR, 0.0);
  auto vL = ts::where(hL > kDry, tL / hL, 0.0), vR = ts::where(hR > kDry, tR / hR, 0.0);
  auto cL = ts::sqrt(kGravity * hL), cR = ts::sqrt(kGravity * hR);
  auto ap = ts::maximum(ts::maximum(uL + cL, uR + cR), 0.0);  // the fastest waves right and left
  auto am = ts::minimum(ts::minimum(uL - cL, uR - cR), 0.0);
  auto upwind = [&](const ts::Array<double>& fL, const ts::Array<double>& fR, const ts::Array<double>& qL,
                    const ts::Array<double>& qR) {
    return ts::where(ap - am > kDry, (ap * fL - am * fR + ap * am * (qR - qL)) / (ap - am), 0.0);
  };
  Fluxes f;
  f.h = upwind(nL, nR, hL, hR);
  f.normal = upwind(nL * uL + 0.5 * kGravity * hL * hL, nR * uR + 0.5 * kGravity * hR * hR, nL, nR);
  f.tangential = upwind(nL * vL, nR * vR, tL, tR);
  f.speed = ts::max(ts::maximum(ap, -am));
  return f;
}

// d/dt of h, hu, hv on the interior cells: minus the divergence of the fluxes.
struct Rates {
  ts::Array<double> h, hu, hv, speed;
};

Rates rates(const State& s, std::int64_t n, double dx) {
  const Fluxes x = fluxes(s.h, s.hu, s.hv, 1, n), y = fluxes(s.h, s.hv, s.hu, 0, n);
  const auto hi = slice(1, ts::end), lo = slice(0, -1);
  auto div = [&](const ts::Array<double>& fx, const ts::Array<double>& fy) {
    return -(fx(ts::all, hi) - fx(ts::all, lo)) / dx - (fy(hi, ts::all) - fy(lo, ts::all)) / dx;
  };
  return {div(x.h, y.h), div(x.normal, y.tangential), div(x.tangential, y.normal), ts::maximum(x.speed, y.speed)};
}

}  // namespace

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-shallow-water", argc, argv);
  const std::int64_t n = args.integer("--n", 512, 2);
  const std::int64_t iters = args.integer("--iters", 100, 0);
  const std::int64_t warmup = args.integer("--warmup", 0, 0);
  const bool check = args.flag("--check");
  if (!args.ok()) {
    if (rt.rank() == 0) args.report();
    return args.help() ? 0 : 2;
  }
  const double dx = 1.0 / static_cast<double>(n);

  const auto in = slice(2, n + 2);
  // `steps` steps from the hump at rest, timed from the first.
  State w, stage;
  ts::Array<double> time;  // the simulated time, on the device
  double mass0 = 0, mass = 0, ms = 0;
  LoopCounts loop;
  auto run = [&](std::int64_t steps) {
    // Cell centres (ghosts included) and the hump: h = 1 + 0.5 exp(-((x - 0.3)^2 + (y - 0.4)^2) / 0.01).
    auto x = (ts::arange<double>(n + 4) - 1.5) * dx;
    auto X = x(ts::newaxis, ts::all), Y = x(ts::all, ts::newaxis);
    w = State{1.0 + 0.5 * ts::exp(-(ts::square(X - 0.3) + ts::square(Y - 0.4)) / 0.01),
              ts::zeros<double>({n + 4, n + 4}), ts::zeros<double>({n + 4, n + 4})};
    walls(w, n);
    stage = State{ts::copy(w.h), ts::copy(w.hu), ts::copy(w.hv)};
    mass0 = ts::sum(w.h(in, in)).item() * dx * dx;
    time = ts::zeros<double>({1});
    rt.flush();
    loop.start(rt);
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t it = 0; it < steps; ++it) {
      // SSP-RK2: stage = w + dt L(w); w = (w + stage + dt L(stage)) / 2, dt from the first stage.
      const Rates r1 = rates(w, n, dx);
      auto dt = kCfl * dx / r1.speed;
      stage.h(in, in).assign(w.h(in, in) + dt * r1.h);
      stage.hu(in, in).assign(w.hu(in, in) + dt * r1.hu);
      stage.hv(in, in).assign(w.hv(in, in) + dt * r1.hv);
      walls(stage, n);
      const Rates r2 = rates(stage, n, dx);
      w.h(in, in).assign(0.5 * (w.h(in, in) + stage.h(in, in) + dt * r2.h));
      w.hu(in, in).assign(0.5 * (w.hu(in, in) + stage.hu(in, in) + dt * r2.hu));
      w.hv(in, in).assign(0.5 * (w.hv(in, in) + stage.hv(in, in) + dt * r2.hv));
      walls(w, n);
      time += dt;
    }
    loop.recorded();
    mass = ts::sum(w.h(in, in)).item() * dx * dx;
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    loop.stop(rt);
  };
  if (warmup > 0) run(std::min(warmup, iters));  // untimed: kernels loaded, memory pool grown
  run(iters);
  const double h_max = ts::max(w.h(in, in)).item(), h_min = ts::min(w.h(in, in)).item();
  const double hu_norm = ts::norm(w.hu(in, in)).item(), hv_norm = ts::norm(w.hv(in, in)).item();
  const double t = time.item(), probe = w.h(n / 3 + 2, n / 2 + 2).item();

  const bool ok = !check || (std::abs(mass - mass0) <= 1e-12 * mass0 && h_min > 0);
  if (rt.rank() == 0) {
    std::printf("shallow-water: n=%lld iters=%lld ranks=%d\n", static_cast<long long>(n), static_cast<long long>(iters),
                rt.size());
    std::printf("mass %.17g\n", mass);
    std::printf("h_max %.17g\n", h_max);
    std::printf("h_min %.17g\n", h_min);
    std::printf("hu_norm %.17g\n", hu_norm);
    std::printf("hv_norm %.17g\n", hv_norm);
    std::printf("time %.17g\n", t);
    std::printf("probe %.17g\n", probe);
    std::printf("time per iteration %.3f ms\n", iters > 0 ? ms / static_cast<double>(iters) : 0.0);
    loop.print(iters);
    if (check)
      std::printf("check %s: mass change %.3g relative, h_min %.6g\n", ok ? "passed" : "FAILED",
                  std::abs(mass - mass0) / mass0, h_min);
  }
  return ok ? 0 : 1;
}
