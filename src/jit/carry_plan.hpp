#pragma once
// Values a kernel keeps in registers from one row (or plane) to the next: a thread that runs the
// rows of its band in order at the same columns computes, in each row, some values it has
// already computed in the row before. KernelShape::row_carry pairs arguments a row apart
// (argument a's element one row further on is argument b's element of this row); from those
// pairs, an instruction whose operands are all such "one row further on" values of another
// instruction's operands computes that instruction's value of the row before. cuPyNumeric's
// 27-point stencil sums each row of three views (rows[a][b] = g_ab0 + g_ab1 + g_ab2), then
// planes, then the three planes: marching through planes, planes[0] of this plane is planes[1] of
// the plane before and planes[1] is planes[2], so a plane computes planes[2] only (9 loads and
// 11 operations, not 27 loads and 27 operations). The same operations on the same values: the
// results are those of the program, bit for bit. Internal to src/jit (codegen.cpp's row and
// plane kernels, through the Emitter).

#include <vector>

#include "tessera/program/interpreter.hpp"
#include "tessera/program/program.hpp"

namespace tessera::detail::codegen {

struct CarryPlan {
  // partner[pc] = q: instruction pc's value one row further on is q's value in this row; q = pc
  // where the value is the same in every row (constants, replicated arguments); -1: none.
  std::vector<int> partner;
  // root[pc]: in a row whose row before this thread ran, pc's value is the register carried for
  // partner[pc] (c<q>) and nothing pc reads is computed for it.
  std::vector<char> root;
  // emitted[pc]: pc's line is in such a row's code (roots as the register, dead code left out).
  std::vector<char> emitted;
  // The carried registers (partners of roots, in the order of their first root) and, for each,
  // a root whose value in this row is the register's value in the next: what a band's first row,
  // which has no row before, computes (the refill).
  std::vector<int> registers;
  std::vector<int> refill_from;
  // refilled[pc]: pc's line is in the refill (the roots' values computed from loads).
  std::vector<char> refilled;
  bool empty() const { return registers.empty(); }
};

// The plan for `program` run row after row under `shape` (empty where nothing is carried).
CarryPlan plan_carry(const Program& program, const KernelShape& shape);

}  // namespace tessera::detail::codegen
