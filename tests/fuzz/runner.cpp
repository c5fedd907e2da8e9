#include "fuzz/runner.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

namespace fuzz {
namespace {

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

// An array of float or double, or a double literal: & | ^ ~ do not compile for such operands
// (NumPy raises), so the runner must not instantiate them (the reference never accepts them).
template <class X>
constexpr bool is_floating_operand() {
  using D = std::decay_t<X>;
  if constexpr (is_arr_v<D>)
    return std::is_floating_point_v<typename D::value_type>;
  else
    return std::is_floating_point_v<D>;
}

// f(a, b) for operands that & | ^ accept.
template <class F>
auto bitwise(F f) {
  return [f](const auto& a, const auto& b) -> AV {
    if constexpr (!is_floating_operand<decltype(a)>() && !is_floating_operand<decltype(b)>())
      return f(a, b);
    else
      throw std::logic_error("a bitwise op on a floating operand");
  };
}

ts::IndexEntry to_entry(const Sl& s) {
  if (s.kind == Sl::Int) return s.start;
  if (s.kind == Sl::NewAxis) return ts::newaxis;
  if (s.whole) return ts::all;
  if (s.to_end) return ts::slice(s.start, ts::end, s.step);
  return ts::slice(s.start, s.stop, s.step);
}

template <class T>
ts::Array<T> indexed(const ts::Array<T>& a, const std::vector<Sl>& sl) {
  std::vector<ts::IndexEntry> e;
  for (const Sl& s : sl) e.push_back(to_entry(s));
  switch (e.size()) {
    case 0: return a;
    case 1: return a(e[0]);
    case 2: return a(e[0], e[1]);
    case 3: return a(e[0], e[1], e[2]);
    case 4: return a(e[0], e[1], e[2], e[3]);
    case 5: return a(e[0], e[1], e[2], e[3], e[4]);
    default: return a(e[0], e[1], e[2], e[3], e[4], e[5]);
  }
}

// f(a) over everything, or f(a, axis, keepdims) along an axis.
template <class F>
auto reduction(const Expr& e, F f) {
  return [&e, f](const auto& a) -> AV {
    if (e.along) return f(a, e.axis, e.keepdims);
    return f(a);
  };
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
                case '/': h /= x; break;
                case '%': h %= x; break;
                default:
                  if constexpr (!is_floating_operand<decltype(t)>() && !is_floating_operand<decltype(x)>()) {
                    if (cop == '&') h &= x;
                    if (cop == '|') h |= x;
                    if (cop == '^') h ^= x;
                  } else {
                    throw std::logic_error("a bitwise compound assignment with a floating operand");
                  }
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
  Runner(ts::Runtime& rt, const Csr& a) : rt_(rt), a_(a) {}

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
      case Op::Leaf: return std::visit([&](const auto& a) -> AV { return indexed(a, e.sl); }, *slots_[e.slot]);
      case Op::IntLit:
      case Op::FloatLit: throw std::logic_error("a literal where an array is needed");
      case Op::Add: return binary(e, [](const auto& a, const auto& b) { return a + b; });
      case Op::Sub: return binary(e, [](const auto& a, const auto& b) { return a - b; });
      case Op::Mul: return binary(e, [](const auto& a, const auto& b) { return a * b; });
      case Op::Div: return binary(e, [](const auto& a, const auto& b) { return a / b; });
      case Op::Pow: return binary(e, [](const auto& a, const auto& b) { return ts::pow(a, b); });
      case Op::Max: return binary(e, [](const auto& a, const auto& b) { return ts::maximum(a, b); });
      case Op::Min: return binary(e, [](const auto& a, const auto& b) { return ts::minimum(a, b); });
      case Op::Mod: return binary(e, [](const auto& a, const auto& b) { return a % b; });
      case Op::BitAnd: return binary(e, bitwise([](const auto& a, const auto& b) { return a & b; }));
      case Op::BitOr: return binary(e, bitwise([](const auto& a, const auto& b) { return a | b; }));
      case Op::BitXor: return binary(e, bitwise([](const auto& a, const auto& b) { return a ^ b; }));
      case Op::Atan2: return binary(e, [](const auto& a, const auto& b) { return ts::arctan2(a, b); });
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
      case Op::Floor: return unary(e, [](const auto& a) { return ts::floor(a); });
      case Op::Ceil: return unary(e, [](const auto& a) { return ts::ceil(a); });
      case Op::Tan: return unary(e, [](const auto& a) { return ts::tan(a); });
      case Op::Square: return unary(e, [](const auto& a) { return ts::square(a); });
      case Op::IsNan: return unary(e, [](const auto& a) { return ts::isnan(a); });
      case Op::IsFinite: return unary(e, [](const auto& a) { return ts::isfinite(a); });
      case Op::Sign:
        return unary(e, [](const auto& a) -> AV {
          if constexpr (!std::is_same_v<typename std::decay_t<decltype(a)>::value_type, bool>)
            return ts::sign(a);
          else
            throw std::logic_error("sign of a bool array");
        });
      case Op::Invert:
        return unary(e, [](const auto& a) -> AV {
          if constexpr (!is_floating_operand<decltype(a)>())
            return ~a;
          else
            throw std::logic_error("~ of a floating array");
        });
      case Op::Where: {
        const AV c = eval(e.kids[0]);
        const OV x = operand(e.kids[1]), y = operand(e.kids[2]);
        return std::visit([](const auto& cc, const auto& xx, const auto& yy) -> AV { return ts::where(cc, xx, yy); }, c,
                          x, y);
      }
      case Op::Clip: {
        const AV a = eval(e.kids[0]);
        const OV lo = operand(e.kids[1]), hi = operand(e.kids[2]);
        return std::visit([](const auto& x, const auto& l, const auto& h) -> AV { return ts::clip(x, l, h); }, a, lo,
                          hi);
      }
      case Op::Astype: {
        const AV a = eval(e.kids[0]);
        return with_type(e.to, [&](auto tag) -> AV {
          using U = typename decltype(tag)::type;
          return std::visit([](const auto& x) -> AV { return x.template astype<U>(); }, a);
        });
      }
      case Op::Copy: return unary(e, [](const auto& a) { return ts::copy(a); });
      case Op::Sum: return unary(e, reduction(e, [](const auto&... x) { return ts::sum(x...); }));
      case Op::Prod: return unary(e, reduction(e, [](const auto&... x) { return ts::prod(x...); }));
      case Op::RMin: return unary(e, reduction(e, [](const auto&... x) { return ts::min(x...); }));
      case Op::RMax: return unary(e, reduction(e, [](const auto&... x) { return ts::max(x...); }));
      case Op::Mean: return unary(e, reduction(e, [](const auto&... x) { return ts::mean(x...); }));
      case Op::ArgMin: return unary(e, reduction(e, [](const auto&... x) { return ts::argmin(x...); }));
      case Op::ArgMax: return unary(e, reduction(e, [](const auto&... x) { return ts::argmax(x...); }));
      case Op::CountNonzero: return unary(e, reduction(e, [](const auto&... x) { return ts::count_nonzero(x...); }));
      case Op::Norm: return unary(e, [](const auto& a) { return ts::norm(a); });
      case Op::Vdot: {
        const AV a = eval(e.kids[0]), b = eval(e.kids[1]);
        return std::visit([](const auto& x, const auto& y) -> AV { return ts::vdot(x, y); }, a, b);
      }
      case Op::Transpose: {
        const std::vector<int> axes(e.dims.begin(), e.dims.end());
        return unary(e, [&](const auto& a) { return ts::transpose(a, axes); });
      }
      case Op::Roll: return unary(e, [&](const auto& a) { return ts::roll(a, e.ival, e.axis); });
      case Op::Reshape: return unary(e, [&](const auto& a) { return ts::reshape(a, e.dims); });
      case Op::Concat:
      case Op::HStack:
      case Op::VStack: return stack(e);
      case Op::Bincount: return bincount(e);
      case Op::MatMul: return matmul(e);
      case Op::SpMV: {
        const AV x = eval(e.kids[0]);
        if (!std::holds_alternative<ts::Array<double>>(x)) throw std::logic_error("an SpMV of a non-float64 vector");
        return ts::matmul(matrix(), std::get<ts::Array<double>>(x));
      }
    }
    throw std::logic_error("unknown expression");
  }

  // ts::bincount of an integer or bool x (the reference accepts no other), weighted or not.
  AV bincount(const Expr& e) {
    const AV x = eval(e.kids[0]);
    if (e.kids.size() == 1)
      return std::visit(
          [&](const auto& a) -> AV {
            if constexpr (!is_floating_operand<decltype(a)>())
              return ts::bincount(a, e.ival);
            else
              throw std::logic_error("a bincount of a floating array");
          },
          x);
    const AV w = eval(e.kids[1]);
    return std::visit(
        [&](const auto& a, const auto& b) -> AV {
          if constexpr (!is_floating_operand<decltype(a)>())
            return ts::bincount(a, b, e.ival);
          else
            throw std::logic_error("a bincount of a floating array");
        },
        x, w);
  }

  // ts::matmul of two arrays whose product is float64 (the reference accepts no other).
  AV matmul(const Expr& e) {
    const AV a = eval(e.kids[0]), b = eval(e.kids[1]);
    return std::visit(
        [](const auto& x, const auto& y) -> AV {
          using R = typename decltype(ts::matmul(x, y))::value_type;
          if constexpr (std::is_same_v<R, double>)
            return ts::matmul(x, y);
          else
            throw std::logic_error("a product that is not float64");
        },
        a, b);
  }

  // The program's sparse matrix, made at its first SpMV (a collective: every rank gets there).
  const ts::CsrMatrix<double>& matrix() {
    if (!csr_) {
      if (a_.rows == 0) throw std::logic_error("an SpMV in a program without a sparse matrix");
      csr_ = ts::csr_from_host<double>({a_.rows, a_.cols}, a_.indptr, a_.indices, a_.values);
    }
    return *csr_;
  }

  // concatenate, hstack or vstack of arrays of one element type (the reference accepts no other).
  AV stack(const Expr& e) {
    std::vector<AV> kids;
    for (const Expr& k : e.kids) kids.push_back(eval(k));
    return std::visit(
        [&](const auto& first) -> AV {
          using A = std::decay_t<decltype(first)>;
          std::vector<A> arrays;
          for (const AV& k : kids) {
            if (!std::holds_alternative<A>(k)) throw std::logic_error("stacking arrays of different types");
            arrays.push_back(std::get<A>(k));
          }
          if (e.op == Op::HStack) return ts::hstack(arrays);
          if (e.op == Op::VStack) return ts::vstack(arrays);
          return ts::concatenate(arrays, e.axis);
        },
        kids[0]);
  }

  ts::Runtime& rt_;
  const Csr& a_;
  std::optional<ts::CsrMatrix<double>> csr_;
  std::vector<std::optional<AV>> slots_ = std::vector<std::optional<AV>>(kSlots);
};

}  // namespace

namespace {

// Whether any rank threw at this step; if so, the message of the first rank that did, on every
// rank. tessera's errors are raised on every rank alike, but a bug may raise one on some ranks
// only: agreeing after every step keeps the ranks in step (no divergence abort), so such a
// program is reported and minimized like any mismatch.
bool agree_on_error(const std::string& mine, bool threw, std::string& message) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int me = threw ? rank : size;
  int first = size;
  MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return false;
  int length = static_cast<int>(mine.size());
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  std::string text = rank == first ? mine : std::string(static_cast<std::size_t>(length), ' ');
  MPI_Bcast(text.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  message = size > 1 ? "on rank " + std::to_string(first) + " of " + std::to_string(size) + ": " + text : text;
  return true;
}

}  // namespace

std::vector<Snap> run_tessera(const Program& p, bool fused, Totals& totals) {
  ts::Config cfg;
  cfg.fusion = fused;
  if (fused) cfg.window = p.window;
  // Half the programs run their matvecs as reduction programs (whose consumers fuse as epilogues),
  // half through BLAS: both of a program's runs the same way.
  cfg.matvec = p.seed % 2 ? "generated" : "blas";
  int argc = 0;
  char** argv = nullptr;
  ts::Runtime rt(argc, argv, cfg);
  std::vector<Snap> snaps;
  {
    Runner run(rt, p.csr);
    for (std::size_t k = 0; k <= p.steps.size(); ++k) {  // the last: the final flush
      std::string mine, message;
      bool threw = false;
      try {
        if (k < p.steps.size())
          run.step(p.steps[k], static_cast<int>(k), snaps);
        else
          rt.flush();
      } catch (const std::exception& e) {
        threw = true;
        mine = e.what();
        if (std::getenv("TESSERA_FUZZ_DEBUG"))
          std::printf("[fuzz-debug] rank %d at step %zu: %s\n", rt.rank(), k, e.what());
      }
      if (agree_on_error(mine, threw, message)) {
        Snap s;
        s.step = static_cast<int>(k);
        s.error = "threw at step " + std::to_string(k) + " " + message;
        snaps.push_back(s);
        break;
      }
    }
  }
  totals.add(rt.stats());
  return snaps;
}

namespace {

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

}  // namespace

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

}  // namespace fuzz
