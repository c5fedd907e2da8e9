#pragma once
// A fuzz program: a sequence of steps over a pool of kSlots named handles v0..v7 (creation,
// expression trees bound to a handle, views, assign and compound assignment into views, drops,
// swaps, moves, flushes and checks), optionally one sparse matrix A that SpMV nodes multiply by,
// and its printing as C++-like pseudo-code.
//
//   [3] v1 = v0(ts::all, ts::slice(0, -1));  // view
//   [4] v4 = ts::tanh(v4);
//   [26] v0 = ts::sum(ts::maximum(v5(ts::all, ts::newaxis), v5), 0);
//   [28] v3(ts::slice(0, ts::end, 2), ts::slice(0, 2)) -= (v7 * v3(ts::slice(1, 3), ts::slice(0, 2)));
//   [64] v0 = (ts::sum(v6(ts::newaxis, 3)) * v2(ts::slice(1, 12, 2), ts::newaxis));
//   [71] check(v2.to_host());
//   [80] v5 = (v1 - ts::matmul(A, v1)) * 0.25;
//   [93] v6(ts::all, 2) += ts::matmul(v3, v0(ts::slice(0, 5)));
//   [97] v2 = ts::bincount(v5, v1(ts::all, 0), 4);

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/dtypes.hpp"

namespace fuzz {

using Shape = std::vector<std::int64_t>;

constexpr int kSlots = 8;

enum class Op {
  Leaf,
  IntLit,
  FloatLit,  // operands
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Max,
  Min,
  Mod,
  BitAnd,
  BitOr,
  BitXor,
  Atan2,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,  // binary
  Neg,
  Abs,
  Sqrt,
  Exp,
  Log,
  Sin,
  Cos,
  Tanh,
  Erf,
  Floor,
  Ceil,
  Tan,
  Sign,
  Square,
  Invert,
  IsNan,
  IsFinite,  // unary
  Where,
  Clip,  // ternary
  Astype,
  Copy,  //
  Sum,
  Prod,
  RMin,
  RMax,
  Mean,
  Vdot,
  Norm,  // reductions: over everything (0-d), the first five and the last three also along an axis
  ArgMin,
  ArgMax,
  CountNonzero,
  Transpose,  // shape operations: new arrays
  Roll,
  Concat,
  HStack,
  VStack,
  Reshape,  //
  MatMul,   // products: ts::matmul of two arrays (1-D or 2-D), float64
  SpMV,     // ts::matmul(A, x) by the program's sparse matrix
  Bincount  // ts::bincount(x[, weights], minlength = ival)
};
inline bool is_binary(Op op) { return op >= Op::Add && op <= Op::Ge; }
inline bool is_compare(Op op) { return op >= Op::Eq && op <= Op::Ge; }
inline bool is_unary(Op op) { return op >= Op::Neg && op <= Op::IsFinite; }
inline bool is_bitwise(Op op) { return op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor || op == Op::Invert; }
inline bool is_reduction(Op op) { return op >= Op::Sum && op <= Op::CountNonzero; }
// Reductions that take an axis (Vdot and Norm are over everything only).
inline bool takes_axis(Op op) { return is_reduction(op) && op != Op::Vdot && op != Op::Norm; }
inline bool is_product(Op op) { return op == Op::MatMul || op == Op::SpMV; }
inline bool is_shape_op(Op op) { return op >= Op::Transpose && op <= Op::Reshape; }
inline bool is_stack(Op op) { return op == Op::Concat || op == Op::HStack || op == Op::VStack; }

// One entry of an index expression: ts::all, ts::slice(start, stop or ts::end[, step]), an
// integer (the axis is dropped) or ts::newaxis.
struct Sl {
  enum Kind { Range, Int, NewAxis };
  Kind kind = Range;
  bool whole = true;                           // Range: ts::all
  std::int64_t start = 0, stop = 0, step = 1;  // Int: start is the index
  bool to_end = false;
};

struct Expr {
  Op op = Op::Leaf;
  int slot = -1;                   // Leaf
  std::vector<Sl> sl;              // Leaf: index entries (axes not given are whole; none: the handle itself)
  std::int64_t ival = 0;           // IntLit; Roll: the shift; Bincount: minlength
  double fval = 0;                 // FloatLit
  DT to = DT::F64;                 // Astype
  int axis = 0;                    // reductions along an axis, Roll, Concat (may be negative)
  bool along = false;              // reductions: along `axis` (else over everything)
  bool keepdims = false;           // reductions along an axis
  std::vector<std::int64_t> dims;  // Transpose: the axes (none: reversed); Reshape: the new shape
  std::vector<Expr> kids;
};

enum class SK { Create, Bind, View, Assign, Compound, Drop, Check, Swap, Move, Flush };
enum class How { Zeros, Ones, Full, Arange, Linspace, FromHost, EmptyAssign };

struct Step {
  SK kind = SK::Check;
  int dst = -1;  // Create, Bind, View, Drop, Check, Swap, Move: the slot
  int src = -1;  // Swap, Move: the other slot
  // Create
  How how = How::Zeros;
  DT t = DT::F64;
  Shape shape;
  std::uint64_t vseed = 0;  // FromHost values
  double lo = 0, hi = 0;    // Linspace
  Expr fill;                // Full: the literal
  // View: target is the viewed leaf; Assign / Compound: target is the written view.
  Expr target;
  Expr rhs;               // Bind, Assign, Compound, Create(EmptyAssign)
  char cop = '+';         // Compound: + - * / % & | ^
  bool use_item = false;  // Check
};

// The operation of a compound assignment (Step::cop).
inline Op compound_op(char cop) {
  switch (cop) {
    case '+': return Op::Add;
    case '-': return Op::Sub;
    case '*': return Op::Mul;
    case '/': return Op::Div;
    case '%': return Op::Mod;
    case '&': return Op::BitAnd;
    case '|': return Op::BitOr;
    default: return Op::BitXor;
  }
}

// The program's sparse matrix, float64 CSR with sorted column indices, made once before the first
// step (ts::csr_from_host<double>); rows == 0: the program has none.
struct Csr {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> indptr{0}, indices;
  std::vector<double> values;
};

struct Program {
  std::uint64_t seed = 0;
  int window = 64;
  Csr csr;
  std::vector<Step> steps;
};

Expr leaf(int slot, std::vector<Sl> sl = {});
Expr int_lit(std::int64_t v);
Expr float_lit(double v);
Expr node(Op op, std::vector<Expr> kids);
Expr astype(Expr k, DT to);
Expr along(Op reduction, Expr k, int axis, bool keepdims);  // ts::sum(k, axis, keepdims) and alike
Step bind_to(int dst, Expr rhs);                            // slot dst = rhs (a new array)

// Values of from_host arrays: small integers, dyadic floats (exact arithmetic) and random floats.
struct EV {
  double f = 0;        // float types
  std::int64_t i = 0;  // bool and integer types
  double e = 0;        // error bound (floats)
};

std::vector<EV> host_values(DT t, std::int64_t n, std::uint64_t seed);

// Printing programs as pseudo-code.
std::string fmt_double(double v);
std::string show(const Expr& e);
std::string show_shape(const Shape& s);
std::string show(const Step& s);
std::string show(const Csr& a);  // "A = ts::csr_from_host<double>(...);"

}  // namespace fuzz
