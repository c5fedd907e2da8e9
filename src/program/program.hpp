#pragma once
// FusedProgram: the straight-line, typed register program that a kernel runs per element.
//
// One user op is a program of a few instructions (load, cast, op, store); a fused group is the
// concatenation of its ops' programs with loads of in-group values replaced by registers. Eager
// execution (TESSERA_FUSION=0) and fusion run the same programs through the same executor.
//
//   c = a + 2.0 * b   (a, b float64)   =>   r0 = load a0;  r1 = load a1;  r2 = const 2.0;
//                                           r3 = mul f64 r2 r1;  r4 = add f64 r0 r3;  store a2 <- r4

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/dtype.hpp"
#include "tessera/core/value.hpp"

namespace tessera::detail {

enum class OpCode : std::uint8_t {
  Load,    // r[dst] = arg[a] at this element                        (type: element type)
  Const,   // r[dst] = constants[a]
  Index,   // r[dst] = global row-major index of this element        (int64)
  Coord,   // r[dst] = global coordinate of this element along padded dimension a (0..2; int64)
  Random,  // r[dst] = uniform [0,1) from counter r[a], seed constants[b]  (float32/float64)
  Cast,    // r[dst] = (type) r[a], r[a] of type `from`
  Neg,
  Abs,
  Sqrt,
  Exp,
  Log,
  Sin,
  Cos,
  Tanh,
  Erf,
  Not,
  Tan,
  Floor,
  Ceil,
  Sign,
  Square,
  BitNot,  // r[dst] = f(r[a])                                        (~ of integers; of bool: not)
  IsNan,
  IsFinite,  // r[dst] (bool) = f(r[a])                               (type: of r[a])
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Max,
  Min,
  And,
  Or,
  Atan2,
  Mod,  // NumPy's remainder: the sign of the divisor
  BitAnd,
  BitOr,
  BitXor,  // r[dst] = r[a] op r[b]
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,         // r[dst] (bool) = r[a] cmp r[b] (type)
  Where,      // r[dst] = r[a] ? r[b] : r[c]                            (type: of b and c)
  Store,      // arg[a] at this element = r[b]
  Reduce,     // accumulator[dst] op= r[a]                           (type: of r[a])
  ReduceArg,  // accumulator[dst] = the better of it and (r[a], index r[b]): ArgMin / ArgMax
  // A nested reduction (Program::nested): the inner accumulator folds in r[a] (index r[b] for the
  // arg kinds), and, after the fold along the inner dimension, r[dst] is its finalized value, as
  // the inner reduction's result store would hold it (type: that store's).
  NestedReduce,
  NestedResult,
  // An epilogue (Program::epilogue): r[dst] = accumulator slot a's value as the reduction's result
  // store would hold it, finalized by Finalize(b) over constants[c] elements (type: that store's).
  ReduceResult,
};

// Elementwise instructions read r[a] (unary) or r[a] and r[b] (binary): the planner renames
// their registers by this, so a new opcode goes into one of the two ranges above.
constexpr bool is_unary(OpCode op) { return op >= OpCode::Neg && op <= OpCode::IsFinite; }
constexpr bool is_binary(OpCode op) { return op >= OpCode::Add && op <= OpCode::Ge; }
// Elementwise instructions whose result is bool whatever type they compute in.
constexpr bool yields_bool(OpCode op) {
  return op == OpCode::IsNan || op == OpCode::IsFinite || (op >= OpCode::Eq && op <= OpCode::Ge);
}

const char* name(OpCode op);
// Whether the instruction writes r[dst] (stores and reductions write memory or accumulators).
constexpr bool defines_register(OpCode op) {
  return op != OpCode::Store && op != OpCode::Reduce && op != OpCode::ReduceArg && op != OpCode::NestedReduce;
}

// ArgMin/ArgMax keep a value and the index it came from; the lowest index wins ties and NaN
// wins over numbers (the first NaN), as NumPy's argmin/argmax.
enum class ReduceKind : std::uint8_t { Sum, Prod, Min, Max, ArgMin, ArgMax };
constexpr bool is_arg(ReduceKind k) { return k == ReduceKind::ArgMin || k == ReduceKind::ArgMax; }
const char* name(ReduceKind k);

// What a reduction's result goes through before it is stored: the mean's division, norm's root.
enum class Finalize : std::uint8_t { None, Mean, Sqrt };

// An inner reduction along dimension `dim` whose only reader is the program's own (outer)
// reduction along reduce_dim, both in one kernel (docs/FUSION.md, "Nested reductions"): for each
// element of the third dimension (one output), for each position along reduce_dim, code[0, end)
// runs at every position along `dim` and folds into the inner accumulator (NestedReduce); then
// code[end, ...) runs once, reading the inner result (NestedResult), and folds into the outer
// reductions. The (..., reduce_dim, dim) intermediates live in registers only.
struct NestedReduction {
  int dim = -1;  // -1: no nested reduction
  int end = 0;
  ReduceKind kind = ReduceKind::Sum;
  bool is_float = true;  // accumulates in double (else int64)
  Finalize finalize = Finalize::None;
  double count = 1;  // Mean: the inner reduction's length
  friend bool operator==(const NestedReduction& a, const NestedReduction& b) {
    return a.dim == b.dim && a.end == b.end && a.kind == b.kind && a.is_float == b.is_float &&
           a.finalize == b.finalize && a.count == b.count;
  }
};

struct Instr {
  OpCode op;
  DType type;
  DType from = DType::Bool;  // Cast: source type
  std::uint16_t dst = 0, a = 0, b = 0, c = 0;
};

constexpr int kMaxRegisters = 64;
constexpr int kMaxReductions = 8;

struct Program {
  std::vector<Instr> code;
  std::vector<Value> constants;
  int registers = 0;
  std::vector<ReduceKind> reduce_kinds;  // accumulator slot -> kind
  std::vector<bool> reduce_float;        // accumulator slot -> accumulates in double (else int64)
  // -1: the reductions run over the whole domain (0-d results); 0..2: along this dimension of the
  // domain padded to 3-D, one result per element of the other dimensions (all of a program's
  // reductions run along the same dimension).
  int reduce_dim = -1;
  NestedReduction nested;
  // Reductions along the last dimension followed by elementwise work on their results in the same
  // kernel (docs/FUSION.md, "Epilogues"): code[0, epilogue) runs at every element and folds into
  // the accumulators; once a row is folded, code[epilogue, end) runs once for it, reading the
  // finalized results (ReduceResult) and storing through views stretched along the reduced
  // dimension. The reductions then have no outputs of their own. -1: no epilogue.
  int epilogue = -1;
  // A sweep after the epilogue (docs/FUSION.md, "Sweeps"): logistic regression's gradient
  // (y - sigmoid(X @ w)) @ X in one pass over X. The last `row_slots` accumulator slots reduce
  // along the last dimension, and code[0, epilogue) folds into them; code[epilogue, sweep) runs
  // once per row on their results; code[sweep, end) runs at every element of the row once more,
  // reading the epilogue's registers, and folds into the other slots, the program's outputs, which
  // reduce along reduce_dim (1: one output per column of a 2-D domain). -1: no sweep.
  int sweep = -1;
  int row_slots = 0;

  std::string describe() const;  // one line: the ops, for logs and kernel labels
};

// The longest rows a sweep takes (a GPU thread holds E = 4 of a row's elements, 32 threads a row).
constexpr std::int64_t kMaxSweepColumns = 128;

// The accumulator slots whose values are the program's outputs (not a sweep's row slots).
inline int output_slots(const Program& p) { return static_cast<int>(p.reduce_kinds.size()) - p.row_slots; }

// The fields of instruction `in` of program `p` that name the registers it reads, in order (into
// fields, at most 3); returns how many. Renumbering registers writes through them.
int register_source_fields(const Program& p, Instr& in, std::uint16_t* fields[3]);
// The registers instruction `in` of program `p` reads (into out, at most 3); returns how many.
int register_sources(const Program& p, const Instr& in, int* out);

}  // namespace tessera::detail
