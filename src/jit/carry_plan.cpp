#include "tessera/jit/carry_plan.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace tessera::detail::codegen {
namespace {

bool pure(OpCode op) { return is_unary(op) || is_binary(op) || op == OpCode::Where || op == OpCode::Cast; }

// Rows (not planes: KernelShape::march_planes decided those): carrying costs registers and longer
// bands (jit.cpp, kCarryBand), so it must save more than loads that L1 would serve. Measured on
// an H200 (docs/JIT.md, "Rows carried"): the 27-point stencil's rows, 18 of 27 loaded views
// carried, 21% faster; the 5-point stencil, 2 of 5 and nothing computed carried, 9% slower; the
// shallow-water step, fewer than two thirds of its loads but its half-step fluxes carried, 7%
// faster. So: where a computed value is carried, or at least two thirds of the loaded views are.
bool worth_carrying(const Program& program, const KernelShape& shape, const CarryPlan& plan) {
  for (std::size_t pc = 0; pc < plan.root.size(); ++pc)
    if (plan.root[pc] && program.code[pc].op != OpCode::Load) return true;
  std::uint64_t loaded = 0;
  for (const Instr& in : program.code)
    if (in.op == OpCode::Load && !(shape.scalar >> in.a & 1)) loaded |= std::uint64_t(1) << in.a;
  int loads = 0, paired = 0;
  for (int a = 0; a < kMaxArgs; ++a) {
    if (!(loaded >> a & 1)) continue;
    ++loads;
    paired += shape.row_carry[a] != 0;
  }
  return 3 * paired >= 2 * loads;
}

}  // namespace

CarryPlan plan_carry(const Program& program, const KernelShape& shape) {
  const std::vector<Instr>& code = program.code;
  const int n = static_cast<int>(code.size());
  CarryPlan plan;
  plan.partner.assign(n, -1);
  plan.root.assign(n, 0);
  plan.emitted.assign(n, 0);
  plan.refilled.assign(n, 0);

  // The instruction that defined each operand (registers are reused: planner's allocation).
  std::vector<std::array<int, 3>> defs(n, {-1, -1, -1});
  std::vector<int> sources(n, 0);
  std::vector<int> current(static_cast<std::size_t>(std::max(program.registers, 1)), -1);
  std::uint64_t stored = 0;
  for (int pc = 0; pc < n; ++pc) {
    int src[3];
    sources[pc] = register_sources(program, code[pc], src);
    for (int j = 0; j < sources[pc]; ++j) defs[pc][j] = current[src[j]];
    if (code[pc].op == OpCode::Store) stored |= std::uint64_t(1) << code[pc].a;
    if (defines_register(code[pc].op)) current[code[pc].dst] = pc;
  }
  // One instruction per value where the program repeats it: the first load of an argument not
  // written by the program, the first constant of an index.
  std::vector<int> canonical(n);
  for (int pc = 0; pc < n; ++pc) {
    const Instr& in = code[pc];
    const bool repeats = (in.op == OpCode::Load && !(stored >> in.a & 1)) || in.op == OpCode::Const;
    canonical[pc] = pc;
    for (int q = 0; repeats && q < pc; ++q)
      if (code[q].op == in.op && code[q].a == in.a && code[q].type == in.type) {
        canonical[pc] = q;
        break;
      }
  }
  std::vector<char> invariant(n, 0);  // the same value in every row
  for (int pc = 0; pc < n; ++pc) {
    const Instr& in = code[pc];
    const std::uint64_t bit = std::uint64_t(1) << in.a;
    if (in.op == OpCode::Const ||
        (in.op == OpCode::Load && !(stored & bit) && ((shape.scalar | shape.row_invariant) & bit))) {
      invariant[pc] = 1;
      plan.partner[pc] = canonical[pc];
      continue;
    }
    if (in.op == OpCode::Load) {
      if ((stored & bit) || !shape.row_carry[in.a]) continue;
      const int b = shape.row_carry[in.a] - 1;
      if (stored >> b & 1) continue;
      for (int q = 0; q < n && plan.partner[pc] < 0; ++q)
        if (code[q].op == OpCode::Load && code[q].a == b && code[q].type == in.type) plan.partner[pc] = q;
      continue;
    }
    if (!pure(in.op)) continue;
    bool all_invariant = true, all_partnered = true;
    int want[3];
    for (int j = 0; j < sources[pc]; ++j) {
      const int d = defs[pc][j];  // -1: a register read before it is written (codegen raises)
      all_invariant = all_invariant && d >= 0 && invariant[d];
      all_partnered = all_partnered && d >= 0 && plan.partner[d] >= 0;
      if (all_partnered) want[j] = canonical[plan.partner[d]];
    }
    if (all_invariant) {
      invariant[pc] = 1;
      plan.partner[pc] = pc;
      continue;
    }
    if (!all_partnered) continue;
    for (int q = 0; q < n && plan.partner[pc] < 0; ++q) {
      const Instr& c = code[q];
      if (c.op != in.op || c.type != in.type || c.from != in.from) continue;
      bool same = true;
      for (int j = 0; j < sources[pc] && same; ++j) same = defs[q][j] >= 0 && canonical[defs[q][j]] == want[j];
      if (same) plan.partner[pc] = q;
    }
  }

  // What a carried row computes: from the stores and reductions back through their operands,
  // stopping at values carried from the row before (roots), whose partners the row computes for
  // the next one.
  std::vector<int> stack;
  for (int pc = 0; pc < n; ++pc)
    if (!defines_register(code[pc].op)) stack.push_back(pc);
  while (!stack.empty()) {
    const int pc = stack.back();
    stack.pop_back();
    if (pc < 0 || plan.emitted[pc]) continue;
    plan.emitted[pc] = 1;
    if (plan.partner[pc] >= 0 && !invariant[pc]) {
      plan.root[pc] = 1;
      stack.push_back(plan.partner[pc]);
      continue;
    }
    for (int j = 0; j < sources[pc]; ++j) stack.push_back(defs[pc][j]);
  }
  for (int pc = 0; pc < n; ++pc)
    if (plan.root[pc] &&
        std::find(plan.registers.begin(), plan.registers.end(), plan.partner[pc]) == plan.registers.end()) {
      plan.registers.push_back(plan.partner[pc]);
      plan.refill_from.push_back(pc);
    }
  if (plan.registers.empty()) return CarryPlan{};
  if (!shape.march_planes && !worth_carrying(program, shape, plan)) return CarryPlan{};
  // A band's first row computes the roots' values itself, from loads.
  for (int root : plan.refill_from) stack.push_back(root);
  while (!stack.empty()) {
    const int pc = stack.back();
    stack.pop_back();
    if (pc < 0 || plan.refilled[pc]) continue;
    plan.refilled[pc] = 1;
    for (int j = 0; j < sources[pc]; ++j) stack.push_back(defs[pc][j]);
  }
  return plan;
}

}  // namespace tessera::detail::codegen
