// Differential fuzz test. Random array programs, generated from a seed, run three ways:
//   (a) tessera with fusion on (ts::Config::fusion = true, a window size picked per program),
//   (b) tessera with fusion off (every op eager),
//   (c) a serial host reference: a small NumPy-semantics emulator written here (host arrays with
//       shapes, views as boxes into a shared base), with NumPy's promotion rules (NEP 50 weak C++
//       scalars), integer wraparound, true division, bool or/and, NaN-propagating maximum/minimum.
// and are compared at checkpoints (to_host() / item()): integers and bools exactly, float64 within
// 1e-12 and float32 within 1e-5, relative to max(1, |reference|).
//
// A program is a sequence of steps over a pool of kSlots named handles v0..v7 (1-D to 3-D arrays
// of small odd shapes, some with fewer rows than ranks, 0-d arrays from reductions, and views):
// creation, expression trees bound to a handle, views, assign / += -= *= /= into views (also
// overlapping ones whose right-hand side reads shifted views of the target), reductions feeding
// later ops as 0-d scalars, dropped handles, and checks.
//
// The generator only emits steps that the reference accepts: it evaluates each proposal on the
// reference first and rejects it if it would be undefined (integer overflow beyond 2^40, a float
// cast to an integer out of range, NaN or inf not introduced deliberately) or numerically fragile.
// For that the reference tracks, per element, a bound on how far any correct implementation may
// differ (0 = bit-exact: the value only went through correctly rounded operations that cannot be
// contracted); a comparison, a where() condition or a float->int cast whose outcome could flip
// within that bound is rejected, and so is a step after which a bound exceeds a tenth of the
// comparison tolerance.
//
// On a mismatch the failing program is minimized while the mismatch persists (the prefix up to
// the failing check, then dropping chunks and single steps, aliases, slices, generated data and
// subexpressions; every decision rests on to_host() results, identical on all ranks, and is agreed
// with an MPI_Allreduce) and printed as pseudo-code with the seed.
//
// Besides random expressions, programs contain idioms: stencils and Jacobi sweeps between two
// arrays (halo exchanges, rule 2), x = x - mean(x), alpha = dot/norm; y += alpha * z, loops that
// repeat a body (plan-cache hits, sometimes with other constants), handle swaps and moves, and
// explicit flushes. The fused runs use a window size picked per program (3 to 256).
//
// Environment: TESSERA_FUZZ_SEED=<n> replays program <n> only (with TESSERA_FUZZ_PROGRAMS: that
// many programs from seed <n>), TESSERA_FUZZ_PROGRAMS=<n> sets the number of programs,
// TESSERA_FUZZ_WINDOW=<n> sets the fused runs' window (default: picked per program),
// TESSERA_FUZZ_PRINT=1 prints every generated program, TESSERA_FUZZ_DEBUG=1 traces the minimizer.

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <variant>
#include <vector>

#include "support.hpp"

namespace {

using Shape = std::vector<std::int64_t>;

constexpr int kSlots = 8;
constexpr double kMargin = 4.0;      // decisions must be safe by this multiple of the error bound
constexpr double kBudget64 = 1e-13;  // per-element error bound allowed, relative to max(1, |v|)
constexpr double kBudget32 = 1e-6;   // (a tenth of the comparison tolerance)
constexpr double kTol64 = 1e-12;     // comparison tolerances
constexpr double kTol32 = 1e-5;
constexpr double kMaxFloat = 1e6;              // larger float results are rejected
constexpr std::int64_t kMaxInt64 = 1LL << 40;  // larger int64 results are rejected (int32 may wrap)
constexpr double kEps32 = 1.1920928955078125e-07;
constexpr double kEps64 = 2.220446049250313e-16;

// ------------------------------------------------------------------------------------------------
// Element types and NumPy's promotion rules (the emulator's own, written from NumPy's behaviour).

enum class DT : int { B = 0, I32 = 1, I64 = 2, F32 = 3, F64 = 4 };

const char* cpp_name(DT t) {
  switch (t) {
    case DT::B: return "bool";
    case DT::I32: return "int32_t";
    case DT::I64: return "int64_t";
    case DT::F32: return "float";
    default: return "double";
  }
}
const char* np_name(DT t) {
  switch (t) {
    case DT::B: return "bool";
    case DT::I32: return "int32";
    case DT::I64: return "int64";
    case DT::F32: return "float32";
    default: return "float64";
  }
}
int kind(DT t) { return t == DT::B ? 0 : (t == DT::I32 || t == DT::I64) ? 1 : 2; }
bool is_f(DT t) { return kind(t) == 2; }
double eps_of(DT t) { return t == DT::F32 ? kEps32 : kEps64; }

// np.promote_types over the five types.
DT promote(DT a, DT b) {
  if (a == b) return a;
  if (a == DT::B) return b;
  if (b == DT::B) return a;
  if (kind(a) == kind(b)) return kind(a) == 1 ? DT::I64 : DT::F64;
  return DT::F64;  // integer with float: float64 (float32 cannot hold every int32)
}
// The type a Python scalar of this kind gets when the array's kind is lower.
DT default_of(int k) { return k == 0 ? DT::B : k == 1 ? DT::I64 : DT::F64; }

// NEP 50: a weak (C++/Python) scalar takes the array's type unless its kind is higher.
DT result_of(DT a, bool a_weak, DT b, bool b_weak) {
  if (!a_weak && !b_weak) return promote(a, b);
  if (!a_weak) return kind(a) >= kind(b) ? a : default_of(kind(b));
  if (!b_weak) return kind(b) >= kind(a) ? b : default_of(kind(a));
  return promote(a, b);
}
DT float_result(DT t) { return is_f(t) ? t : t == DT::B ? DT::F32 : DT::F64; }  // tessera: bool -> float32
DT sum_result(DT t) { return is_f(t) ? t : DT::I64; }
DT mean_result(DT t) { return t == DT::F32 ? DT::F32 : DT::F64; }

template <class T>
constexpr DT dt_of() {
  if constexpr (std::is_same_v<T, bool>)
    return DT::B;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return DT::I32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return DT::I64;
  else if constexpr (std::is_same_v<T, float>)
    return DT::F32;
  else
    return DT::F64;
}
template <class T>
struct Tag {
  using type = T;
};
template <class F>
decltype(auto) with_type(DT t, F&& f) {
  switch (t) {
    case DT::B: return f(Tag<bool>{});
    case DT::I32: return f(Tag<std::int32_t>{});
    case DT::I64: return f(Tag<std::int64_t>{});
    case DT::F32: return f(Tag<float>{});
    default: return f(Tag<double>{});
  }
}

// ------------------------------------------------------------------------------------------------
// Deterministic random numbers (the same on every rank and every platform).

struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL) {}
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  int below(std::int64_t n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  double real() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  bool chance(double p) { return real() < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(below(static_cast<std::int64_t>(v.size())))];
  }
  int weighted(std::initializer_list<double> w) {
    double total = 0;
    for (double x : w) total += x;
    double u = real() * total;
    int i = 0;
    for (double x : w) {
      if (u < x) return i;
      u -= x;
      ++i;
    }
    return i - 1;
  }
};

// ------------------------------------------------------------------------------------------------
// Programs.

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
  Erf,  // unary
  Where,
  Astype,
  Copy,  //
  Sum,
  Prod,
  RMin,
  RMax,
  Mean,
  Dot,
  Norm  // reductions -> 0-d
};
bool is_binary(Op op) { return op >= Op::Add && op <= Op::Ge; }
bool is_compare(Op op) { return op >= Op::Eq && op <= Op::Ge; }
bool is_unary(Op op) { return op >= Op::Neg && op <= Op::Erf; }
bool is_reduction(Op op) { return op >= Op::Sum && op <= Op::Norm; }

// One dimension of a view: ts::all, ts::slice(start, ts::end) or ts::slice(start, stop).
struct Sl {
  bool whole = true;
  std::int64_t start = 0, stop = 0;
  bool to_end = false;
};

struct Expr {
  Op op = Op::Leaf;
  int slot = -1;          // Leaf
  std::vector<Sl> sl;     // Leaf: slices (fewer than ndim: the rest whole)
  std::int64_t ival = 0;  // IntLit
  double fval = 0;        // FloatLit
  DT to = DT::F64;        // Astype
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
  char cop = '+';         // Compound: + - * /
  bool use_item = false;  // Check
};

struct Program {
  std::uint64_t seed = 0;
  int window = 64;
  std::vector<Step> steps;
};

Expr leaf(int slot, std::vector<Sl> sl = {}) {
  Expr e;
  e.op = Op::Leaf;
  e.slot = slot;
  e.sl = std::move(sl);
  return e;
}
Expr int_lit(std::int64_t v) {
  Expr e;
  e.op = Op::IntLit;
  e.ival = v;
  return e;
}
Expr float_lit(double v) {
  Expr e;
  e.op = Op::FloatLit;
  e.fval = v;
  return e;
}
Expr node(Op op, std::vector<Expr> kids) {
  Expr e;
  e.op = op;
  e.kids = std::move(kids);
  return e;
}
Expr astype(Expr k, DT to) {
  Expr e = node(Op::Astype, {std::move(k)});
  e.to = to;
  return e;
}

// Values of from_host arrays: small integers, dyadic floats (exact arithmetic) and random floats.
struct EV {
  double f = 0;        // float types
  std::int64_t i = 0;  // bool and integer types
  double e = 0;        // error bound (floats)
};

std::vector<EV> host_values(DT t, std::int64_t n, std::uint64_t seed) {
  Rng r(seed);
  std::vector<EV> out(static_cast<std::size_t>(n));
  const bool dyadic = r.chance(0.6);
  for (auto& v : out) {
    if (t == DT::B) {
      v.i = r.below(2);
    } else if (!is_f(t)) {
      v.i = r.below(10) - 4;
    } else {
      double x = dyadic ? static_cast<double>(r.below(41) - 20) / 8.0 : r.real() * 4.0 - 2.0;
      v.f = t == DT::F32 ? static_cast<double>(static_cast<float>(x)) : x;
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Printing programs as pseudo-code.

std::string fmt_double(double v) {
  if (std::isnan(v)) return "NAN";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  // shortest representation that reads back
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) {
      s = buf;
      break;
    }
  }
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string show_slices(const std::vector<Sl>& sl) {
  std::string s;
  for (std::size_t d = 0; d < sl.size(); ++d) {
    if (d) s += ", ";
    if (sl[d].whole)
      s += "ts::all";
    else if (sl[d].to_end)
      s += "ts::slice(" + std::to_string(sl[d].start) + ", ts::end)";
    else
      s += "ts::slice(" + std::to_string(sl[d].start) + ", " + std::to_string(sl[d].stop) + ")";
  }
  return s;
}

std::string show(const Expr& e) {
  auto k = [&](int i) { return show(e.kids[static_cast<std::size_t>(i)]); };
  switch (e.op) {
    case Op::Leaf: return "v" + std::to_string(e.slot) + (e.sl.empty() ? "" : "(" + show_slices(e.sl) + ")");
    case Op::IntLit: return std::to_string(e.ival);
    case Op::FloatLit: return fmt_double(e.fval);
    case Op::Add: return "(" + k(0) + " + " + k(1) + ")";
    case Op::Sub: return "(" + k(0) + " - " + k(1) + ")";
    case Op::Mul: return "(" + k(0) + " * " + k(1) + ")";
    case Op::Div: return "(" + k(0) + " / " + k(1) + ")";
    case Op::Pow: return "ts::pow(" + k(0) + ", " + k(1) + ")";
    case Op::Max: return "ts::maximum(" + k(0) + ", " + k(1) + ")";
    case Op::Min: return "ts::minimum(" + k(0) + ", " + k(1) + ")";
    case Op::Eq: return "(" + k(0) + " == " + k(1) + ")";
    case Op::Ne: return "(" + k(0) + " != " + k(1) + ")";
    case Op::Lt: return "(" + k(0) + " < " + k(1) + ")";
    case Op::Le: return "(" + k(0) + " <= " + k(1) + ")";
    case Op::Gt: return "(" + k(0) + " > " + k(1) + ")";
    case Op::Ge: return "(" + k(0) + " >= " + k(1) + ")";
    case Op::Neg: return "(-" + k(0) + ")";
    case Op::Abs: return "ts::abs(" + k(0) + ")";
    case Op::Sqrt: return "ts::sqrt(" + k(0) + ")";
    case Op::Exp: return "ts::exp(" + k(0) + ")";
    case Op::Log: return "ts::log(" + k(0) + ")";
    case Op::Sin: return "ts::sin(" + k(0) + ")";
    case Op::Cos: return "ts::cos(" + k(0) + ")";
    case Op::Tanh: return "ts::tanh(" + k(0) + ")";
    case Op::Erf: return "ts::erf(" + k(0) + ")";
    case Op::Where: return "ts::where(" + k(0) + ", " + k(1) + ", " + k(2) + ")";
    case Op::Astype: return k(0) + ".astype<" + cpp_name(e.to) + ">()";
    case Op::Copy: return "ts::copy(" + k(0) + ")";
    case Op::Sum: return "ts::sum(" + k(0) + ")";
    case Op::Prod: return "ts::prod(" + k(0) + ")";
    case Op::RMin: return "ts::min(" + k(0) + ")";
    case Op::RMax: return "ts::max(" + k(0) + ")";
    case Op::Mean: return "ts::mean(" + k(0) + ")";
    case Op::Dot: return "ts::dot(" + k(0) + ", " + k(1) + ")";
    case Op::Norm: return "ts::norm(" + k(0) + ")";
  }
  return "?";
}

std::string show_shape(const Shape& s) {
  std::string out = "{";
  for (std::size_t d = 0; d < s.size(); ++d) out += (d ? ", " : "") + std::to_string(s[d]);
  return out + "}";
}

std::string show(const Step& s) {
  const std::string v = "v" + std::to_string(s.dst);
  const std::string T = cpp_name(s.t);
  switch (s.kind) {
    case SK::Create:
      switch (s.how) {
        case How::Zeros: return v + " = ts::zeros<" + T + ">(" + show_shape(s.shape) + ");";
        case How::Ones: return v + " = ts::ones<" + T + ">(" + show_shape(s.shape) + ");";
        case How::Full: return v + " = ts::full<" + T + ">(" + show_shape(s.shape) + ", " + show(s.fill) + ");";
        case How::Arange: return v + " = ts::arange<" + T + ">(" + std::to_string(s.shape[0]) + ");";
        case How::Linspace:
          return v + " = ts::linspace<" + T + ">(" + fmt_double(s.lo) + ", " + fmt_double(s.hi) + ", " +
                 std::to_string(s.shape[0]) + ");";
        case How::FromHost: {
          std::int64_t n = 1;
          for (auto x : s.shape) n *= x;
          std::string vals;
          const auto hv = host_values(s.t, n, s.vseed);
          for (std::size_t i = 0; i < hv.size(); ++i)
            vals += (i ? ", " : "") + (is_f(s.t) ? fmt_double(hv[i].f) : std::to_string(hv[i].i));
          return v + " = ts::from_host<" + T + ">(" + show_shape(s.shape) + ", {" + vals + "});";
        }
        case How::EmptyAssign:
          return v + " = ts::empty<" + T + ">(" + show_shape(s.shape) + "); " + v + ".assign(" + show(s.rhs) + ");";
      }
      return "?";
    case SK::Bind: return v + " = " + show(s.rhs) + ";";
    case SK::View: return v + " = " + show(s.target) + ";  // view";
    case SK::Assign: return show(s.target) + ".assign(" + show(s.rhs) + ");";
    case SK::Compound: return show(s.target) + " " + s.cop + "= " + show(s.rhs) + ";";
    case SK::Drop: return v + " = {};  // drop the handle";
    case SK::Check: return std::string("check(") + v + (s.use_item ? ".item()" : ".to_host()") + ");";
    case SK::Swap: return "std::swap(" + v + ", v" + std::to_string(s.src) + ");";
    case SK::Move:
      return v + " = std::move(v" + std::to_string(s.src) + ");  // v" + std::to_string(s.src) + " is dropped";
    case SK::Flush: return "rt.flush();";
  }
  return "?";
}

// ------------------------------------------------------------------------------------------------
// The reference: host arrays, views as boxes into shared bases, NumPy semantics, error bounds.

struct Base {
  DT t = DT::F64;
  Shape shape;
  std::vector<EV> v;
};

struct RSlot {
  std::shared_ptr<Base> base;
  Shape lo, hi;  // the view, in base coordinates
  Shape shape() const {
    Shape s(lo.size());
    for (std::size_t d = 0; d < lo.size(); ++d) s[d] = hi[d] - lo[d];
    return s;
  }
  int ndim() const { return static_cast<int>(lo.size()); }
};

struct RState {
  std::vector<std::optional<RSlot>> slots = std::vector<std::optional<RSlot>>(kSlots);
  RState clone() const {
    RState out;
    std::unordered_map<const Base*, std::shared_ptr<Base>> map;
    for (int k = 0; k < kSlots; ++k) {
      if (!slots[k]) continue;
      auto& b = map[slots[k]->base.get()];
      if (!b) b = std::make_shared<Base>(*slots[k]->base);
      out.slots[k] = RSlot{b, slots[k]->lo, slots[k]->hi};
    }
    return out;
  }
};

// A materialized value: an array (0-d when shape is empty) or a weak C++ scalar.
struct RArr {
  DT t = DT::F64;
  Shape shape;
  std::vector<EV> v;
  bool weak = false;
  bool zero_d() const { return shape.empty(); }
};

struct Ctx {
  std::string reject;  // first reason the step is not acceptable
  std::int64_t ops = 0;
  void fail(const std::string& why) {
    if (reject.empty()) reject = why;
  }
  bool ok() const { return reject.empty(); }
};

// A checkpoint: what to_host()/item() returned (or the reference's values).
struct Snap {
  int step = -1;
  DT t = DT::F64;
  Shape shape;
  std::vector<double> f;
  std::vector<std::int64_t> i;
  std::string error;  // an exception thrown by tessera
};

std::int64_t wrap_to(DT t, std::int64_t x) {
  if (t == DT::I32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(x)));
  if (t == DT::B) return x != 0;
  return x;
}
double round_to(DT t, double x) { return t == DT::F32 ? static_cast<double>(static_cast<float>(x)) : x; }

// Rejects values outside the program's safe range; NaN only where an input already was NaN.
void check_value(DT t, EV& r, bool nan_in, Ctx& c) {
  if (is_f(t)) {
    if (std::isnan(r.f)) {
      if (!nan_in) c.fail("a NaN that was not introduced deliberately");
      r.e = 0;
      return;
    }
    if (std::isinf(r.f)) return c.fail("an infinite value");
    if (std::abs(r.f) > kMaxFloat) return c.fail("a float beyond 1e6");
  } else if (t == DT::I64) {
    if (r.i > kMaxInt64 || r.i < -kMaxInt64) c.fail("an int64 beyond 2^40");
  }
}

// C++ conversion as tessera (and NumPy's astype) do it: to bool is "nonzero", floats truncate.
EV cast(const EV& v, DT from, DT to, Ctx& c) {
  if (from == to) return v;
  EV r;
  if (is_f(from)) {
    const double x = v.f;
    if (to == DT::B) {
      if (std::isnan(x)) {
        r.i = 1;
      } else {
        if (v.e > 0 && std::abs(x) <= kMargin * v.e) c.fail("float->bool of a value too close to 0");
        r.i = x != 0;
      }
      return r;
    }
    if (kind(to) == 1) {
      if (!std::isfinite(x)) {
        c.fail("a non-finite float cast to an integer");
        return r;
      }
      const double lim = to == DT::I32 ? 2147483647.0 : 4.0e18;
      const double lo = x - kMargin * v.e, hi = x + kMargin * v.e;
      if (std::abs(lo) >= lim || std::abs(hi) >= lim) {
        c.fail("a float out of the integer type's range");
        return r;
      }
      if (std::trunc(lo) != std::trunc(hi)) c.fail("float->int truncation too close to an integer");
      r.i = static_cast<std::int64_t>(std::trunc(x));
      return r;
    }
    r.f = round_to(to, x);
    r.e = v.e > 0 ? v.e + (to == DT::F32 ? kEps32 * std::abs(r.f) : 0.0) : 0.0;
    return r;
  }
  if (to == DT::B) {
    r.i = v.i != 0;
  } else if (kind(to) == 1) {
    r.i = wrap_to(to, v.i);
  } else {
    r.f = to == DT::F32 ? static_cast<double>(static_cast<float>(v.i)) : static_cast<double>(v.i);
  }
  return r;
}

// x op y computed in type t (op already mapped for bool: Add->or, Mul->and). Comparisons give 0/1.
EV binop(Op op, DT t, const EV& a, const EV& b, Ctx& c) {
  EV r;
  if (is_f(t)) {
    const double x = a.f, y = b.f, ea = a.e, eb = b.e, eps = eps_of(t);
    const bool f32 = t == DT::F32;
    const bool nan_in = std::isnan(x) || std::isnan(y);
    const bool approx = ea > 0 || eb > 0;
    auto fl = [](double v) { return static_cast<float>(v); };
    if (is_compare(op)) {
      if (!nan_in && approx && std::abs(x - y) <= kMargin * (ea + eb)) c.fail("a comparison too close to call");
      bool res = false;
      switch (op) {
        case Op::Eq: res = f32 ? fl(x) == fl(y) : x == y; break;
        case Op::Ne: res = f32 ? fl(x) != fl(y) : x != y; break;
        case Op::Lt: res = f32 ? fl(x) < fl(y) : x < y; break;
        case Op::Le: res = f32 ? fl(x) <= fl(y) : x <= y; break;
        case Op::Gt: res = f32 ? fl(x) > fl(y) : x > y; break;
        default: res = f32 ? fl(x) >= fl(y) : x >= y; break;
      }
      r.i = res;
      return r;
    }
    switch (op) {
      case Op::Add:
        r.f = f32 ? static_cast<double>(fl(x) + fl(y)) : x + y;
        r.e = ea + eb + (approx ? eps * std::abs(r.f) : 0.0);
        break;
      case Op::Sub:
        r.f = f32 ? static_cast<double>(fl(x) - fl(y)) : x - y;
        r.e = ea + eb + (approx ? eps * std::abs(r.f) : 0.0);
        break;
      case Op::Mul:
        // Always approximate: a backend may contract a product into a later add (FMA).
        r.f = f32 ? static_cast<double>(fl(x) * fl(y)) : x * y;
        r.e = std::abs(x) * eb + std::abs(y) * ea + ea * eb + eps * std::abs(r.f);
        break;
      case Op::Div:
        if (!nan_in && y == 0) {
          c.fail("division by zero");
          return r;
        }
        if (!nan_in && eb > 0 && std::abs(y) <= kMargin * eb) c.fail("a divisor too close to 0");
        r.f = f32 ? static_cast<double>(fl(x) / fl(y)) : x / y;
        r.e = nan_in ? 0.0 : (ea + std::abs(r.f) * eb) / std::max(std::abs(y) - eb, 1e-300) + eps * std::abs(r.f);
        break;
      case Op::Pow: {
        r.f = f32 ? static_cast<double>(std::pow(fl(x), fl(y))) : std::pow(x, y);
        double e = 4 * eps * std::abs(r.f);
        if (!nan_in && ea > 0) {
          if (y < 1 && std::abs(x) <= kMargin * ea) c.fail("pow with a base too close to 0");
          e += std::abs(y) * std::pow(std::abs(x) + kMargin * ea, y - 1) * ea;
        }
        if (!nan_in && eb > 0) {
          if (x <= 0) c.fail("pow with an approximate exponent and a non-positive base");
          e += std::abs(r.f * std::log(std::abs(x))) * eb * 2;
        }
        r.e = e;
        break;
      }
      case Op::Max:
      case Op::Min:
        if (std::isnan(x))
          r.f = x;
        else if (std::isnan(y))
          r.f = y;
        else
          r.f = op == Op::Max ? std::max(x, y) : std::min(x, y);
        r.e = std::max(ea, eb);
        break;
      default: c.fail("internal: bad float op"); break;
    }
    check_value(t, r, nan_in, c);
    return r;
  }
  const std::int64_t x = a.i, y = b.i;
  if (is_compare(op)) {
    switch (op) {
      case Op::Eq: r.i = x == y; break;
      case Op::Ne: r.i = x != y; break;
      case Op::Lt: r.i = x < y; break;
      case Op::Le: r.i = x <= y; break;
      case Op::Gt: r.i = x > y; break;
      default: r.i = x >= y; break;
    }
    return r;
  }
  if (t == DT::B) {
    switch (op) {
      case Op::Add:
      case Op::Max: r.i = (x || y); break;
      case Op::Mul:
      case Op::Min: r.i = (x && y); break;
      default: c.fail("an operation bool arrays do not support"); break;
    }
    return r;
  }
  const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
  switch (op) {
    case Op::Add: r.i = wrap_to(t, static_cast<std::int64_t>(ux + uy)); break;
    case Op::Sub: r.i = wrap_to(t, static_cast<std::int64_t>(ux - uy)); break;
    case Op::Mul: r.i = wrap_to(t, static_cast<std::int64_t>(ux * uy)); break;
    case Op::Max: r.i = std::max(x, y); break;
    case Op::Min: r.i = std::min(x, y); break;
    case Op::Pow: {
      if (y < 0) {
        c.fail("a negative integer exponent (NumPy raises)");
        return r;
      }
      if (y > 64) {
        c.fail("an integer exponent beyond 64");
        return r;
      }
      std::int64_t p = 1;
      for (std::int64_t k = 0; k < y; ++k)
        p = wrap_to(t, static_cast<std::int64_t>(static_cast<std::uint64_t>(p) * ux));
      r.i = p;
      break;
    }
    default: c.fail("internal: bad integer op"); break;
  }
  check_value(t, r, false, c);
  return r;
}

// Unary op on a value already cast to its compute type t.
EV unop(Op op, DT t, const EV& a, Ctx& c) {
  EV r;
  if (!is_f(t)) {
    switch (op) {
      case Op::Neg:
        if (t == DT::B) c.fail("negative of a bool array (NumPy raises)");
        r.i = wrap_to(t, static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(a.i)));
        break;
      case Op::Abs:
        r.i = a.i < 0 ? wrap_to(t, static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(a.i))) : a.i;
        break;
      default: c.fail("internal: bad integer unary op"); break;
    }
    check_value(t, r, false, c);
    return r;
  }
  const double x = a.f, ea = a.e, eps = eps_of(t);
  const bool f32 = t == DT::F32;
  const bool nan_in = std::isnan(x);
  const auto fx = static_cast<float>(x);
  auto pick = [&](float vf, double vd) { return f32 ? static_cast<double>(vf) : vd; };
  switch (op) {
    case Op::Neg:
      r.f = -x;
      r.e = ea;
      break;
    case Op::Abs:
      r.f = std::abs(x);
      r.e = ea;
      break;
    case Op::Sqrt:
      if (!nan_in && ea > 0 && x - kMargin * ea < 0) c.fail("sqrt of a value that may be negative");
      r.f = pick(std::sqrt(fx), std::sqrt(x));
      r.e = ea > 0 ? std::min(std::sqrt(ea), ea / (2 * std::sqrt(std::max(x, 1e-300)))) + eps * std::abs(r.f) : 0.0;
      break;
    case Op::Exp:
      r.f = pick(std::exp(fx), std::exp(x));
      r.e = std::abs(r.f) * (std::expm1(ea) + 4 * eps);
      break;
    case Op::Log:
      if (!nan_in && ea > 0 && x - kMargin * ea <= 0) c.fail("log of a value that may be non-positive");
      r.f = pick(std::log(fx), std::log(x));
      r.e = ea / std::max(x - ea, 1e-300) + 4 * eps * std::max(1.0, std::abs(r.f));
      break;
    case Op::Sin:
      r.f = pick(std::sin(fx), std::sin(x));
      r.e = ea + 4 * eps;
      break;
    case Op::Cos:
      r.f = pick(std::cos(fx), std::cos(x));
      r.e = ea + 4 * eps;
      break;
    case Op::Tanh:
      r.f = pick(std::tanh(fx), std::tanh(x));
      r.e = ea + 4 * eps;
      break;
    case Op::Erf:
      r.f = pick(std::erf(fx), std::erf(x));
      r.e = 1.13 * ea + 4 * eps;
      break;
    default: c.fail("internal: bad float unary op"); break;
  }
  check_value(t, r, nan_in, c);
  return r;
}

bool resolve(const Expr& e, const RState& st, RSlot& out, Ctx& c) {
  if (e.op != Op::Leaf) {
    c.fail("a view target that is not a named array");
    return false;
  }
  if (e.slot < 0 || e.slot >= kSlots || !st.slots[e.slot]) {
    c.fail("v" + std::to_string(e.slot) + " is empty");
    return false;
  }
  out = *st.slots[e.slot];
  if (static_cast<int>(e.sl.size()) > out.ndim()) {
    c.fail("more slices than dimensions");
    return false;
  }
  for (std::size_t d = 0; d < e.sl.size(); ++d) {
    const Sl& s = e.sl[d];
    if (s.whole) continue;
    const std::int64_t n = out.hi[d] - out.lo[d];
    const std::int64_t a = s.start < 0 ? s.start + n : s.start;
    const std::int64_t b = s.to_end ? n : s.stop < 0 ? s.stop + n : s.stop;
    if (!(0 <= a && a < b && b <= n)) {
      c.fail("a slice out of bounds or empty");
      return false;
    }
    out.hi[d] = out.lo[d] + b;
    out.lo[d] = out.lo[d] + a;
  }
  return true;
}

RArr materialize(const RSlot& s) {
  RArr out;
  out.t = s.base->t;
  out.shape = s.shape();
  for_each_in_box(s.base->shape, s.lo, s.hi,
                  [&](std::int64_t flat, std::int64_t) { out.v.push_back(s.base->v[static_cast<std::size_t>(flat)]); });
  return out;
}

// The common shape of elementwise operands (0-d arrays and scalars broadcast).
bool common_shape(std::initializer_list<const RArr*> xs, Shape& out, Ctx& c) {
  bool have = false;
  for (const RArr* x : xs) {
    if (x->zero_d()) continue;
    if (!have) {
      out = x->shape;
      have = true;
    } else if (x->shape != out) {
      c.fail("operand shapes differ");
      return false;
    }
  }
  if (!have) out.clear();
  return true;
}
const EV& at(const RArr& a, std::size_t k) { return a.zero_d() ? a.v[0] : a.v[k]; }
std::size_t volume(const Shape& s) {
  std::size_t n = 1;
  for (auto x : s) n *= static_cast<std::size_t>(x);
  return n;
}

bool dyadic20(double x) { return std::abs(x) < 1e9 && std::floor(x * 1048576.0) == x * 1048576.0; }

RArr eval(const Expr& e, const RState& st, Ctx& c);

RArr eval_strong(const Expr& e, const RState& st, Ctx& c) {
  RArr a = eval(e, st, c);
  if (a.weak) c.fail("a scalar where an array is needed");
  return a;
}

RArr reduce(const Expr& e, const RState& st, Ctx& c) {
  RArr a = eval_strong(e.kids[0], st, c);
  RArr b;
  if (e.op == Op::Dot) {
    b = eval_strong(e.kids[1], st, c);
    if (c.ok() && a.shape != b.shape) c.fail("dot of different shapes");
  }
  RArr out;
  out.v.resize(1);
  if (!c.ok()) return out;
  DT compute = a.t, result = a.t;
  switch (e.op) {
    case Op::Sum:
    case Op::Prod: result = sum_result(a.t); break;
    case Op::Mean: result = mean_result(a.t); break;
    case Op::Dot: compute = result = promote(a.t, b.t); break;
    case Op::Norm: compute = result = mean_result(a.t); break;
    default: break;
  }
  out.t = result;
  const std::size_t n = a.v.size();
  std::vector<EV> terms(n);
  for (std::size_t k = 0; k < n; ++k) {
    EV x = cast(a.v[k], a.t, compute, c);
    if (e.op == Op::Dot) {
      EV y = cast(b.v[k], b.t, compute, c);
      x = binop(compute == DT::B ? Op::Min : Op::Mul, compute, x, y, c);
    } else if (e.op == Op::Norm) {
      x = binop(Op::Mul, compute, x, x, c);
    }
    terms[k] = x;
  }
  const bool fl = is_f(compute);
  const Op kind_op = e.op == Op::Prod ? Op::Prod : e.op == Op::RMin ? Op::RMin : e.op == Op::RMax ? Op::RMax : Op::Sum;
  EV& r = out.v[0];
  if (!fl) {
    std::uint64_t acc = kind_op == Op::Prod ? 1 : 0;
    std::int64_t mn = std::numeric_limits<std::int64_t>::max(), mx = std::numeric_limits<std::int64_t>::min();
    for (const EV& x : terms) {
      acc = kind_op == Op::Prod ? acc * static_cast<std::uint64_t>(x.i) : acc + static_cast<std::uint64_t>(x.i);
      mn = std::min(mn, x.i);
      mx = std::max(mx, x.i);
    }
    const std::int64_t v = kind_op == Op::RMin ? mn : kind_op == Op::RMax ? mx : static_cast<std::int64_t>(acc);
    if (e.op == Op::Mean) {
      r.f = static_cast<double>(v) / static_cast<double>(n);  // correctly rounded: exact
    } else {
      r.i = wrap_to(result, v);
    }
    check_value(result, r, false, c);
    return out;
  }
  bool nan = false, exact = true;
  double sum = 0, sabs = 0, serr = 0, prod = 1, pbound = 1, mn = std::numeric_limits<double>::infinity(),
         mx = -std::numeric_limits<double>::infinity(), emax = 0;
  for (const EV& x : terms) {
    if (std::isnan(x.f)) nan = true;
    sum += x.f;
    sabs += std::abs(x.f);
    serr += x.e;
    prod *= x.f;
    pbound *= std::abs(x.f) + x.e;
    mn = std::min(mn, x.f);
    mx = std::max(mx, x.f);
    emax = std::max(emax, x.e);
    if (x.e > 0 || !dyadic20(x.f)) exact = false;
  }
  if (sabs >= 1073741824.0) exact = false;
  double f = 0, err = 0;
  switch (kind_op) {
    case Op::Prod:
      f = prod;
      err = pbound - std::abs(prod) + static_cast<double>(n) * kEps64 * pbound;
      break;
    case Op::RMin:
      f = mn;
      err = emax;
      break;
    case Op::RMax:
      f = mx;
      err = emax;
      break;
    default:
      f = sum;
      err = exact ? 0.0 : serr + static_cast<double>(n) * kEps64 * sabs;
      break;
  }
  if (e.op == Op::Mean) {
    f = f / static_cast<double>(n);
    err = err > 0 ? err / static_cast<double>(n) + kEps64 * std::abs(f) : 0.0;
  } else if (e.op == Op::Norm) {
    const double s = f;
    f = std::sqrt(s);
    if (err > 0) err = std::min(std::sqrt(err), err / (2 * std::sqrt(std::max(s, 1e-300)))) + kEps64 * std::abs(f);
  }
  if (nan) {
    f = std::numeric_limits<double>::quiet_NaN();
    err = 0;
  }
  r.f = round_to(result, f);
  r.e = err > 0 && result == DT::F32 ? err + kEps32 * std::abs(r.f) : err;
  check_value(result, r, nan, c);
  return out;
}

RArr eval(const Expr& e, const RState& st, Ctx& c) {
  RArr out;
  if (!c.ok()) return out;
  switch (e.op) {
    case Op::Leaf: {
      RSlot s;
      if (!resolve(e, st, s, c)) return out;
      return materialize(s);
    }
    case Op::IntLit:
      out.t = DT::I64;
      out.weak = true;
      out.v.push_back(EV{0, e.ival, 0});
      return out;
    case Op::FloatLit:
      out.t = DT::F64;
      out.weak = true;
      out.v.push_back(EV{e.fval, 0, 0});
      return out;
    default: break;
  }
  if (e.op != Op::Leaf && e.op != Op::IntLit && e.op != Op::FloatLit) c.ops++;
  if (is_reduction(e.op)) return reduce(e, st, c);
  if (is_binary(e.op)) {
    RArr a = eval(e.kids[0], st, c), b = eval(e.kids[1], st, c);
    if (!c.ok()) return out;
    if (a.weak && b.weak) {
      c.fail("a binary op on two scalars");
      return out;
    }
    DT t = result_of(a.t, a.weak, b.t, b.weak);
    Op op = e.op;
    if (op == Op::Div && !is_f(t)) t = DT::F64;
    if (t == DT::B && (op == Op::Sub || op == Op::Pow)) {
      c.fail("subtract/power of bool arrays (NumPy raises)");
      return out;
    }
    if (!common_shape({&a, &b}, out.shape, c)) return out;
    out.t = is_compare(op) ? DT::B : t;
    const std::size_t n = volume(out.shape);
    for (std::size_t k = 0; k < n && c.ok(); ++k) {
      EV x = cast(at(a, k), a.t, t, c), y = cast(at(b, k), b.t, t, c);
      out.v.push_back(binop(op, t, x, y, c));
    }
    return out;
  }
  if (is_unary(e.op)) {
    RArr a = eval_strong(e.kids[0], st, c);
    if (!c.ok()) return out;
    const bool fn = e.op != Op::Neg && e.op != Op::Abs;
    const DT t = fn ? float_result(a.t) : a.t;
    out.t = t;
    out.shape = a.shape;
    for (std::size_t k = 0; k < a.v.size() && c.ok(); ++k) out.v.push_back(unop(e.op, t, cast(a.v[k], a.t, t, c), c));
    return out;
  }
  if (e.op == Op::Where) {
    RArr cond = eval_strong(e.kids[0], st, c), x = eval(e.kids[1], st, c), y = eval(e.kids[2], st, c);
    if (!c.ok()) return out;
    const DT t = result_of(x.t, x.weak, y.t, y.weak);
    if (!common_shape({&cond, &x, &y}, out.shape, c)) return out;
    out.t = t;
    const std::size_t n = volume(out.shape);
    for (std::size_t k = 0; k < n && c.ok(); ++k) {
      const EV m = cast(at(cond, k), cond.t, DT::B, c);
      out.v.push_back(m.i ? cast(at(x, k), x.t, t, c) : cast(at(y, k), y.t, t, c));
    }
    return out;
  }
  if (e.op == Op::Astype || e.op == Op::Copy) {
    RArr a = eval_strong(e.kids[0], st, c);
    if (!c.ok()) return out;
    const DT to = e.op == Op::Astype ? e.to : a.t;
    out.t = to;
    out.shape = a.shape;
    for (std::size_t k = 0; k < a.v.size() && c.ok(); ++k) {
      EV v = cast(a.v[k], a.t, to, c);
      check_value(to, v, is_f(a.t) && std::isnan(a.v[k].f), c);
      out.v.push_back(v);
    }
    return out;
  }
  c.fail("internal: unknown expression");
  return out;
}

void check_budget(const Base& b, Ctx& c) {
  if (!is_f(b.t)) return;
  const double budget = b.t == DT::F32 ? kBudget32 : kBudget64;
  for (const EV& v : b.v)
    if (!std::isnan(v.f) && v.e > budget * std::max(1.0, std::abs(v.f)))
      return c.fail("the error bound of the result exceeds the budget");
}

Snap snap_of(const RSlot& s, int step) {
  RArr a = materialize(s);
  Snap out;
  out.step = step;
  out.t = a.t;
  out.shape = a.shape;
  for (const EV& v : a.v) {
    if (is_f(a.t))
      out.f.push_back(v.f);
    else
      out.i.push_back(v.i);
  }
  return out;
}

// Writes `src` (cast to the target's type) into the view `dst`.
void write_view(const RSlot& dst, const RArr& src, Ctx& c) {
  const Shape shape = dst.shape();
  if (!src.zero_d() && src.shape != shape) return c.fail("assigning a value of another shape");
  std::vector<EV> vals;
  for (std::size_t k = 0; k < volume(shape) && c.ok(); ++k) vals.push_back(cast(at(src, k), src.t, dst.base->t, c));
  if (!c.ok()) return;
  for_each_in_box(dst.base->shape, dst.lo, dst.hi, [&](std::int64_t flat, std::int64_t k) {
    dst.base->v[static_cast<std::size_t>(flat)] = vals[static_cast<std::size_t>(k)];
  });
  check_budget(*dst.base, c);
}

void bind_new(RState& st, int dst, RArr value, Ctx& c) {
  auto b = std::make_shared<Base>();
  b->t = value.t;
  b->shape = value.shape;
  b->v = std::move(value.v);
  check_budget(*b, c);
  st.slots[dst] = RSlot{b, Shape(b->shape.size(), 0), b->shape};
}

// Applies one step to the reference state; c.reject says why it is not acceptable.
void apply_step(RState& st, const Step& s, int index, Ctx& c, std::vector<Snap>* snaps) {
  if (s.dst >= kSlots) return c.fail("bad slot");
  switch (s.kind) {
    case SK::Create: {
      c.ops += s.how == How::EmptyAssign ? 2 : 1;
      RArr v;
      v.t = s.t;
      v.shape = s.shape;
      const std::size_t n = volume(s.shape);
      switch (s.how) {
        case How::Zeros:
        case How::Ones:
          for (std::size_t k = 0; k < n; ++k) v.v.push_back(cast(EV{0, s.how == How::Ones, 0}, DT::I64, s.t, c));
          break;
        case How::Full: {
          RArr lit = eval(s.fill, st, c);
          if (!c.ok()) return;
          for (std::size_t k = 0; k < n; ++k) v.v.push_back(cast(lit.v[0], lit.t, s.t, c));
          break;
        }
        case How::Arange:
          for (std::size_t k = 0; k < n; ++k)
            v.v.push_back(cast(EV{0, static_cast<std::int64_t>(k), 0}, DT::I64, s.t, c));
          break;
        case How::Linspace: {
          // As NumPy: i * step + lo in float64, the last sample exactly hi; integers floor.
          const double step = n > 1 ? (s.hi - s.lo) / static_cast<double>(n - 1) : 0.0;
          const bool exact = dyadic20(step) && dyadic20(s.lo);
          for (std::size_t k = 0; k < n; ++k) {
            double y = static_cast<double>(k) * step + s.lo;
            if (n > 1 && k == n - 1) y = s.hi;
            EV x{y, 0, exact ? 0.0 : 2 * kEps64 * (std::abs(y) + std::abs(s.lo))};
            if (kind(s.t) == 1) {
              if (std::floor(y - kMargin * x.e) != std::floor(y + kMargin * x.e)) c.fail("linspace floor too close");
              v.v.push_back(EV{0, wrap_to(s.t, static_cast<std::int64_t>(std::floor(y))), 0});
            } else {
              v.v.push_back(cast(x, DT::F64, s.t, c));
            }
          }
          break;
        }
        case How::FromHost: v.v = host_values(s.t, static_cast<std::int64_t>(n), s.vseed); break;
        case How::EmptyAssign: {
          RArr r = eval(s.rhs, st, c);
          if (!c.ok()) return;
          if (!r.zero_d() && r.shape != s.shape) return c.fail("assigning a value of another shape");
          for (std::size_t k = 0; k < n && c.ok(); ++k) v.v.push_back(cast(at(r, k), r.t, s.t, c));
          break;
        }
      }
      if (!c.ok()) return;
      return bind_new(st, s.dst, std::move(v), c);
    }
    case SK::Bind: {
      if (s.rhs.op == Op::Leaf) {  // a bare name: the handle is shared (a view)
        RSlot v;
        if (resolve(s.rhs, st, v, c)) st.slots[s.dst] = v;
        return;
      }
      RArr r = eval_strong(s.rhs, st, c);
      if (!c.ok()) return;
      return bind_new(st, s.dst, std::move(r), c);
    }
    case SK::View: {
      RSlot v;
      if (resolve(s.target, st, v, c)) st.slots[s.dst] = v;
      return;
    }
    case SK::Assign: {
      RSlot dst;
      if (!resolve(s.target, st, dst, c)) return;
      RArr r = eval(s.rhs, st, c);
      if (!c.ok()) return;
      c.ops++;
      return write_view(dst, r, c);
    }
    case SK::Compound: {
      RSlot dst;
      if (!resolve(s.target, st, dst, c)) return;
      RArr r = eval(s.rhs, st, c);
      if (!c.ok()) return;
      c.ops++;
      const DT T = dst.base->t;
      DT t = result_of(T, false, r.t, r.weak);
      Op op = s.cop == '+' ? Op::Add : s.cop == '-' ? Op::Sub : s.cop == '*' ? Op::Mul : Op::Div;
      if (op == Op::Div && !is_f(t)) t = DT::F64;
      if (t == DT::B && op == Op::Sub) return c.fail("subtract of bool arrays (NumPy raises)");
      if (kind(t) > kind(T)) return c.fail("same_kind casting forbids this in-place op");
      RArr cur = materialize(dst);
      if (!r.zero_d() && r.shape != cur.shape) return c.fail("in-place op with another shape");
      RArr res;
      res.t = t;
      res.shape = cur.shape;
      for (std::size_t k = 0; k < cur.v.size() && c.ok(); ++k)
        res.v.push_back(binop(op, t, cast(cur.v[k], T, t, c), cast(at(r, k), r.t, t, c), c));
      if (!c.ok()) return;
      return write_view(dst, res, c);
    }
    case SK::Drop: st.slots[s.dst].reset(); return;
    case SK::Swap:
      if (s.src < 0 || s.src >= kSlots) return c.fail("bad slot");
      std::swap(st.slots[s.dst], st.slots[s.src]);
      return;
    case SK::Move:
      if (s.src < 0 || s.src >= kSlots || !st.slots[s.src]) return c.fail("move from an empty handle");
      if (s.src == s.dst) return c.fail("self-move");
      st.slots[s.dst] = st.slots[s.src];
      st.slots[s.src].reset();
      return;
    case SK::Flush: return;
    case SK::Check: {
      if (s.dst < 0 || !st.slots[s.dst]) return c.fail("check of an empty handle");
      const RSlot& v = *st.slots[s.dst];
      if (s.use_item && volume(v.shape()) != 1) return c.fail("item() of an array with more than one element");
      if (snaps) snaps->push_back(snap_of(v, index));
      return;
    }
  }
}

// Runs a whole program on the reference; false (with the reason) if some step is not acceptable.
bool run_reference(const Program& p, std::vector<Snap>& snaps, std::string* why = nullptr,
                   std::vector<std::string>* notes = nullptr) {
  RState st;
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    Ctx c;
    apply_step(st, p.steps[k], static_cast<int>(k), c, &snaps);
    if (!c.ok()) {
      if (why) *why = "step " + std::to_string(k) + ": " + c.reject;
      return false;
    }
    if (notes) {
      const Step& s = p.steps[k];
      int slot = s.kind == SK::Assign || s.kind == SK::Compound ? s.target.slot : s.dst;
      std::string n;
      if (slot >= 0 && st.slots[slot] && s.kind != SK::Drop && s.kind != SK::Check && s.kind != SK::Flush) {
        const RSlot& v = *st.slots[slot];
        Shape sh = v.shape();
        std::string shape = "(";
        for (std::size_t d = 0; d < sh.size(); ++d) shape += (d ? ", " : "") + std::to_string(sh[d]);
        shape += sh.size() == 1 ? ",)" : ")";
        n = "v" + std::to_string(slot) + ": " + np_name(v.base->t) + " " + shape;
      }
      notes->push_back(n);
    }
  }
  return true;
}

// ------------------------------------------------------------------------------------------------
// The generator: random proposals, each kept only when the reference accepts it.

const std::vector<Shape> kShapes = {{7},    {13},   {2},       {3},       {5, 9},   {2, 11},
                                    {4, 6}, {3, 3}, {3, 4, 5}, {2, 3, 7}, {1, 5, 3}};
const std::vector<double> kFloatLits = {0.5, -0.25, 2.0, 1.5, -3.0, 0.1, 0.2, 0.75, -1.0, 3.25, 1e-3};

struct Gen {
  Rng& r;
  const RState& st;

  bool live(int k) const { return st.slots[k].has_value(); }
  Shape shape_of(int k) const { return st.slots[k]->shape(); }
  DT type_of_slot(int k) const { return st.slots[k]->base->t; }
  std::vector<int> arrays() const {
    std::vector<int> out;
    for (int k = 0; k < kSlots; ++k)
      if (live(k) && st.slots[k]->ndim() > 0) out.push_back(k);
    return out;
  }
  std::vector<int> scalars() const {
    std::vector<int> out;
    for (int k = 0; k < kSlots; ++k)
      if (live(k) && st.slots[k]->ndim() == 0) out.push_back(k);
    return out;
  }
  int live_count() const {
    int n = 0;
    for (int k = 0; k < kSlots; ++k) n += live(k);
    return n;
  }
  int pick_dst() {
    std::vector<int> free;
    for (int k = 0; k < kSlots; ++k)
      if (!live(k)) free.push_back(k);
    if (!free.empty() && r.chance(0.6)) return r.pick(free);
    return r.below(kSlots);
  }

  bool ok(const Expr& e) const {
    Ctx c;
    eval(e, st, c);
    return c.ok();
  }
  DT type(const Expr& e) const {
    Ctx c;
    return eval(e, st, c).t;
  }

  // One dimension of a view of `len` elements at `off` of an extent `ext`, in a random spelling.
  Sl make_sl(std::int64_t off, std::int64_t len, std::int64_t ext) {
    Sl s;
    if (off == 0 && len == ext && r.chance(0.7)) return s;
    s.whole = false;
    s.start = off;
    if (off + len == ext) {
      if (r.chance(0.7))
        s.to_end = true;
      else
        s.stop = ext;
      return s;
    }
    s.stop = r.chance(0.5) ? off + len : off + len - ext;  // negative: counted from the end
    return s;
  }
  Expr leaf_box(int k, const Shape& off, const Shape& len) {
    const Shape ext = shape_of(k);
    std::vector<Sl> sl;
    bool all_whole = true;
    for (std::size_t d = 0; d < ext.size(); ++d) {
      sl.push_back(make_sl(off[d], len[d], ext[d]));
      all_whole = all_whole && sl.back().whole;
    }
    if (all_whole) sl.clear();
    return leaf(k, sl);
  }
  // A random array and a launch-domain shape: its shape shrunk by 0, 1 or 2 in some dimensions.
  int domain(Shape& S) {
    const auto a = arrays();
    const int k = r.pick(a);
    S = shape_of(k);
    for (auto& x : S) {
      if (x >= 5)
        x -= r.weighted({5, 2, 3});
      else if (x >= 3)
        x -= r.weighted({6, 2});
    }
    return k;
  }
  // A view of shape S of some array (often the anchor: shifted views of one array need halos;
  // windows of other, larger arrays need redistribution).
  Expr leaf_for(const Shape& S, int anchor) {
    std::vector<int> cands;
    for (int k : arrays()) {
      const Shape e = shape_of(k);
      bool fits = e.size() == S.size();
      for (std::size_t d = 0; fits && d < S.size(); ++d) fits = e[d] >= S[d];
      if (fits) cands.push_back(k);
    }
    const int k = anchor >= 0 && r.chance(0.5) ? anchor : r.pick(cands);
    const Shape ext = shape_of(k);
    Shape off(S.size());
    for (std::size_t d = 0; d < S.size(); ++d) off[d] = r.below(ext[d] - S[d] + 1);
    return leaf_box(k, off, S);
  }
  Expr int_literal() {
    if (r.chance(0.04))  // large (still int32) values: int32 products wrap around, as in NumPy
      return int_lit(r.pick(std::vector<std::int64_t>{65537, -1000003, 46341, 2147483647}));
    return int_lit(r.below(9) - 3);
  }
  Expr float_literal() { return float_lit(r.pick(kFloatLits)); }
  Expr literal_for(DT t) {
    if (is_f(t)) return r.chance(0.75) ? float_literal() : int_literal();
    return r.chance(0.85) ? int_literal() : float_literal();
  }

  // A 0-d operand: a named 0-d array or a reduction.
  Expr scalar_operand() {
    const auto sc = scalars();
    if (!sc.empty() && r.chance(0.45)) return leaf(r.pick(sc));
    Shape S;
    const int k = domain(S);
    static const Op reds[] = {Op::Sum, Op::Prod, Op::RMin, Op::RMax, Op::Mean, Op::Dot, Op::Norm};
    for (int attempt = 0; attempt < 4; ++attempt) {
      const Op op = reds[r.below(7)];
      Expr a = r.chance(0.6) ? leaf_for(S, k) : gen(S, 1, k);
      Expr e;
      if (op == Op::Dot)
        e = node(Op::Dot, {a, r.chance(0.6) ? leaf_for(S, k) : gen(S, 1, k)});
      else if (op == Op::Prod && r.chance(0.6))  // a product of small values: prod(0.1 * tanh(a) + 1.0)
        e = node(Op::Prod, {node(Op::Add, {node(Op::Mul, {float_lit(0.1), node(Op::Tanh, {a})}), float_lit(1.0)})});
      else
        e = node(op, {a});
      if (ok(e)) return e;
    }
    return node(Op::Sum, {leaf_for(S, k)});
  }

  Expr gen_unary(const Shape& S, int depth, int anchor) {
    Expr k = gen(S, depth - 1, anchor);
    const DT t = type(k);
    switch (r.below(12)) {
      case 0: return node(t == DT::B ? Op::Abs : Op::Neg, {k});
      case 1: return node(Op::Abs, {k});
      case 2: return node(Op::Sqrt, {node(Op::Add, {node(Op::Abs, {k}), int_lit(1)})});
      case 3: return node(Op::Log, {node(Op::Add, {node(Op::Abs, {k}), int_lit(1)})});
      case 4: {
        const int w = r.below(3);
        return node(Op::Exp, {w == 0 ? node(Op::Tanh, {k}) : w == 1 ? node(Op::Mul, {k, float_lit(0.5)}) : k});
      }
      case 5: return node(Op::Sin, {k});
      case 6: return node(Op::Cos, {k});
      case 7: return node(Op::Tanh, {k});
      case 8: return node(Op::Erf, {k});
      case 9:
      case 10: return astype(k, static_cast<DT>(r.below(5)));
      default: return node(Op::Copy, {k});
    }
  }

  Expr gen_binary(const Shape& S, int depth, int anchor) {
    Expr a = gen(S, depth - 1, anchor);
    const DT ta = type(a);
    static const Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min, Op::Pow};
    const int w = r.weighted({4, 3, 3, 2, 1.5, 1.5, 1.5, 2.5});
    Op op = w < 7 ? ops[w] : static_cast<Op>(static_cast<int>(Op::Eq) + r.below(6));
    if (op == Op::Pow && ta == DT::B) op = Op::Add;
    if (op == Op::Pow) {
      Expr b;
      if (!is_f(ta))
        b = r.chance(0.75) ? int_lit(r.below(4)) : node(Op::Min, {node(Op::Abs, {leaf_for(S, anchor)}), int_lit(3)});
      else
        b = r.chance(0.6) ? int_lit(r.below(4)) : float_lit(r.pick(std::vector<double>{0.5, 2.0, 1.5}));
      return node(Op::Pow, {a, b});
    }
    Expr b;
    const int wb = r.weighted({9, 5, 3, 3});
    b = wb == 0 ? gen(S, depth - 1, anchor) : wb == 1 ? literal_for(ta) : wb == 2 ? scalar_operand() : leaf_for(S, -1);
    if ((op == Op::Max || op == Op::Min) && is_f(ta) && r.chance(0.06)) b = float_lit(std::nan(""));  // deliberate
    if (op == Op::Div) {
      if (b.op == Op::IntLit && b.ival == 0) b = int_lit(2);
      if (b.op == Op::FloatLit && b.fval == 0) b = float_lit(2);
      if (b.op != Op::IntLit && b.op != Op::FloatLit && r.chance(0.6))
        b = node(Op::Add, {node(Op::Abs, {b}), int_lit(1)});
    }
    if (r.chance(0.3)) std::swap(a, b);
    return node(op, {a, b});
  }

  Expr gen_where(const Shape& S, int depth, int anchor) {
    Expr cond;
    const int w = r.weighted({5, 2, 2});
    if (w == 0) {
      Expr x = gen(S, depth - 1, anchor);
      const DT tx = type(x);
      Expr y = r.chance(0.5) ? literal_for(tx) : r.chance(0.5) ? gen(S, depth - 1, anchor) : scalar_operand();
      if (r.chance(0.2)) std::swap(x, y);
      cond = node(static_cast<Op>(static_cast<int>(Op::Eq) + r.below(6)), {x, y});
    } else if (w == 1) {
      cond = leaf_for(S, anchor);  // any type: tested for nonzero
    } else {
      cond = gen(S, depth - 1, anchor);
    }
    auto branch = [&]() {
      if (r.chance(0.04)) return float_lit(std::nan(""));  // deliberate NaN
      if (r.chance(0.25)) return r.chance(0.5) ? int_literal() : float_literal();
      return gen(S, depth - 1, anchor);
    };
    Expr x = branch();
    Expr y = branch();
    return node(Op::Where, {cond, x, y});
  }

  // An expression of shape S (or 0-d when every operand is).
  Expr gen(const Shape& S, int depth, int anchor) {
    if (depth <= 0 || r.chance(0.2)) return leaf_for(S, anchor);
    for (int attempt = 0; attempt < 3; ++attempt) {
      const int cat = r.weighted({3, 4.5, 1.5});
      Expr e = cat == 0   ? gen_unary(S, depth, anchor)
               : cat == 1 ? gen_binary(S, depth, anchor)
                          : gen_where(S, depth, anchor);
      if (ok(e)) return e;
    }
    return leaf_for(S, anchor);
  }

  Step create() {
    Step s;
    s.kind = SK::Create;
    s.dst = pick_dst();
    s.t = static_cast<DT>(r.weighted({1, 1.5, 1.5, 1.5, 2.5}));
    s.shape = r.pick(kShapes);
    const int how = arrays().empty() ? 0 : r.weighted({5, 1.2, 0.4, 0.4, 0.8, 0.8, 1.2});
    static const How hows[] = {How::FromHost, How::Full,     How::Zeros,      How::Ones,
                               How::Arange,   How::Linspace, How::EmptyAssign};
    s.how = hows[how];
    switch (s.how) {
      case How::FromHost: s.vseed = r.next(); break;
      case How::Full: s.fill = literal_for(s.t); break;
      case How::Arange:
      case How::Linspace:
        s.shape = {r.pick(std::vector<std::int64_t>{7, 13, 2, 3, 5, 9})};
        s.lo = r.pick(std::vector<double>{-2, -1, 0, 0.5, 1.25});
        s.hi = r.pick(std::vector<double>{1, 2, 3.5, 7, -1});
        break;
      case How::EmptyAssign: {
        const int k = domain(s.shape);
        s.rhs = r.chance(0.2) ? literal_for(s.t) : gen(s.shape, 1 + r.below(2), k);
        break;
      }
      default: break;
    }
    return s;
  }

  Step bind() {
    Step s;
    s.kind = SK::Bind;
    Shape S;
    const int k = domain(S);
    const bool rebind = r.chance(0.35);  // x = f(x): the whole of x
    if (rebind) S = shape_of(k);
    s.rhs = gen(S, 1 + r.below(3), k);
    if (s.rhs.op == Op::Leaf)
      s.rhs = r.chance(0.5) ? node(Op::Copy, {s.rhs}) : astype(s.rhs, static_cast<DT>(r.below(5)));
    s.dst = rebind ? k : pick_dst();
    return s;
  }

  Step bind_scalar() {
    Step s;
    s.kind = SK::Bind;
    Expr e = scalar_operand();
    switch (r.below(5)) {
      case 0:  // alpha = a / (|b| + 1.0)
        e = node(Op::Div, {e, node(Op::Add, {node(Op::Abs, {scalar_operand()}), float_lit(1.0)})});
        break;
      case 1: e = node(Op::Mul, {e, literal_for(type(e))}); break;
      case 2: e = node(Op::Sub, {e, scalar_operand()}); break;
      default: break;
    }
    if (e.op == Op::Leaf) e = node(Op::Copy, {e});
    s.rhs = e;
    s.dst = pick_dst();
    return s;
  }

  Step view() {
    Step s;
    s.kind = SK::View;
    const int k = r.pick(arrays());
    const Shape ext = shape_of(k);
    Shape off(ext.size()), len(ext.size());
    for (std::size_t d = 0; d < ext.size(); ++d) {
      len[d] = std::max<std::int64_t>(1, ext[d] - r.weighted({3, 3, 2, 1, 1}));
      off[d] = r.below(ext[d] - len[d] + 1);
    }
    s.target = leaf_box(k, off, len);
    s.dst = pick_dst();
    return s;
  }

  // Writes into a view of a named array; the right-hand side often reads other (shifted,
  // overlapping) views of the same array.
  Step write(SK kind) {
    Step s;
    s.kind = kind;
    const auto sc = scalars();
    if (!sc.empty() && r.chance(0.1)) {
      s.target = leaf(r.pick(sc));
      s.rhs = r.chance(0.5) ? literal_for(type_of_slot(s.target.slot)) : scalar_operand();
    } else {
      Shape S;
      const int k = domain(S);
      const Shape ext = shape_of(k);
      Shape off(S.size());
      for (std::size_t d = 0; d < S.size(); ++d) off[d] = r.below(ext[d] - S[d] + 1);
      s.target = leaf_box(k, off, S);
      const int w = r.weighted({7, 1.5, 1.5, 1});
      s.rhs = w == 0   ? gen(S, r.below(4), k)
              : w == 1 ? literal_for(type_of_slot(k))
              : w == 2 ? scalar_operand()
                       : node(Op::Mul, {scalar_operand(), leaf_for(S, k)});  // y += alpha * x
    }
    const DT T = type_of_slot(s.target.slot);
    if (kind == SK::Compound) {
      if (T == DT::B)
        s.cop = r.chance(0.5) ? '+' : '*';
      else if (!is_f(T))
        s.cop = "+-*"[r.below(3)];
      else
        s.cop = "+-*/"[r.weighted({3, 3, 2, 1})];
      if (s.cop == '/' && s.rhs.op != Op::IntLit && s.rhs.op != Op::FloatLit)
        s.rhs = node(Op::Add, {node(Op::Abs, {s.rhs}), int_lit(1)});
      if (s.cop == '/' &&
          ((s.rhs.op == Op::IntLit && s.rhs.ival == 0) || (s.rhs.op == Op::FloatLit && s.rhs.fval == 0)))
        s.rhs = int_lit(2);
    }
    return s;
  }

  static Sl sl(std::int64_t start, std::int64_t stop) {
    Sl s;
    s.whole = false;
    s.start = start;
    s.stop = stop;
    return s;
  }
  static Sl sl_end(std::int64_t start) {
    Sl s;
    s.whole = false;
    s.start = start;
    s.to_end = true;
    return s;
  }

  std::vector<Step> pattern() {
    const auto arr = arrays();
    switch (r.below(8)) {
      case 0: {  // stencil: c.assign(0.2 * (c + north + south + ...)) on the interior
        std::vector<int> cands;
        for (int k : arr) {
          bool big = true;
          for (auto e : shape_of(k)) big = big && e >= 3;
          if (big) cands.push_back(k);
        }
        if (cands.empty()) break;
        const int k = r.pick(cands);
        const int nd = static_cast<int>(shape_of(k).size());
        const std::vector<Sl> inner(static_cast<std::size_t>(nd), sl(1, -1));
        Expr sum = leaf(k, inner);
        for (int d = 0; d < nd; ++d) {
          auto lo = inner, hi = inner;
          lo[d] = sl(0, -2);
          hi[d] = sl_end(2);
          sum = node(Op::Add, {node(Op::Add, {sum, leaf(k, lo)}), leaf(k, hi)});
        }
        Step s;
        s.kind = SK::Assign;
        s.target = leaf(k, inner);
        s.rhs = is_f(type_of_slot(k)) ? node(Op::Mul, {float_lit(0.2), sum}) : sum;
        return {s};
      }
      case 1: {  // x = x - mean(x), or x -= mean(x)
        const int k = r.pick(arr);
        Step s;
        s.target = leaf(k);
        if (is_f(type_of_slot(k)) && r.chance(0.5)) {
          s.kind = SK::Compound;
          s.cop = '-';
          s.rhs = node(Op::Mean, {leaf(k)});
        } else {
          s.kind = SK::Bind;
          s.dst = k;
          s.rhs = node(Op::Sub, {leaf(k), node(Op::Mean, {leaf(k)})});
        }
        return {s};
      }
      case 2: {  // alpha = dot(a, b) / (norm(a) * norm(b) + 1.0); y += alpha * z
        Shape S;
        const int k = domain(S);
        Step a;
        a.kind = SK::Bind;
        a.dst = pick_dst();
        Expr p = leaf_for(S, k), q = leaf_for(S, k);
        a.rhs =
            node(Op::Div, {node(Op::Dot, {p, q}),
                           node(Op::Add, {node(Op::Mul, {node(Op::Norm, {p}), node(Op::Norm, {q})}), float_lit(1.0)})});
        Step y;
        y.kind = SK::Compound;
        y.cop = r.chance(0.7) ? '+' : '-';
        Shape off(S.size());
        const Shape ext = shape_of(k);
        for (std::size_t d = 0; d < S.size(); ++d) off[d] = r.below(ext[d] - S[d] + 1);
        y.target = leaf_box(k, off, S);
        y.rhs = node(Op::Mul, {leaf(a.dst), leaf_for(S, k)});
        return {a, y};
      }
      case 3: {  // x = x / (norm(x) + 1.0)
        const int k = r.pick(arr);
        Step s;
        s.kind = SK::Bind;
        s.dst = k;
        s.rhs = node(Op::Div, {leaf(k), node(Op::Add, {node(Op::Norm, {leaf(k)}), float_lit(1.0)})});
        return {s};
      }
      case 4: {  // overlapping in-place update along the first dimension: a(1:) op= f(a(:-1))
        const int k = r.pick(arr);
        const Shape ext = shape_of(k);
        if (ext[0] < 2) break;
        Step s;
        s.kind = r.chance(0.5) ? SK::Compound : SK::Assign;
        s.cop = '+';
        s.target = leaf(k, {sl_end(1)});
        Expr src = leaf(k, {sl(0, -1)});
        s.rhs = is_f(type_of_slot(k)) && r.chance(0.5) ? node(Op::Mul, {float_lit(0.5), src}) : src;
        return {s};
      }
      case 6:
      case 7: {  // Jacobi sweeps between two arrays of one shape: b(inner) = avg(a(shifted)), and back
        std::vector<int> cands;
        for (int k : arr) {
          bool big = is_f(type_of_slot(k));
          for (auto e : shape_of(k)) big = big && e >= 3;
          if (big) cands.push_back(k);
        }
        if (cands.empty()) break;
        const int a = r.pick(cands);
        int b = pick_dst();
        if (b == a) b = (a + 1) % kSlots;
        const int nd = static_cast<int>(shape_of(a).size());
        const std::vector<Sl> inner(static_cast<std::size_t>(nd), sl(1, -1));
        // With the center term first, the sweep's launch domain is aligned with its target, so
        // the next sweep may join the group but for rule 2 (it reads shifted what this one wrote).
        const bool center = r.chance(0.6);
        auto sweep = [&](int to, int from) {
          Expr sum = leaf(from, inner);
          for (int d = 0; d < nd; ++d) {
            auto lo = inner, hi = inner;
            lo[d] = sl(0, -2);
            hi[d] = sl_end(2);
            sum = !center && d == 0 ? leaf(from, lo) : node(Op::Add, {sum, leaf(from, lo)});
            sum = node(Op::Add, {sum, leaf(from, hi)});
          }
          Step s;
          s.kind = SK::Assign;
          s.target = leaf(to, inner);
          s.rhs = node(Op::Mul, {float_lit(center ? 0.2 : 0.25), sum});
          return s;
        };
        Step init;
        init.kind = SK::Bind;
        init.dst = b;
        init.rhs = r.chance(0.5) ? node(Op::Copy, {leaf(a)}) : node(Op::Mul, {leaf(a), float_lit(0.5)});
        std::vector<Step> out = {init};
        for (int t = 1 + r.below(3); t > 0; --t) {
          out.push_back(sweep(b, a));
          out.push_back(sweep(a, b));
        }
        return out;
      }
      default: {  // swap-like: v(0:-1) = v(1:) (shift left) then check
        const int k = r.pick(arr);
        const Shape ext = shape_of(k);
        if (ext[0] < 2) break;
        Step s;
        s.kind = SK::Assign;
        s.target = leaf(k, {sl(0, -1)});
        s.rhs = leaf(k, {sl_end(1)});
        return {s};
      }
    }
    return {bind()};
  }

  std::vector<Step> propose() {
    int big = 0;  // arrays large enough to be split over the ranks
    for (int k : arrays()) big += volume(shape_of(k)) >= 6;
    if (arrays().empty() || live_count() < 3 || r.chance(big < 3 ? 0.5 : 0.06)) return {create()};
    switch (r.weighted({3.0, 1.0, 0.8, 1.5, 2.0, 0.5, 2.2, 0.5, 1.0})) {
      case 0: return {bind()};
      case 1: return {bind_scalar()};
      case 2: return {view()};
      case 3: return {write(SK::Assign)};
      case 4: return {write(SK::Compound)};
      case 5: {
        Step s;
        s.kind = SK::Drop;
        s.dst = r.below(kSlots);
        if (!live(s.dst)) return {create()};
        return {s};
      }
      case 6: return pattern();
      case 7: {
        Step s;
        const int w = r.weighted({2, 2, 1});
        s.kind = w == 0 ? SK::Swap : w == 1 ? SK::Move : SK::Flush;
        std::vector<int> live;
        for (int k = 0; k < kSlots; ++k)
          if (this->live(k)) live.push_back(k);
        s.src = r.pick(live);
        s.dst = r.below(kSlots);
        if (s.kind == SK::Move && s.dst == s.src) s.dst = (s.dst + 1) % kSlots;
        return {s};
      }
      default: return loop();
    }
  }

  // A loop: a body of one to three steps repeated two to five times, the same ops on the same
  // names each time (repeated windows hit the plan cache), sometimes with other float constants.
  void perturb(Expr& e) {
    if (e.op == Op::FloatLit && !std::isnan(e.fval)) e.fval = r.pick(kFloatLits);
    if (e.op == Op::Pow) return;
    for (auto& k : e.kids) perturb(k);
  }
  std::vector<Step> loop() {
    std::vector<Step> body;
    const int n = 1 + r.below(3);
    for (int k = 0; k < n; ++k) {
      const int w = r.weighted({2, 2, 1});
      if (w == 0) {
        Step s = bind();
        if (s.rhs.op == Op::Leaf) continue;
        body.push_back(s);
      } else if (w == 1) {
        body.push_back(write(SK::Compound));
      } else {
        for (const Step& s : pattern()) body.push_back(s);
      }
    }
    if (r.chance(0.5)) {  // one window per iteration
      Step f;
      f.kind = SK::Flush;
      body.push_back(f);
    }
    const bool vary = r.chance(0.4);
    std::vector<Step> out;
    const int times = 2 + r.below(4);
    for (int t = 0; t < times; ++t)
      for (Step s : body) {
        if (vary && t > 0) perturb(s.rhs);
        out.push_back(s);
      }
    return out;
  }
};

Step check_step(int slot, const RState& st, Rng& r) {
  Step s;
  s.kind = SK::Check;
  s.dst = slot;
  s.use_item = volume(st.slots[slot]->shape()) == 1 && r.chance(0.7);
  return s;
}

Program generate(std::uint64_t seed, std::int64_t target_ops) {
  Program p;
  p.seed = seed;
  Rng r(seed);
  p.window = r.pick(std::vector<int>{64, 8, 23, 256, 3});
  target_ops += r.below(target_ops / 5 + 1) - target_ops / 10;
  RState st;
  std::int64_t ops = 0, since_check = 0, next_check = 40 + r.below(50);
  int rejects = 0;
  while (ops < target_ops && rejects < 20000) {
    std::vector<Step> steps;
    {
      Gen g{r, st};
      steps = g.propose();
    }
    RState trial = st.clone();
    Ctx c;
    for (const Step& s : steps) {
      apply_step(trial, s, -1, c, nullptr);
      if (!c.ok()) break;
    }
    if (!c.ok()) {
      ++rejects;
      continue;
    }
    st = std::move(trial);
    p.steps.insert(p.steps.end(), steps.begin(), steps.end());
    ops += c.ops;
    since_check += c.ops;
    if (since_check >= next_check) {
      std::vector<int> live;
      for (int k = 0; k < kSlots; ++k)
        if (st.slots[k]) live.push_back(k);
      p.steps.push_back(check_step(r.pick(live), st, r));
      since_check = 0;
      next_check = 40 + r.below(50);
    }
  }
  for (int k = 0; k < kSlots; ++k)
    if (st.slots[k]) p.steps.push_back(check_step(k, st, r));
  return p;
}

// ------------------------------------------------------------------------------------------------
// Running a program on tessera: the same steps through Array<T>, dispatched on runtime types.

using AV = std::variant<ts::Array<bool>, ts::Array<std::int32_t>, ts::Array<std::int64_t>, ts::Array<float>,
                        ts::Array<double>>;
using OV = std::variant<ts::Array<bool>, ts::Array<std::int32_t>, ts::Array<std::int64_t>, ts::Array<float>,
                        ts::Array<double>, std::int64_t, double>;
template <class X>
struct is_arr : std::false_type {};
template <class T>
struct is_arr<ts::Array<T>> : std::true_type {};
template <class X>
constexpr bool is_arr_v = is_arr<std::decay_t<X>>::value;

ts::Slice to_slice(const Sl& s) {
  if (s.whole) return ts::all;
  if (s.to_end) return ts::slice(s.start, ts::end);
  return ts::slice(s.start, s.stop);
}

template <class T>
ts::Array<T> sliced(const ts::Array<T>& a, const std::vector<Sl>& sl) {
  switch (sl.size()) {
    case 0: return a;
    case 1: return a(to_slice(sl[0]));
    case 2: return a(to_slice(sl[0]), to_slice(sl[1]));
    default: return a(to_slice(sl[0]), to_slice(sl[1]), to_slice(sl[2]));
  }
}

class Runner {
 public:
  void step(const Step& s, int index, std::vector<Snap>& snaps) {
    switch (s.kind) {
      case SK::Create: slots_[s.dst] = create(s); return;
      case SK::Bind: slots_[s.dst] = eval(s.rhs); return;
      case SK::View: slots_[s.dst] = eval(s.target); return;
      case SK::Assign: {
        const AV target = eval(s.target);
        const OV v = operand(s.rhs);
        std::visit(
            [](const auto& t, const auto& x) {
              auto h = t;
              h.assign(x);
            },
            target, v);
        return;
      }
      case SK::Compound: {
        const AV target = eval(s.target);
        const OV v = operand(s.rhs);
        const char cop = s.cop;
        std::visit(
            [cop](const auto& t, const auto& x) {
              auto h = t;
              switch (cop) {
                case '+': h += x; break;
                case '-': h -= x; break;
                case '*': h *= x; break;
                default: h /= x; break;
              }
            },
            target, v);
        return;
      }
      case SK::Drop: slots_[s.dst].reset(); return;
      case SK::Check: snaps.push_back(snap(*slots_[s.dst], s.use_item, index)); return;
      case SK::Swap: {
        auto& a = slots_[s.dst];
        auto& b = slots_[s.src];
        if (a && b && a->index() == b->index())  // swap the Array<T> handles themselves
          std::visit(
              [&](auto& x) {
                using A = std::decay_t<decltype(x)>;
                std::swap(x, std::get<A>(*b));
              },
              *a);
        else
          std::swap(a, b);
        return;
      }
      case SK::Move: {
        std::visit(
            [&](auto& x) {
              using A = std::decay_t<decltype(x)>;
              A moved = std::move(x);
              slots_[s.dst] = AV(std::move(moved));
            },
            *slots_[s.src]);
        slots_[s.src].reset();
        return;
      }
      case SK::Flush: rt_.flush(); return;
    }
  }
  explicit Runner(ts::Runtime& rt) : rt_(rt) {}

 private:
  static Snap snap(const AV& a, bool use_item, int index) {
    return std::visit(
        [&](const auto& x) {
          using T = typename std::decay_t<decltype(x)>::value_type;
          Snap s;
          s.step = index;
          s.t = dt_of<T>();
          s.shape = x.shape();
          std::vector<T> h;
          if (use_item)
            h.push_back(x.item());
          else
            h = x.to_host();
          for (std::size_t k = 0; k < h.size(); ++k) {
            if constexpr (std::is_floating_point_v<T>)
              s.f.push_back(static_cast<double>(h[k]));
            else
              s.i.push_back(static_cast<std::int64_t>(h[k]));
          }
          return s;
        },
        a);
  }

  AV create(const Step& s) {
    return with_type(s.t, [&](auto tag) -> AV {
      using T = typename decltype(tag)::type;
      switch (s.how) {
        case How::Zeros: return ts::zeros<T>(s.shape);
        case How::Ones: return ts::ones<T>(s.shape);
        case How::Full:
          if (s.fill.op == Op::IntLit) return ts::full<T>(s.shape, s.fill.ival);
          return ts::full<T>(s.shape, s.fill.fval);
        case How::Arange: return ts::arange<T>(s.shape[0]);
        case How::Linspace: return ts::linspace<T>(s.lo, s.hi, s.shape[0]);
        case How::FromHost: {
          std::int64_t n = 1;
          for (auto e : s.shape) n *= e;
          std::vector<T> h;
          for (const EV& v : host_values(s.t, n, s.vseed))
            h.push_back(is_f(s.t) ? static_cast<T>(v.f) : static_cast<T>(v.i));
          return ts::from_host<T>(s.shape, h);
        }
        case How::EmptyAssign:
        default: {
          auto a = ts::empty<T>(s.shape);
          std::visit([&](const auto& x) { a.assign(x); }, operand(s.rhs));
          return a;
        }
      }
    });
  }

  OV operand(const Expr& e) {
    if (e.op == Op::IntLit) return e.ival;
    if (e.op == Op::FloatLit) return e.fval;
    return std::visit([](const auto& a) -> OV { return a; }, eval(e));
  }

  template <class F>
  AV binary(const Expr& e, F f) {
    const OV a = operand(e.kids[0]), b = operand(e.kids[1]);
    return std::visit(
        [&](const auto& x, const auto& y) -> AV {
          if constexpr (is_arr_v<decltype(x)> || is_arr_v<decltype(y)>)
            return f(x, y);
          else
            throw std::logic_error("a binary op on two scalars");
        },
        a, b);
  }
  template <class F>
  AV unary(const Expr& e, F f) {
    return std::visit([&](const auto& x) -> AV { return f(x); }, eval(e.kids[0]));
  }

  AV eval(const Expr& e) {
    switch (e.op) {
      case Op::Leaf: return std::visit([&](const auto& a) -> AV { return sliced(a, e.sl); }, *slots_[e.slot]);
      case Op::IntLit:
      case Op::FloatLit: throw std::logic_error("a literal where an array is needed");
      case Op::Add: return binary(e, [](const auto& a, const auto& b) { return a + b; });
      case Op::Sub: return binary(e, [](const auto& a, const auto& b) { return a - b; });
      case Op::Mul: return binary(e, [](const auto& a, const auto& b) { return a * b; });
      case Op::Div: return binary(e, [](const auto& a, const auto& b) { return a / b; });
      case Op::Pow: return binary(e, [](const auto& a, const auto& b) { return ts::pow(a, b); });
      case Op::Max: return binary(e, [](const auto& a, const auto& b) { return ts::maximum(a, b); });
      case Op::Min: return binary(e, [](const auto& a, const auto& b) { return ts::minimum(a, b); });
      case Op::Eq: return binary(e, [](const auto& a, const auto& b) { return a == b; });
      case Op::Ne: return binary(e, [](const auto& a, const auto& b) { return a != b; });
      case Op::Lt: return binary(e, [](const auto& a, const auto& b) { return a < b; });
      case Op::Le: return binary(e, [](const auto& a, const auto& b) { return a <= b; });
      case Op::Gt: return binary(e, [](const auto& a, const auto& b) { return a > b; });
      case Op::Ge: return binary(e, [](const auto& a, const auto& b) { return a >= b; });
      case Op::Neg: return unary(e, [](const auto& a) { return -a; });
      case Op::Abs: return unary(e, [](const auto& a) { return ts::abs(a); });
      case Op::Sqrt: return unary(e, [](const auto& a) { return ts::sqrt(a); });
      case Op::Exp: return unary(e, [](const auto& a) { return ts::exp(a); });
      case Op::Log: return unary(e, [](const auto& a) { return ts::log(a); });
      case Op::Sin: return unary(e, [](const auto& a) { return ts::sin(a); });
      case Op::Cos: return unary(e, [](const auto& a) { return ts::cos(a); });
      case Op::Tanh: return unary(e, [](const auto& a) { return ts::tanh(a); });
      case Op::Erf: return unary(e, [](const auto& a) { return ts::erf(a); });
      case Op::Where: {
        const AV c = eval(e.kids[0]);
        const OV x = operand(e.kids[1]), y = operand(e.kids[2]);
        return std::visit([](const auto& cc, const auto& xx, const auto& yy) -> AV { return ts::where(cc, xx, yy); }, c,
                          x, y);
      }
      case Op::Astype: {
        const AV a = eval(e.kids[0]);
        return with_type(e.to, [&](auto tag) -> AV {
          using U = typename decltype(tag)::type;
          return std::visit([](const auto& x) -> AV { return x.template astype<U>(); }, a);
        });
      }
      case Op::Copy: return unary(e, [](const auto& a) { return ts::copy(a); });
      case Op::Sum: return unary(e, [](const auto& a) { return ts::sum(a); });
      case Op::Prod: return unary(e, [](const auto& a) { return ts::prod(a); });
      case Op::RMin: return unary(e, [](const auto& a) { return ts::min(a); });
      case Op::RMax: return unary(e, [](const auto& a) { return ts::max(a); });
      case Op::Mean: return unary(e, [](const auto& a) { return ts::mean(a); });
      case Op::Norm: return unary(e, [](const auto& a) { return ts::norm(a); });
      case Op::Dot: {
        const AV a = eval(e.kids[0]), b = eval(e.kids[1]);
        return std::visit([](const auto& x, const auto& y) -> AV { return ts::dot(x, y); }, a, b);
      }
    }
    throw std::logic_error("unknown expression");
  }

  ts::Runtime& rt_;
  std::vector<std::optional<AV>> slots_ = std::vector<std::optional<AV>>(kSlots);
};

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

std::vector<Snap> run_tessera(const Program& p, bool fused, Totals& totals) {
  ts::Config cfg;
  cfg.fusion = fused;
  if (fused) cfg.window = p.window;
  int argc = 0;
  char** argv = nullptr;
  ts::Runtime rt(argc, argv, cfg);
  std::vector<Snap> snaps;
  {
    Runner run(rt);
    std::size_t k = 0;
    try {
      for (; k < p.steps.size(); ++k) run.step(p.steps[k], static_cast<int>(k), snaps);
      rt.flush();
    } catch (const std::exception& e) {
      Snap s;
      s.step = static_cast<int>(k);
      s.error = std::string("threw at step ") + std::to_string(k) + ": " + e.what();
      snaps.push_back(s);
    }
  }
  totals.add(rt.stats());
  return snaps;
}

// ------------------------------------------------------------------------------------------------
// Comparing checkpoints.

std::string index_str(const Shape& shape, std::size_t flat) {
  if (shape.empty()) return "()";
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = static_cast<std::int64_t>(flat) % shape[d];
    flat /= static_cast<std::size_t>(shape[d]);
  }
  std::string s = "(";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + ")";
}

std::string compare_snap(const Snap& got, const Snap& want) {
  if (!got.error.empty()) return got.error;
  if (!want.error.empty()) return "the other side " + want.error;
  if (got.t != want.t) return std::string("dtype ") + np_name(got.t) + ", want " + np_name(want.t);
  if (got.shape != want.shape) return "shape " + show_shape(got.shape) + ", want " + show_shape(want.shape);
  const double tol = got.t == DT::F32 ? kTol32 : kTol64;
  char buf[256];
  if (is_f(got.t)) {
    if (got.f.size() != want.f.size()) return "element count differs";
    for (std::size_t k = 0; k < got.f.size(); ++k) {
      const double g = got.f[k], w = want.f[k];
      if (std::isnan(g) && std::isnan(w)) continue;
      if (!(std::abs(g - w) <= tol * std::max(1.0, std::abs(w)))) {
        std::snprintf(buf, sizeof buf, "element %s: got %.17g, want %.17g (%s)", index_str(got.shape, k).c_str(), g, w,
                      np_name(got.t));
        return buf;
      }
    }
  } else {
    if (got.i.size() != want.i.size()) return "element count differs";
    for (std::size_t k = 0; k < got.i.size(); ++k) {
      if (got.i[k] != want.i[k]) {
        std::snprintf(buf, sizeof buf, "element %s: got %lld, want %lld (%s)", index_str(got.shape, k).c_str(),
                      static_cast<long long>(got.i[k]), static_cast<long long>(want.i[k]), np_name(got.t));
        return buf;
      }
    }
  }
  return "";
}

// The first checkpoint where `got` and `want` disagree ("" if none); *step is its step index.
std::string compare_runs(const std::vector<Snap>& got, const std::vector<Snap>& want, int* step) {
  for (std::size_t k = 0; k < std::max(got.size(), want.size()); ++k) {
    if (k >= got.size() || k >= want.size()) {
      *step = k < got.size() ? got[k].step : want[k].step;
      return "a different number of checkpoints";
    }
    std::string d = compare_snap(got[k], want[k]);
    if (!d.empty()) {
      *step = want[k].step >= 0 ? want[k].step : got[k].step;
      return "check at step " + std::to_string(*step) + ": " + d;
    }
  }
  return "";
}

struct Outcome {
  bool bad = false;
  int step = -1;  // the step of the first failing checkpoint
  std::string detail;
};

// Runs p fused and unfused and compares with the reference; the verdict is agreed by all ranks.
Outcome check_program(const Program& p, const std::vector<Snap>& ref, Totals& fused_totals, Totals& unfused_totals) {
  const auto fused = run_tessera(p, true, fused_totals);
  const auto unfused = run_tessera(p, false, unfused_totals);
  Outcome o;
  int s1 = -1, s2 = -1, s3 = -1;
  const std::string d1 = compare_runs(fused, ref, &s1), d2 = compare_runs(unfused, ref, &s2),
                    d3 = compare_runs(fused, unfused, &s3);
  const std::string fused_name = "fused (window " + std::to_string(p.window) + ")";
  if (!d1.empty()) o.detail += "  " + fused_name + " vs reference: " + d1 + "\n";
  if (!d2.empty()) o.detail += "  unfused vs reference: " + d2 + "\n";
  if (!d3.empty()) o.detail += "  " + fused_name + " vs unfused: " + d3 + "\n";
  int local[2] = {!o.detail.empty(), 0}, global[2] = {0, 0};
  MPI_Allreduce(local, global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  o.bad = global[0] != 0;
  if (!o.bad) return o;
  int steps[3] = {s1, s2, s3};
  o.step = -1;
  for (int s : steps)
    if (s >= 0) o.step = o.step < 0 ? s : std::min(o.step, s);
  // Every rank sees the same to_host() values; keep step decisions identical anyway.
  int mine = o.step < 0 ? std::numeric_limits<int>::max() : o.step, first = 0;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  o.step = first == std::numeric_limits<int>::max() ? -1 : first;
  return o;
}

// ------------------------------------------------------------------------------------------------
// Minimizing a failing program.

Expr* nth_node(Expr& e, int& n) {
  if (n-- == 0) return &e;
  for (auto& k : e.kids)
    if (Expr* x = nth_node(k, n)) return x;
  return nullptr;
}
int count_nodes(const Expr& e) {
  int n = 1;
  for (const auto& k : e.kids) n += count_nodes(k);
  return n;
}

void rename_slot(Expr& e, int from, int to) {
  if (e.op == Op::Leaf && e.slot == from) e.slot = to;
  for (auto& k : e.kids) rename_slot(k, from, to);
}

// Program p without its step k, an alias `vA = vB`, reading vB wherever vA was read until vA
// is bound again; false if the step is no such alias.
bool without_alias(const Program& p, std::size_t k, Program& q) {
  const Step& a = p.steps[k];
  const Expr* src = a.kind == SK::View ? &a.target : a.kind == SK::Bind ? &a.rhs : nullptr;
  if (!src || src->op != Op::Leaf || !src->sl.empty() || src->slot == a.dst) return false;
  const int from = a.dst, to = src->slot;
  q = p;
  q.steps.erase(q.steps.begin() + static_cast<std::ptrdiff_t>(k));
  for (std::size_t i = k; i < q.steps.size(); ++i) {
    Step& s = q.steps[i];
    rename_slot(s.rhs, from, to);
    rename_slot(s.target, from, to);
    rename_slot(s.fill, from, to);
    if (s.kind == SK::Check && s.dst == from) s.dst = to;
    const bool rebinds = s.kind == SK::Create || s.kind == SK::Bind || s.kind == SK::View || s.kind == SK::Drop;
    if (s.kind == SK::Swap || s.kind == SK::Move) {
      if (s.dst == from) s.dst = to;
      if (s.src == from) s.src = to;
    } else if (rebinds && s.dst == from) {
      break;
    }
  }
  return true;
}

struct Minimizer {
  int runs = 0;
  int max_runs = 500;
  std::string detail;

  // True if q (valid on the reference) still mismatches; q.window becomes the failing window.
  bool fails(Program& q) {
    if (runs >= max_runs || q.steps.empty() || q.steps.back().kind != SK::Check) return false;
    std::vector<Snap> ref;
    std::string why;
    if (!run_reference(q, ref, &why)) {
      if (std::getenv("TESSERA_FUZZ_DEBUG"))
        std::printf("[fuzz-min] %zu steps: invalid: %s\n", q.steps.size(), why.c_str());
      return false;  // not a valid program any more
    }
    // Fused results depend on where windows are cut, which moves as steps are dropped: a
    // candidate also counts as failing with a large window (cut only at checkpoints).
    for (const int w : {q.window, 256}) {
      if (w != q.window && q.window == 256) break;
      Program c = q;
      c.window = w;
      ++runs;
      Totals a, b;
      const Outcome o = check_program(c, ref, a, b);
      if (o.bad) {
        detail = o.detail;
        q.window = w;
        return true;
      }
    }
    if (std::getenv("TESSERA_FUZZ_DEBUG")) std::printf("[fuzz-min] %zu steps: passes\n", q.steps.size());
    return false;
  }

  Program run(Program p, int first_bad_step) {
    // 1. Stop at the first failing checkpoint; drop the other checkpoints.
    if (first_bad_step >= 0 && first_bad_step + 1 < static_cast<int>(p.steps.size())) {
      Program q = p;
      q.steps.resize(static_cast<std::size_t>(first_bad_step) + 1);
      if (fails(q)) p = q;
    }
    {
      Program q = p;
      q.steps.clear();
      for (std::size_t k = 0; k < p.steps.size(); ++k)
        if (p.steps[k].kind != SK::Check || k + 1 == p.steps.size()) q.steps.push_back(p.steps[k]);
      if (q.steps.size() < p.steps.size() && fails(q)) p = q;
    }
    // 2. Drop chunks of steps, halving the chunk size, from the end backwards (uses of a name
    //    go before its definition), until nothing more can go.
    for (std::size_t chunk = std::max<std::size_t>(1, p.steps.size() / 2);;
         chunk = std::max<std::size_t>(1, chunk / 2)) {
      bool progress = false;
      for (std::size_t i = p.steps.size() - 1; i-- > 0;) {
        if (i >= p.steps.size() - 1) continue;
        const std::size_t from = i + 1 >= chunk ? i + 1 - chunk : 0;
        Program q = p;
        q.steps.erase(q.steps.begin() + static_cast<std::ptrdiff_t>(from),
                      q.steps.begin() + static_cast<std::ptrdiff_t>(i + 1));
        if (fails(q)) {
          p = q;
          progress = true;
          i = std::min(from + 1, p.steps.size() - 1);
        }
      }
      if (chunk == 1 && !progress) break;
    }
    // 3. Replace subexpressions by one of their operands, views by whole arrays, generated data
    //    by ones; then drop single steps again.
    for (int round = 0; round < 2; ++round) {
      for (std::size_t k = 0; k < p.steps.size();) {
        Program alias;
        if (without_alias(p, k, alias) && fails(alias)) {
          p = alias;  // step k is gone: look at the new step k
          continue;
        }
        if (p.steps[k].kind == SK::Create && p.steps[k].how != How::Ones && p.steps[k].how != How::EmptyAssign) {
          Program q = p;
          q.steps[k].how = How::Ones;
          if (fails(q)) p = q;
        }
        for (int which = 0; which < 2; ++which) {
          auto root = [&](Program& x) -> Expr& { return which == 0 ? x.steps[k].rhs : x.steps[k].target; };
          for (int n = 0; n < count_nodes(root(p)); ++n) {
            int m = n;
            const Expr* at = nth_node(root(p), m);
            if (!at || at->op != Op::Leaf || at->sl.empty()) continue;
            Program q = p;
            int m2 = n;
            nth_node(root(q), m2)->sl.clear();
            if (fails(q)) p = q;
          }
        }
        ++k;
      }
      for (std::size_t k = 0; k < p.steps.size(); ++k) {
        for (int n = 0; n < count_nodes(p.steps[k].rhs); ++n) {
          bool progress = false;
          int m = n;
          Expr* at = nth_node(p.steps[k].rhs, m);
          if (!at) break;
          for (std::size_t j = 0; j < at->kids.size() && !progress; ++j) {
            Program q = p;
            int m2 = n;
            Expr* x = nth_node(q.steps[k].rhs, m2);
            Expr kid = x->kids[j];
            *x = kid;
            if (fails(q)) {
              p = q;
              progress = true;
            }
          }
          if (progress) n = -1;  // start over on this step
        }
      }
      bool progress = true;
      while (progress) {
        progress = false;
        for (std::size_t i = p.steps.size() - 1; i-- > 0;) {
          Program q = p;
          q.steps.erase(q.steps.begin() + static_cast<std::ptrdiff_t>(i));
          if (fails(q)) {
            p = q;
            progress = true;
          }
        }
      }
    }
    return p;
  }
};

std::string listing(const Program& p) {
  std::vector<Snap> snaps;
  std::vector<std::string> notes;
  std::string why;
  run_reference(p, snaps, &why, &notes);
  std::string out;
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    std::string line = "  [" + std::to_string(k) + "] " + show(p.steps[k]);
    if (k < notes.size() && !notes[k].empty()) line += "  // " + notes[k];
    out += line + "\n";
  }
  if (!why.empty()) out += "  (reference rejects: " + why + ")\n";
  return out;
}

std::optional<std::uint64_t> env_number(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 10);
  if (*end != '\0') throw std::invalid_argument(std::string(name) + "=" + v + ": expected a non-negative integer");
  return static_cast<std::uint64_t>(x);
}

}  // namespace

TEST(Fuzz, FusedUnfusedAndReferenceAgree) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto seed_env = env_number("TESSERA_FUZZ_SEED");
  const auto programs_env = env_number("TESSERA_FUZZ_PROGRAMS");
  const bool print = std::getenv("TESSERA_FUZZ_PRINT") != nullptr;
  const auto window_env = env_number("TESSERA_FUZZ_WINDOW");
  const std::uint64_t first_seed = seed_env ? *seed_env : 1;
  const std::uint64_t programs = programs_env ? *programs_env : seed_env ? 1 : 64;
  const std::int64_t target_ops = 300;  // per program (the reference's count)

  const double t0 = MPI_Wtime();
  Totals fused, unfused;
  std::int64_t checks = 0, steps = 0;
  int failures = 0;
  for (std::uint64_t k = 0; k < programs; ++k) {
    const std::uint64_t seed = first_seed + k;
    Program p = generate(seed, target_ops);
    if (window_env) p.window = static_cast<int>(*window_env);
    std::vector<Snap> ref;
    std::string why;
    ASSERT_TRUE(run_reference(p, ref, &why))
        << "seed " << seed << ": the generator produced an invalid program: " << why;
    checks += static_cast<std::int64_t>(ref.size());
    steps += static_cast<std::int64_t>(p.steps.size());
    if (print && rank == 0)
      std::printf("[fuzz] program seed=%llu\n%s", static_cast<unsigned long long>(seed), listing(p).c_str());
    const Outcome o = check_program(p, ref, fused, unfused);
    if (!o.bad) continue;
    ++failures;
    if (rank == 0) {
      std::printf("[fuzz] MISMATCH in program seed=%llu (replay: TESSERA_FUZZ_SEED=%llu), %zu steps:\n%s",
                  static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed), p.steps.size(),
                  o.detail.c_str());
      std::fflush(stdout);
    }
    std::string minimized = "(not minimized: only the first 2 failures are)";
    if (failures <= 2) {
      Minimizer m;
      const Program small = m.run(p, o.step);
      minimized = "minimized program (" + std::to_string(small.steps.size()) + " steps, " + std::to_string(m.runs) +
                  " runs; fused window " + std::to_string(small.window) + "):\n" + listing(small) +
                  "mismatch of the minimized program:\n" + (m.detail.empty() ? o.detail : m.detail);
    }
    ADD_FAILURE() << "fuzz mismatch in program seed " << seed << " (replay: TESSERA_FUZZ_SEED=" << seed << ")\n"
                  << o.detail << minimized;
  }
  const double elapsed = MPI_Wtime() - t0;
  if (rank == 0) {
    std::printf(
        "[fuzz] %llu programs (seeds %llu..%llu), %lld steps, %lld checkpoints, %d mismatching; %.1f s at np %d\n",
        static_cast<unsigned long long>(programs), static_cast<unsigned long long>(first_seed),
        static_cast<unsigned long long>(first_seed + programs - 1), static_cast<long long>(steps),
        static_cast<long long>(checks), failures, elapsed, size);
    std::printf("[fuzz] tessera, fused (rank 0):   %s\n", fused.str().c_str());
    std::printf("[fuzz] tessera, unfused (rank 0): %s\n", unfused.str().c_str());
  }
  if (!seed_env && !programs_env) {
    EXPECT_GE(fused.ops, 10000);
    EXPECT_GE(unfused.ops, 10000);
  }
}
