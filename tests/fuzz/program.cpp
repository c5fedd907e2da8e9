#include "fuzz/program.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "fuzz/rng.hpp"

namespace fuzz {

Expr leaf(int slot, std::vector<Sl> sl) {
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

Expr along(Op reduction, Expr k, int axis, bool keepdims) {
  Expr e = node(reduction, {std::move(k)});
  e.along = true;
  e.axis = axis;
  e.keepdims = keepdims;
  return e;
}

Step bind_to(int dst, Expr rhs) {
  Step s;
  s.kind = SK::Bind;
  s.dst = dst;
  s.rhs = std::move(rhs);
  return s;
}

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

namespace {

std::string show_entry(const Sl& e) {
  if (e.kind == Sl::Int) return std::to_string(e.start);
  if (e.kind == Sl::NewAxis) return "ts::newaxis";
  if (e.whole) return "ts::all";
  const std::string stop = e.to_end ? "ts::end" : std::to_string(e.stop);
  const std::string step = e.step != 1 ? ", " + std::to_string(e.step) : "";
  return "ts::slice(" + std::to_string(e.start) + ", " + stop + step + ")";
}

std::string show_entries(const std::vector<Sl>& sl) {
  std::string s;
  for (std::size_t d = 0; d < sl.size(); ++d) s += (d ? ", " : "") + show_entry(sl[d]);
  return s;
}

// ts::sum(x) or ts::sum(x, axis[, true]).
std::string show_reduction(const char* name, const Expr& e) {
  std::string s = std::string("ts::") + name + "(" + show(e.kids[0]);
  if (e.along) s += ", " + std::to_string(e.axis) + (e.keepdims ? ", true" : "");
  return s + ")";
}

std::string show_stack(const char* name, const Expr& e, bool with_axis) {
  std::string s = std::string("ts::") + name + "({";
  for (std::size_t k = 0; k < e.kids.size(); ++k) s += (k ? ", " : "") + show(e.kids[k]);
  return s + "}" + (with_axis ? ", " + std::to_string(e.axis) : "") + ")";
}

}  // namespace

std::string show(const Expr& e) {
  auto k = [&](int i) { return show(e.kids[static_cast<std::size_t>(i)]); };
  switch (e.op) {
    case Op::Leaf: return "v" + std::to_string(e.slot) + (e.sl.empty() ? "" : "(" + show_entries(e.sl) + ")");
    case Op::IntLit: return std::to_string(e.ival);
    case Op::FloatLit: return fmt_double(e.fval);
    case Op::Add: return "(" + k(0) + " + " + k(1) + ")";
    case Op::Sub: return "(" + k(0) + " - " + k(1) + ")";
    case Op::Mul: return "(" + k(0) + " * " + k(1) + ")";
    case Op::Div: return "(" + k(0) + " / " + k(1) + ")";
    case Op::Pow: return "ts::pow(" + k(0) + ", " + k(1) + ")";
    case Op::Max: return "ts::maximum(" + k(0) + ", " + k(1) + ")";
    case Op::Min: return "ts::minimum(" + k(0) + ", " + k(1) + ")";
    case Op::Mod: return "(" + k(0) + " % " + k(1) + ")";
    case Op::BitAnd: return "(" + k(0) + " & " + k(1) + ")";
    case Op::BitOr: return "(" + k(0) + " | " + k(1) + ")";
    case Op::BitXor: return "(" + k(0) + " ^ " + k(1) + ")";
    case Op::Atan2: return "ts::arctan2(" + k(0) + ", " + k(1) + ")";
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
    case Op::Floor: return "ts::floor(" + k(0) + ")";
    case Op::Ceil: return "ts::ceil(" + k(0) + ")";
    case Op::Tan: return "ts::tan(" + k(0) + ")";
    case Op::Sign: return "ts::sign(" + k(0) + ")";
    case Op::Square: return "ts::square(" + k(0) + ")";
    case Op::Invert: return "(~" + k(0) + ")";
    case Op::IsNan: return "ts::isnan(" + k(0) + ")";
    case Op::IsFinite: return "ts::isfinite(" + k(0) + ")";
    case Op::Clip: return "ts::clip(" + k(0) + ", " + k(1) + ", " + k(2) + ")";
    case Op::Where: return "ts::where(" + k(0) + ", " + k(1) + ", " + k(2) + ")";
    case Op::Astype: return k(0) + ".astype<" + cpp_name(e.to) + ">()";
    case Op::Copy: return "ts::copy(" + k(0) + ")";
    case Op::Sum: return show_reduction("sum", e);
    case Op::Prod: return show_reduction("prod", e);
    case Op::RMin: return show_reduction("min", e);
    case Op::RMax: return show_reduction("max", e);
    case Op::Mean: return show_reduction("mean", e);
    case Op::ArgMin: return show_reduction("argmin", e);
    case Op::ArgMax: return show_reduction("argmax", e);
    case Op::CountNonzero: return show_reduction("count_nonzero", e);
    case Op::Vdot: return "ts::vdot(" + k(0) + ", " + k(1) + ")";
    case Op::Norm: return "ts::norm(" + k(0) + ")";
    case Op::Transpose: return "ts::transpose(" + k(0) + (e.dims.empty() ? "" : ", " + show_shape(e.dims)) + ")";
    case Op::Roll: return "ts::roll(" + k(0) + ", " + std::to_string(e.ival) + ", " + std::to_string(e.axis) + ")";
    case Op::Concat: return show_stack("concatenate", e, true);
    case Op::HStack: return show_stack("hstack", e, false);
    case Op::VStack: return show_stack("vstack", e, false);
    case Op::Reshape: return "ts::reshape(" + k(0) + ", " + show_shape(e.dims) + ")";
    case Op::MatMul: return "ts::matmul(" + k(0) + ", " + k(1) + ")";
    case Op::SpMV: return "ts::matmul(A, " + k(0) + ")";
    case Op::Bincount:
      return "ts::bincount(" + k(0) + (e.kids.size() > 1 ? ", " + k(1) : std::string()) + ", " +
             std::to_string(e.ival) + ")";
  }
  return "?";
}

std::string show_shape(const Shape& s) {
  std::string out = "{";
  for (std::size_t d = 0; d < s.size(); ++d) out += (d ? ", " : "") + std::to_string(s[d]);
  return out + "}";
}

std::string show(const Csr& a) {
  std::string ptr, idx, val;
  for (std::size_t k = 0; k < a.indptr.size(); ++k) ptr += (k ? ", " : "") + std::to_string(a.indptr[k]);
  for (std::size_t k = 0; k < a.indices.size(); ++k) idx += (k ? ", " : "") + std::to_string(a.indices[k]);
  for (std::size_t k = 0; k < a.values.size(); ++k) val += (k ? ", " : "") + fmt_double(a.values[k]);
  return "A = ts::csr_from_host<double>(" + show_shape({a.rows, a.cols}) + ", {" + ptr + "}, {" + idx + "}, {" + val +
         "});";
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

}  // namespace fuzz
