#pragma once
// What the two code generators share (jit/codegen.cpp: CUDA for NVRTC; jit/host_codegen.cpp: C++
// for the host compiler): the parameter block's mirror, C++ spellings of types and reductions,
// and the Emitter, which translates a Program one instruction at a time into straight-line typed
// code. Internal to src/jit.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/jit/carry_plan.hpp"
#include "tessera/jit/codegen.hpp"
#include "tessera/program/interpreter.hpp"
#include "tessera/program/program.hpp"

namespace tessera::detail {

extern const char* const kElementOpsSource;

namespace codegen {

// What element_ops.hpp needs from the standard library, declared here: NVRTC has no standard
// headers by default, and the host compiler parses none (a fraction of its time per kernel).
constexpr const char* kStdPrelude = R"(
namespace std {
using int32_t = int;
using int64_t = long;
using uint64_t = unsigned long;
template <class T, class U> constexpr bool is_same_v = false;
template <class T> constexpr bool is_same_v<T, T> = true;
template <class T> constexpr bool is_integral_v = is_same_v<T, bool> || is_same_v<T, int> || is_same_v<T, long> ||
                                                  is_same_v<T, unsigned> || is_same_v<T, unsigned long>;
template <class T> constexpr bool is_floating_point_v = is_same_v<T, float> || is_same_v<T, double>;
template <class T> struct make_unsigned;
template <> struct make_unsigned<int> { using type = unsigned; };
template <> struct make_unsigned<long> { using type = unsigned long; };
template <class T> using make_unsigned_t = typename make_unsigned<T>::type;
}  // namespace std
)";

// The parameter block, as the host lays it out (static_asserts in jit_launch.cpp keep them equal).
inline constexpr const char* kParams = R"(
struct Accessor { char* ptr; long origin; long stride[3]; };
struct Domain { long n[3]; long global_origin[3]; long global_stride[3]; };
union Value { bool b; int i32; long i64; float f32; double f64; };
struct KernelParams {
  Domain domain;
  Value constants[KMAX_CONSTANTS];
  void* block_partials;
  void* partials;
  long nblocks;
  long count;
  long chunks;
  long row_threads;
  long finish_lanes;
  Accessor args[KMAX_ARGS];
};
namespace el = tessera::detail::element;
)";

// element_ops.hpp without its #pragma and #include lines.
inline std::string element_ops_body() {
  std::istringstream in(kElementOpsSource);
  std::ostringstream out;
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("#include", 0) != 0 && line.rfind("#pragma", 0) != 0) out << line << '\n';
  return out.str();
}

inline const char* ctype(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int32: return "int";
    case DType::Int64: return "long";
    case DType::Float32: return "float";
    default: return "double";
  }
}

inline const char* member(DType t) {
  switch (t) {
    case DType::Bool: return "b";
    case DType::Int32: return "i32";
    case DType::Int64: return "i64";
    case DType::Float32: return "f32";
    default: return "f64";
  }
}

inline const char* combine_fn(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum: return "el::wrap_add";
    case ReduceKind::Prod: return "el::wrap_mul";
    case ReduceKind::Min: return "el::minimum";
    default: return "el::maximum";
  }
}

// The identity of a reduction (the arg kinds start from the worst value, as program/reduce_ops.hpp).
inline std::string identity(ReduceKind k, bool is_float) {
  const bool low = k == ReduceKind::Min || k == ReduceKind::ArgMin;  // starts at +infinity
  if (is_float) {
    if (k == ReduceKind::Sum) return "0.0";
    if (k == ReduceKind::Prod) return "1.0";
    return low ? "__longlong_as_double(0x7ff0000000000000LL)"
               : "__longlong_as_double(static_cast<long long>(0xfff0000000000000ULL))";
  }
  if (k == ReduceKind::Sum) return "0L";
  if (k == ReduceKind::Prod) return "1L";
  return low ? "0x7fffffffffffffffL" : "(-0x7fffffffffffffffL - 1L)";
}

// Reduction slot k's accumulator is acc<k><suffix> (double or long) with idx<k><suffix>, the
// index that goes with it (used by the arg kinds only).
// Those of slots [first, last) only.
inline std::string accumulators_of(const Program& p, int first, int last, const std::string& suffix) {
  std::ostringstream s;
  for (int k = first; k < last; ++k)
    s << (p.reduce_float[k] ? "double" : "long") << " acc" << k << suffix << " = "
      << identity(p.reduce_kinds[k], p.reduce_float[k]) << "; long idx" << k << suffix << " = 0x7fffffffffffffffL; ";
  return s.str();
}
inline std::string accumulators(const Program& p, const std::string& suffix) {
  return accumulators_of(p, 0, static_cast<int>(p.reduce_kinds.size()), suffix);
}

// Code that folds (value, index) into an accumulator (acc, idx) of this kind.
inline std::string fold_kind(ReduceKind kind, const std::string& acc, const std::string& idx, const std::string& value,
                             const std::string& index) {
  if (!is_arg(kind)) return acc + " = " + combine_fn(kind) + "(" + acc + ", " + value + ");";
  return std::string("if (el::arg_better(") + (kind == ReduceKind::ArgMax ? "true" : "false") + ", " + value + ", " +
         index + ", " + acc + ", " + idx + ")) { " + acc + " = " + value + "; " + idx + " = " + index + "; }";
}

// Code that folds (value, index) into the accumulator (acc, idx) of slot k.
inline std::string fold(const Program& p, int k, const std::string& acc, const std::string& idx,
                        const std::string& value, const std::string& index) {
  return fold_kind(p.reduce_kinds[k], acc, idx, value, index);
}

// The value member of a slot's accumulator type in a Value.
inline const char* acc_member(const Program& p, int k) { return p.reduce_float[k] ? "f64" : "i64"; }

// The argument whose row offset argument `arg` shares (KernelShape::same_rows).
inline int row_owner(int arg, const KernelShape& shape) {
  return shape.same_rows[arg] ? shape.same_rows[arg] - 1 : arg;
}

// Element (i0, i1, column) of argument `arg` (p.args[base + arg]), with what the shape lets the
// kernel assume. row_offsets: the row's part of the address is the variable r<owner>, defined
// once per row (row_offsets_of); else it is computed here.
inline std::string element_address(int arg, const KernelShape& shape, const std::string& column, int base = 0,
                                   bool row_offsets = false) {
  const std::uint64_t bit = std::uint64_t(1) << arg;
  if (shape.scalar & bit) return "0";
  std::ostringstream s;
  const std::string a = "p.args[" + std::to_string(base + arg) + "]";
  s << "(" << a << ".origin";
  if (shape.row_invariant & bit)
    ;  // the same in every row
  else if (!shape.flat && row_offsets)
    s << " + r" << row_owner(arg, shape);
  else if (!shape.flat)
    s << " + i0 * " << a << ".stride[0] + i1 * " << a << ".stride[1]";
  if (shape.unit & bit)
    s << " + " << column << ")";
  else
    s << " + " << column << " * " << a << ".stride[2])";
  return s.str();
}

// The row offsets r<owner> that a program's loads and stores read, one per set of arguments that
// step alike along rows: i0 * stride[0] + i1 * stride[1] is then computed once per row for all
// the views of a store (27 for cuPyNumeric's 27-point stencil) instead of once per view; those
// 64-bit multiplications were most of that kernel's instructions.
inline std::string row_offsets_of(const Program& program, const KernelShape& shape, const std::string& indent) {
  if (shape.flat) return "";
  std::uint64_t owners = 0;
  for (const Instr& in : program.code)
    if ((in.op == OpCode::Load || in.op == OpCode::Store) && !(shape.scalar >> in.a & 1))
      owners |= std::uint64_t(1) << row_owner(in.a, shape);
  std::ostringstream s;
  for (int a = 0; a < kMaxArgs; ++a)
    if (owners >> a & 1)
      s << indent << "const long r" << a << " = i0 * p.args[" << a << "].stride[0] + i1 * p.args[" << a
        << "].stride[1];\n";
  return s.str();
}

inline const char* float_fn(OpCode op, bool single) {
  switch (op) {
    case OpCode::Sqrt: return single ? "sqrtf" : "sqrt";
    case OpCode::Exp: return single ? "expf" : "exp";
    case OpCode::Log: return single ? "logf" : "log";
    case OpCode::Sin: return single ? "sinf" : "sin";
    case OpCode::Cos: return single ? "cosf" : "cos";
    case OpCode::Tanh: return single ? "tanhf" : "tanh";
    case OpCode::Tan: return single ? "tanf" : "tan";
    case OpCode::Floor: return single ? "floorf" : "floor";
    case OpCode::Ceil: return single ? "ceilf" : "ceil";
    case OpCode::Atan2: return single ? "atan2f" : "atan2";
    default: return single ? "erff" : "erf";
  }
}

// One element of a row that a thread computes: the variable holding its column, and the suffix
// that names its values (v<pc><suffix>).
// Where per-lane accumulators are not variables of their own (the host's reductions along an
// outer dimension fold into arrays), `acc` names them: acc<k><acc>, idx<k><acc>.
// `guard`: a condition under which the lane's reductions fold its values and its stores are made
// ("": always); a sweep's lanes past the row's end or its last row, and a marching tile's past
// the last column, load a clamped element and fold and store nothing.
// `offset`: the lane's column minus the first lane's where lanes are a fixed distance apart (a
// marching tile's; staged tiles are read at that offset from one pointer).
struct Lane {
  Lane(std::string c, std::string s, std::string a = "", std::string g = "", int o = 0)
      : column(std::move(c)), suffix(std::move(s)), acc(std::move(a)), guard(std::move(g)), offset(o) {}
  std::string column;
  std::string suffix;
  std::string acc;
  std::string guard;
  int offset;
};

// The program as straight-line code. Register r holds variable v<pc of its last definition>;
// every definition is a new const variable (SSA), so nothing is reused.
//
// Every load comes first, then the other instructions in program order; over several lanes the
// code is instruction-major: each instruction once per lane, in lane order. So all the loads of
// a row are issued back-to-back before any arithmetic waits for one: a GPU issues in order, and a
// load written after a store cannot be moved above it by the compiler (the pointers might alias),
// so a group that stores between its loads (CG's update of x, then r) would otherwise wait for
// memory once per store. Both reorderings are safe because the planner never lets a group read a
// location that it writes except through the very view it writes (and such a load after the
// store is forwarded in a register, never emitted), nor lets one element write what another
// reads: what lets GPU threads run the elements in any order. Each lane keeps its own
// instructions other than loads in program order.
// Where a program's arguments, constants and domain are in the parameter block: at the start, or
// from these offsets in a batch of programs (generate_batch).
// row_pointers (the host): loads and stores index a<arg>, the argument's typed pointer to the
// current row (defined by the generator before the loop over the row), with stride s<arg> where
// the shape does not say 1 or 0.
struct Placement {
  int arg_base = 0;
  int const_base = 0;
  std::string domain = "p.domain";
  bool row_pointers = false;
};

class Emitter {
 public:
  // per_lane_accumulators: every lane folds into its own accumulators (acc<k><lane suffix>), as
  // lanes that are different outputs of a reduction along an outer dimension.
  Emitter(const Program& p, const KernelShape& shape, bool per_lane_accumulators = false, Placement at = {})
      : p_(p), shape_(shape), per_lane_(per_lane_accumulators), at_(std::move(at)) {}

  void body(std::ostream& out, const std::vector<Lane>& lanes, const std::string& indent) {
    body(out, lanes, indent, 0, static_cast<int>(p_.code.size()));
  }
  // Arguments whose loads read staged<a>[jo * nD + ji] where `staged` holds (generate_nested).
  // certain: the kernel runs this code only where the launch gave the room (no run-time choice).
  void stage(std::uint64_t args, bool certain = false) {
    staged_ = args;
    staged_certain_ = certain;
  }
  // Arguments whose loads read hoisted<a>[ji], registers loaded before the outer loop
  // (generate_nested); 0: none.
  void hoist(std::uint64_t args) { hoisted_ = args; }
  // Addresses read the row offsets r<owner> (row_offsets_of) instead of computing them.
  void use_row_offsets() { row_offsets_ = true; }
  // Plane marching with staged tiles (generate_march): in a plane's code (not a carrying kernel's
  // refill) a load of argument a reads `pointer`[offset + the lane's offset], `pointer` being the
  // thread's first element in the current plane's tile in shared memory. One pointer a plane and
  // literal offsets: each load computing its own 64-bit address took 50% more instructions a plane
  // (docs/JIT.md, "Planes marched").
  void tile(int a, const std::string& pointer, int offset) {
    tiled_[a] = {pointer, offset};
    staging_ = true;
  }
  // Whether load pc is made in every plane (or row): not carried from the one before.
  bool loads_each_step(int pc) const { return !carries() || (plan_.emitted[pc] && !plan_.root[pc]); }
  // Whether the code being emitted reads argument a from a staged tile (a plane's code, not the
  // refill).
  bool reads_tile(int a) const { return !tiled_[a].pointer.empty() && (carrying_ || !carries()); }
  // Loads of these arguments take two lanes at a time, lanes 2m and 2m + 1 being adjacent columns
  // of one row, as one vector load (generate_along's rows, which check the alignment first).
  void pair_loads(std::uint64_t args) { paired_ = args; }
  // A sweep (Program::sweep, generate_sweep): its rows' code folds into shared accumulators and
  // its sweep into per-lane ones; values defined before `pc` are the same in every lane (one
  // variable, no lane suffix); and a load of an argument that the code before `reuse_below`
  // loaded as the same type takes that lane's value (the element is still in a register).
  void set_per_lane(bool on) { per_lane_ = on; }
  void share_below(int pc) { shared_below_ = pc; }
  void reuse_loads_below(int pc) { reuse_below_ = pc; }
  // Rows run in order by a thread at the same columns (the row before was (i0, i1 - 1), or the
  // plane before (i0 - 1, i1) in the plane-marching kernel: KernelShape::row_carry pairs views
  // that far apart) keep values from one row for the next (jit/carry_plan.hpp): a root's value is
  // c<q><lane suffix>, what the row before computed as its partner q, and nothing the root reads
  // is computed. The generator declares the registers (carry_declarations) and emits each row
  // through carried_row, which computes them where the row before did not run (`carry` false)
  // and keeps each row's values for the next. One warp-uniform branch per row: a conditional per load (`carry
  // ? c : *p`) made the 27-point stencil issue-bound (ncu on an H200: 76% SM throughput).
  void carry_rows(bool on) { plan_ = on ? plan_carry(p_, shape_) : CarryPlan{}; }
  bool carries() const { return !plan_.empty(); }
  // refilled_each_band: no `carry` flag (the kernel refills before its loop: refill()).
  std::string carry_declarations(const std::vector<Lane>& lanes, const std::string& indent,
                                 bool refilled_each_band = false) const {
    std::ostringstream out;
    for (int q : plan_.registers)
      for (const Lane& lane : lanes) out << indent << value_type(q) << " c" << q << lane.suffix << " = 0;\n";
    if (!refilled_each_band) out << indent << "bool carry = false;\n";
    return out.str();
  }
  // A row's code (`body`) where the row before may have run. Carrying: where it did not (`carry`
  // false), the roots' values computed from loads into their registers (the refill); the row's
  // code with the roots reading them and what only they read left out; then each register takes
  // its partner's value for the next row, and `carry` becomes `carry_next`.
  void carried_row(std::ostream& out, const std::vector<Lane>& lanes, const std::string& indent,
                   const std::string& carry_next) {
    if (!carries()) return body(out, lanes, indent);
    out << indent << "if (!carry) {\n";
    refill(out, lanes, indent + "  ");
    out << indent << "}\n";
    row_from_carried(out, lanes, indent);
    out << indent << "carry = " << carry_next << ";\n";
  }
  // The parts of carried_row, for a kernel that refills once before its loop (generate_march's
  // staged tiles): the roots' values computed from loads into their registers; a row's code with
  // the roots reading them, then each register taking its partner's value for the next row.
  void refill(std::ostream& out, const std::vector<Lane>& lanes, const std::string& indent) {
    only_ = &plan_.refilled;
    body(out, lanes, indent);
    only_ = nullptr;
    for (std::size_t k = 0; k < plan_.registers.size(); ++k)
      for (const Lane& lane : lanes)
        out << indent << "c" << plan_.registers[k] << lane.suffix << " = v" << plan_.refill_from[k] << lane.suffix
            << ";\n";
  }
  void row_from_carried(std::ostream& out, const std::vector<Lane>& lanes, const std::string& indent) {
    only_ = &plan_.emitted;
    carrying_ = true;
    body(out, lanes, indent);
    only_ = nullptr;
    carrying_ = false;
    for (int q : plan_.registers)
      for (const Lane& lane : lanes) out << indent << "c" << q << lane.suffix << " = v" << q << lane.suffix << ";\n";
  }
  // Instructions [pc0, pc1) (a nested reduction's inner or outer code); registers defined before
  // pc0 keep their names.
  void body(std::ostream& out, const std::vector<Lane>& lanes, const std::string& indent, int pc0, int n) {
    const auto emits = [&](int pc) { return only_ == nullptr || (*only_)[pc]; };
    // Loads from a staged tile (shared memory: short latency) stay in program order, where their
    // values are used: all first, a 27-point stencil's 18 of them held 36 registers at once.
    // So do a staging kernel's refill loads (once a band, before its loop: a 27-point stencil's 36
    // of them first would hold 72 registers, where the kernel has 40).
    const bool refilling = carries() && !carrying_;
    const auto early = [&](int pc) {
      return p_.code[pc].op == OpCode::Load && !reads_tile(p_.code[pc].a) && !(staging_ && refilling);
    };
    for (int pc = pc0; pc < n; ++pc) {  // loads read no register: their lines need no renaming state
      if (!early(pc) || !emits(pc)) continue;
      if (paired_ >> p_.code[pc].a & 1) {
        for (std::size_t m = 0; m + 1 < lanes.size(); m += 2) out << indent << paired_load(pc, lanes[m], lanes[m + 1]);
      } else {
        for (const Lane& lane : lanes) out << indent << instruction(pc, lane);
      }
    }
    if (pc0 == 0) current_.assign(static_cast<std::size_t>(p_.registers), -1);
    for (int pc = pc0; pc < n; ++pc) {
      const Instr& in = p_.code[pc];
      if (!early(pc) && emits(pc))
        for (const Lane& lane : lanes) out << indent << instruction(pc, lane);
      // After every lane's line: an instruction may read the register it redefines.
      if (defines_register(in.op)) current_[in.dst] = pc;
    }
  }

 private:
  std::string reg(int r, const Lane& lane) const {
    if (r < 0 || r >= static_cast<int>(current_.size()) || current_[r] < 0)
      raise("internal: codegen reads register ", r, " before it is written");
    return "v" + std::to_string(current_[r]) + (current_[r] < shared_below_ ? "" : lane.suffix);
  }
  // Constant k: a literal if it is a small one (small_literal); else from the parameter block, or,
  // past its capacity, a literal with the exact bits. A literal makes the kernel depend on the
  // value: it is compiled and cached for it (a program's images are per constant values anyway,
  // jit/program_images.hpp; what is compiled is per distinct source).
  std::string constant(int k, DType t) const {
    if (const std::string small = small_literal(p_.constants[k], t); !small.empty()) return small;
    if (at_.const_base + k < kMaxJitConstants)
      return "p.constants[" + std::to_string(at_.const_base + k) + "]." + member(t);
    const Value v = p_.constants[k];
    char text[96];
    switch (t) {
      case DType::Bool: return v.b ? "true" : "false";
      case DType::Int32:
        std::snprintf(text, sizeof text, "static_cast<int>(0x%08xu)", static_cast<unsigned>(v.i32));
        break;
      case DType::Int64:
        std::snprintf(text, sizeof text, "static_cast<long>(0x%016llxull)", static_cast<unsigned long long>(v.i64));
        break;
      case DType::Float32: {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &v.f32, sizeof bits);
        std::snprintf(text, sizeof text, "__int_as_float(static_cast<int>(0x%08xu))", bits);
        break;
      }
      default:
        std::snprintf(text, sizeof text, "__longlong_as_double(static_cast<long long>(0x%016llxull))",
                      static_cast<unsigned long long>(v.i64));
        break;
    }
    return text;
  }
  // Floating constants +0 and the powers of two from 1/4 to 4 of either sign, as literals: an fp64
  // instruction takes the high word of a double whose low word is zero as an immediate, so these
  // cost no instruction, where a parameter is loaded into a uniform register first (a ULDC), and
  // the compiler drops what they make trivial (1 / x becomes a reciprocal, x * 1 goes).
  // Black-Scholes' kernel (0, 1 and -1/2 among its 30 constants): 398 -> 372 instructions per
  // option on the common path of its SASS, 34 -> 32 registers (a static count; not yet timed on a
  // GPU; 3.8% faster on the host tier: docs/BENCHMARKS.md, 2026-12-07, seventh session). Only
  // these few: a value that changes every iteration (a time step's t) compiles a kernel per value
  // it takes as a literal.
  static std::string small_literal(const Value& v, DType t) {
    if (t != DType::Float64 && t != DType::Float32) return {};
    const double x = t == DType::Float64 ? v.f64 : static_cast<double>(v.f32);
    if (std::signbit(x) && x == 0) return {};
    const double a = std::fabs(x);
    if (!(a == 0 || a == 0.25 || a == 0.5 || a == 1 || a == 2 || a == 4)) return {};
    char text[32];
    std::snprintf(text, sizeof text, t == DType::Float64 ? "(%a)" : "(%af)", x);
    return text;
  }
  // Placement::row_pointers: element `column` of argument a's row.
  std::string row_element(int a, const std::string& column) const {
    const std::uint64_t bit = std::uint64_t(1) << a;
    const std::string name = "a" + std::to_string(a);
    if (shape_.scalar & bit) return name + "[0]";
    if (shape_.unit & bit) return name + "[" + column + "]";
    return name + "[" + column + " * s" + std::to_string(a) + "]";
  }
  static std::string define(int pc, const Lane& lane, const char* type) {
    return std::string("const ") + type + " v" + std::to_string(pc) + lane.suffix + " = ";
  }

  // Instruction pc for one lane: one line.
  std::string instruction(int pc, const Lane& lane) const {
    std::ostringstream out;
    const Instr& in = p_.code[pc];
    const char* T = ctype(in.type);
    if (carrying_ && plan_.root[pc]) {
      out << define(pc, lane, value_type(pc)) << "c" << plan_.partner[pc] << lane.suffix << ";\n";
      return out.str();
    }
    switch (in.op) {
      case OpCode::Load:
        out << define(pc, lane, T);
        if (at_.row_pointers) {
          out << row_element(in.a, lane.column) << ";\n";
          return out.str();
        }
        if (hoisted_ >> in.a & 1) {
          out << "hoisted" << in.a << "[ji];\n";
          return out.str();
        }
        if (reads_tile(in.a)) {
          out << tiled_[in.a].pointer << "[" << tiled_[in.a].offset + lane.offset << "];\n";
          return out.str();
        }
        if ((staged_ >> in.a & 1) && staged_certain_) {
          out << "staged" << in.a << "[jo * nD + ji];\n";
          return out.str();
        }
        if (const int q = first_load(in.a); pc >= reuse_below_ && q < reuse_below_ && p_.code[q].type == in.type) {
          out << "v" << q << lane.suffix << ";\n";
          return out.str();
        }
        if (staged_ >> in.a & 1) out << "staged ? staged" << in.a << "[jo * nD + ji] : ";
        out << global_load(in.a, lane.column) << ";\n";
        return out.str();
      case OpCode::Store:
        if (at_.row_pointers) {
          out << row_element(in.a, lane.column) << " = " << reg(in.b, lane) << ";\n";
          return out.str();
        }
        if (!lane.guard.empty()) out << "if (" << lane.guard << ") ";
        out << "*(" << pointer(in.a, lane.column, T) << ") = " << reg(in.b, lane) << ";\n";
        return out.str();
      case OpCode::Const: out << define(pc, lane, T) << constant(in.a, in.type) << ";\n"; return out.str();
      case OpCode::Index:
        out << define(pc, lane, "long") << "(" << at_.domain << ".global_origin[0] + i0) * " << at_.domain
            << ".global_stride[0] + (" << at_.domain << ".global_origin[1] + i1) * " << at_.domain
            << ".global_stride[1] + (" << at_.domain << ".global_origin[2] + " << lane.column << ") * " << at_.domain
            << ".global_stride[2];\n";
        return out.str();
      case OpCode::Coord: {
        const std::string along = in.a == 0 ? "i0" : in.a == 1 ? "i1" : lane.column;
        out << define(pc, lane, "long") << at_.domain << ".global_origin[" << in.a << "] + " << along << ";\n";
        return out.str();
      }
      case OpCode::Random: {
        const std::string counter = reg(in.a, lane);
        out << define(pc, lane, T) << "el::uniform<" << T << ">(static_cast<unsigned long>("
            << constant(in.b, DType::Int64) << "), static_cast<unsigned long>(" << counter << "));\n";
        return out.str();
      }
      case OpCode::Cast: {
        const std::string x = reg(in.a, lane);
        if (in.type == DType::Bool)
          out << define(pc, lane, T) << x << " != static_cast<" << ctype(in.from) << ">(0);\n";
        else
          out << define(pc, lane, T) << "static_cast<" << T << ">(" << x << ");\n";
        return out.str();
      }
      case OpCode::Neg:
      case OpCode::Abs:
      case OpCode::Sign:
      case OpCode::Square:
      case OpCode::BitNot:
      case OpCode::Not: {
        const std::string x = "static_cast<" + std::string(T) + ">(" + reg(in.a, lane) + ")";
        std::string e;
        switch (in.op) {
          case OpCode::Neg: e = "el::neg(" + x + ")"; break;
          case OpCode::Abs: e = "el::abs(" + x + ")"; break;
          case OpCode::Sign: e = "el::sign(" + x + ")"; break;
          case OpCode::Square: e = "el::square(" + x + ")"; break;
          case OpCode::BitNot: e = "el::bit_not(" + x + ")"; break;
          default: e = "!" + x; break;
        }
        out << define(pc, lane, T) << "static_cast<" << T << ">(" << e << ");\n";
        return out.str();
      }
      case OpCode::IsNan:
      case OpCode::IsFinite: {
        const std::string x = "static_cast<" + std::string(T) + ">(" + reg(in.a, lane) + ")";
        out << define(pc, lane, "bool") << (in.op == OpCode::IsNan ? "el::is_nan(" : "el::is_finite(") << x << ");\n";
        return out.str();
      }
      case OpCode::Sqrt:
      case OpCode::Exp:
      case OpCode::Log:
      case OpCode::Sin:
      case OpCode::Cos:
      case OpCode::Tanh:
      case OpCode::Erf:
      case OpCode::Tan:
      case OpCode::Floor:
      case OpCode::Ceil: {
        const std::string x = reg(in.a, lane);
        out << define(pc, lane, T) << float_fn(in.op, in.type == DType::Float32) << "(" << x << ");\n";
        return out.str();
      }
      case OpCode::Atan2: {
        const std::string u = reg(in.a, lane), v = reg(in.b, lane);
        out << define(pc, lane, T) << float_fn(in.op, in.type == DType::Float32) << "(" << u << ", " << v << ");\n";
        return out.str();
      }
      case OpCode::Add:
      case OpCode::Sub:
      case OpCode::Mul:
      case OpCode::Div:
      case OpCode::Pow:
      case OpCode::Max:
      case OpCode::Min:
      case OpCode::And:
      case OpCode::Or:
      case OpCode::Mod:
      case OpCode::BitAnd:
      case OpCode::BitOr:
      case OpCode::BitXor: {
        const std::string u = "static_cast<" + std::string(T) + ">(" + reg(in.a, lane) + ")";
        const std::string v = "static_cast<" + std::string(T) + ">(" + reg(in.b, lane) + ")";
        std::string e;
        switch (in.op) {
          case OpCode::Add: e = "el::wrap_add(" + u + ", " + v + ")"; break;
          case OpCode::Sub: e = "el::wrap_sub(" + u + ", " + v + ")"; break;
          case OpCode::Mul: e = "el::wrap_mul(" + u + ", " + v + ")"; break;
          case OpCode::Div: e = "el::divide(" + u + ", " + v + ")"; break;
          case OpCode::Pow: e = "el::power(" + u + ", " + v + ")"; break;
          case OpCode::Max: e = "el::maximum(" + u + ", " + v + ")"; break;
          case OpCode::Min: e = "el::minimum(" + u + ", " + v + ")"; break;
          case OpCode::And: e = "(" + u + " && " + v + ")"; break;
          case OpCode::Or: e = "(" + u + " || " + v + ")"; break;
          case OpCode::Mod: e = "el::remainder(" + u + ", " + v + ")"; break;
          case OpCode::BitAnd: e = "(" + u + " & " + v + ")"; break;
          case OpCode::BitOr: e = "(" + u + " | " + v + ")"; break;
          default: e = "(" + u + " ^ " + v + ")"; break;
        }
        out << define(pc, lane, T) << "static_cast<" << T << ">(" << e << ");\n";
        return out.str();
      }
      case OpCode::Eq:
      case OpCode::Ne:
      case OpCode::Lt:
      case OpCode::Le:
      case OpCode::Gt:
      case OpCode::Ge: {
        const char* cmp = in.op == OpCode::Eq   ? "=="
                          : in.op == OpCode::Ne ? "!="
                          : in.op == OpCode::Lt ? "<"
                          : in.op == OpCode::Le ? "<="
                          : in.op == OpCode::Gt ? ">"
                                                : ">=";
        const std::string u = "static_cast<" + std::string(T) + ">(" + reg(in.a, lane) + ")";
        const std::string v = "static_cast<" + std::string(T) + ">(" + reg(in.b, lane) + ")";
        out << define(pc, lane, "bool") << "(" << u << " " << cmp << " " << v << ");\n";
        return out.str();
      }
      case OpCode::Where: {
        const std::string c = reg(in.a, lane), x = reg(in.b, lane), y = reg(in.c, lane);
        out << define(pc, lane, T) << c << " ? static_cast<" << T << ">(" << x << ") : static_cast<" << T << ">(" << y
            << ");\n";
        return out.str();
      }
      case OpCode::Reduce:
      case OpCode::ReduceArg: {
        const int k = in.dst;
        const std::string sfx = !per_lane_ ? "" : lane.acc.empty() ? lane.suffix : lane.acc;
        const std::string value =
            std::string("static_cast<") + (p_.reduce_float[k] ? "double" : "long") + ">(" + reg(in.a, lane) + ")";
        const std::string index = in.op == OpCode::ReduceArg ? "static_cast<long>(" + reg(in.b, lane) + ")" : "0L";
        if (!lane.guard.empty()) out << "if (" << lane.guard << ") ";
        out << fold(p_, k, "acc" + std::to_string(k) + sfx, "idx" + std::to_string(k) + sfx, value, index) << "\n";
        return out.str();
      }
      case OpCode::NestedReduce: {  // into nacc/nidx (generate_nested)
        const NestedReduction& n = p_.nested;
        const std::string value =
            std::string("static_cast<") + (n.is_float ? "double" : "long") + ">(" + reg(in.a, lane) + ")";
        const std::string index = is_arg(n.kind) ? "static_cast<long>(" + reg(in.b, lane) + ")" : "0L";
        out << fold_kind(n.kind, "nacc", "nidx", value, index) << "\n";
        return out.str();
      }
      case OpCode::NestedResult: {
        const NestedReduction& n = p_.nested;
        out << define(pc, lane, T) << finalized(n.kind, n.is_float, n.finalize, n.count, "nacc", "nidx", in.type)
            << ";\n";
        return out.str();
      }
      case OpCode::ReduceResult: {  // slot a's accumulator, once its row is folded (Program::epilogue)
        const int k = in.a;
        out << define(pc, lane, T)
            << finalized(p_.reduce_kinds[k], p_.reduce_float[k], static_cast<Finalize>(in.b), p_.constants[in.c].f64,
                         "acc" + std::to_string(k), "idx" + std::to_string(k), in.type)
            << ";\n";
        return out.str();
      }
    }
    raise("internal: codegen does not know opcode ", static_cast<int>(in.op));
  }

  // An accumulator (acc, idx) as its reduction's store would hold it (finalize_value in
  // program/reduce_ops.hpp): finalized over `count` elements and converted to `t`.
  static std::string finalized(ReduceKind kind, bool is_float, Finalize finalize, double count, const std::string& acc,
                               const std::string& idx, DType t) {
    const bool exact_int = is_arg(kind) || (!is_float && finalize == Finalize::None);
    const std::string i = is_arg(kind) ? idx : "static_cast<long>(" + acc + ")";
    std::string f = is_float ? acc : "static_cast<double>(" + acc + ")";
    if (finalize == Finalize::Mean) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &count, sizeof bits);
      char text[96];
      std::snprintf(text, sizeof text, "__longlong_as_double(static_cast<long long>(0x%016llxull))",
                    static_cast<unsigned long long>(bits));
      f = "(" + f + " / " + text + ")";
    }
    if (finalize == Finalize::Sqrt) f = "sqrt(" + f + ")";
    if (t == DType::Bool) return exact_int ? "(" + i + " != 0L)" : "(" + f + " != 0.0)";
    if (t == DType::Float32 || t == DType::Float64) return std::string("static_cast<") + ctype(t) + ">(" + f + ")";
    return std::string("static_cast<") + ctype(t) + ">(" + (exact_int ? i : f) + ")";
  }

  // Argument a's element at `column` of the current row, read from global memory (its element
  // type: the type of every load of it).
  std::string global_load(int a, const std::string& column) const {
    return "*(" + pointer(a, column, std::string("const ") + ctype(p_.code[first_load(a)].type)) + ")";
  }
  // The address of argument a's element at `column` of the current row, as a `T*`: from the
  // argument it is a column shift of (KernelShape::column_of), the same expression plus a literal,
  // where the kernel reads row offsets (the rows' kernels of generate_cuda).
  std::string pointer(int a, const std::string& column, const std::string& T) const {
    const int owner = row_offsets_ && shape_.column_of[a] ? shape_.column_of[a] - 1 : a;
    std::string s = "reinterpret_cast<" + T + "*>(p.args[" + std::to_string(at_.arg_base + owner) + "].ptr) + " +
                    element_address(owner, shape_, column, at_.arg_base, row_offsets_);
    const int shift = owner != a ? shape_.column_shift[a] : 0;
    if (shift != 0) s += (shift > 0 ? " + " : " - ") + std::to_string(shift > 0 ? shift : -shift);
    return s;
  }
  // Instruction pc (a load) for two lanes at adjacent columns, as one load of a vector of two.
  std::string paired_load(int pc, const Lane& first, const Lane& second) const {
    const Instr& in = p_.code[pc];
    const std::string T = ctype(in.type), w = "w" + std::to_string(pc) + first.suffix;
    const std::string pair = in.type == DType::Int64 ? "longlong2" : T + "2";
    return "const " + pair + " " + w + " = *reinterpret_cast<const " + pair + "*>(" +
           pointer(in.a, first.column, "const " + T) + "); " + define(pc, first, T.c_str()) + w + ".x; " +
           define(pc, second, T.c_str()) + w + ".y;\n";
  }
  // The program's first load of argument a, or -1.
  int first_load(int a) const {
    for (int pc = 0; pc < static_cast<int>(p_.code.size()); ++pc)
      if (p_.code[pc].op == OpCode::Load && p_.code[pc].a == a) return pc;
    return -1;
  }
  // The C++ type of instruction pc's value.
  const char* value_type(int pc) const {
    const OpCode op = p_.code[pc].op;
    if (yields_bool(op)) return "bool";
    if (op == OpCode::Index || op == OpCode::Coord) return "long";
    return ctype(p_.code[pc].type);
  }

  const Program& p_;
  const KernelShape& shape_;
  bool per_lane_;
  Placement at_;
  std::uint64_t staged_ = 0;
  bool staged_certain_ = false;
  std::uint64_t hoisted_ = 0;
  bool row_offsets_ = false;
  std::uint64_t paired_ = 0;
  struct Tiled {
    std::string pointer;  // empty: not staged
    int offset = 0;
  };
  Tiled tiled_[kMaxArgs];
  bool staging_ = false;  // some argument is staged
  CarryPlan plan_;
  bool carrying_ = false;                    // roots read their registers
  const std::vector<char>* only_ = nullptr;  // the instructions body() emits (null: all)
  int shared_below_ = 0;
  int reuse_below_ = 0;
  std::vector<int> current_;  // register -> pc of its current definition
};

inline std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The coordinates (i0, i1, jc) of a nested reduction's element from its output, outer and inner
// positions (along dimensions K, R and D).
inline std::string coords_of(const std::string& k, const std::string& r, const std::string& d, int K, int R, int D) {
  std::string c[3];
  c[K] = k, c[R] = r, c[D] = d;
  return "const long i0 = " + c[0] + ", i1 = " + c[1] + ", jc = " + c[2] + ";\n";
}

}  // namespace codegen
}  // namespace tessera::detail
