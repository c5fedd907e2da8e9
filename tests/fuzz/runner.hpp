#pragma once
// Running a fuzz program on tessera (fused or not) and comparing its checkpoints with the
// reference's: integers and bools exactly, float64 within 1e-12 and float32 within 1e-5,
// relative to max(1, |reference|).

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/reference.hpp"
#include "support.hpp"

namespace fuzz {

constexpr double kTol64 = 1e-12;  // comparison tolerances
constexpr double kTol32 = 1e-5;

// Runs a program on a fresh Runtime (fused or not); ops counts the ops tessera recorded.
struct Totals {
  std::int64_t ops = 0, kernels = 0, halo_exchanges = 0, redistributions = 0, allreduces = 0, gathers = 0,
               plan_hits = 0;
  void add(const ts::Stats& s) {
    plan_hits += s.plan_cache_hits;
    ops += s.ops;
    kernels += s.kernels;
    halo_exchanges += s.halo_exchanges;
    redistributions += s.redistributions;
    allreduces += s.allreduces;
    gathers += s.gathers;
  }
  std::string str() const {
    return "ops " + std::to_string(ops) + ", kernels " + std::to_string(kernels) + ", halo exchanges " +
           std::to_string(halo_exchanges) + ", redistributions " + std::to_string(redistributions) + ", allreduces " +
           std::to_string(allreduces) + ", gathers " + std::to_string(gathers) + ", plan-cache hits " +
           std::to_string(plan_hits);
  }
};

// Runs a program on a fresh Runtime (fused with the program's window, or not).
std::vector<Snap> run_tessera(const Program& p, bool fused, Totals& totals);

struct Outcome {
  bool bad = false;
  int step = -1;  // the step of the first failing checkpoint
  std::string detail;
};

// Runs p fused and unfused and compares with the reference; the verdict is agreed by all ranks.
Outcome check_program(const Program& p, const std::vector<Snap>& ref, Totals& fused_totals, Totals& unfused_totals);

}  // namespace fuzz
