// The reference's arrays, expressions, reductions and steps (see reference.hpp).

#include "fuzz/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "support.hpp"

namespace fuzz {
namespace {

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

}  // namespace

std::size_t volume(const Shape& s) {
  std::size_t n = 1;
  for (auto x : s) n *= static_cast<std::size_t>(x);
  return n;
}

namespace {

// The type `x op y` computes in when x and y promote to t: true division and arctan2 of integers
// in floats, % of booleans in int32 (NumPy: int8, which tessera does not have).
DT binary_compute_type(Op op, DT t) {
  if (op == Op::Div) return is_f(t) ? t : DT::F64;
  if (op == Op::Atan2) return float_result(t);
  if (op == Op::Mod && t == DT::B) return DT::I32;
  return t;
}

// The type a unary op computes in: math functions in floats (bool: float32), square of booleans in
// int32 (NumPy: int8); the others in the operand's type (isnan and isfinite then give bools).
DT unary_compute_type(Op op, DT t) {
  switch (op) {
    case Op::Neg:
    case Op::Abs:
    case Op::Sign:
    case Op::Invert:
    case Op::IsNan:
    case Op::IsFinite: return t;
    case Op::Square: return t == DT::B ? DT::I32 : t;
    default: return float_result(t);
  }
}

// Operands that tessera does not compile (NumPy raises TypeError); "" if none.
std::string type_error(Op op, DT t) {
  if (is_bitwise(op) && is_f(t)) return "& | ^ ~ of floating operands (NumPy raises; tessera does not compile it)";
  if (op == Op::Sign && t == DT::B) return "sign of a bool array (NumPy raises; tessera does not compile it)";
  return "";
}

bool dyadic20(double x) { return std::abs(x) < 1e9 && std::floor(x * 1048576.0) == x * 1048576.0; }

RArr eval_strong(const Expr& e, const RState& st, Ctx& c) {
  RArr a = eval(e, st, c);
  if (a.weak) c.fail("a scalar where an array is needed");
  return a;
}

RArr reduce(const Expr& e, const RState& st, Ctx& c) {
  RArr a = eval_strong(e.kids[0], st, c);
  RArr b;
  if (e.op == Op::Vdot) {
    b = eval_strong(e.kids[1], st, c);
    if (c.ok() && a.shape != b.shape) c.fail("vdot of different shapes");
  }
  RArr out;
  out.v.resize(1);
  if (!c.ok()) return out;
  DT compute = a.t, result = a.t;
  switch (e.op) {
    case Op::Sum:
    case Op::Prod: result = sum_result(a.t); break;
    case Op::Mean: result = mean_result(a.t); break;
    case Op::Vdot: compute = result = promote(a.t, b.t); break;
    case Op::Norm: compute = result = mean_result(a.t); break;
    default: break;
  }
  out.t = result;
  const std::size_t n = a.v.size();
  std::vector<EV> terms(n);
  for (std::size_t k = 0; k < n; ++k) {
    EV x = cast(a.v[k], a.t, compute, c);
    if (e.op == Op::Vdot) {
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
    case Op::RMax: {
      f = kind_op == Op::RMin ? mn : mx;
      err = emax;
      // Which zero wins among +0 and -0 depends on the order the tiles are combined in: the
      // sign of such a zero is unknown (later sign-sensitive steps, e.g. arctan2, are rejected).
      bool plus = false, minus = false;
      for (const EV& x : terms)
        if (x.f == 0) (std::signbit(x.f) ? minus : plus) = true;
      if (f == 0 && plus && minus) err = std::max(err, 1e-300);
      break;
    }
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

}  // namespace

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
    const Op op = e.op;
    const DT t = binary_compute_type(op, result_of(a.t, a.weak, b.t, b.weak));
    if (!type_error(op, t).empty()) {
      c.fail(type_error(op, t));
      return out;
    }
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
    if (!type_error(e.op, a.t).empty()) {
      c.fail(type_error(e.op, a.t));
      return out;
    }
    const DT t = unary_compute_type(e.op, a.t);
    out.t = e.op == Op::IsNan || e.op == Op::IsFinite ? DT::B : t;
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
  if (e.op == Op::Clip) {  // minimum(maximum(a, lo), hi), each promoting as a binary op does
    RArr a = eval_strong(e.kids[0], st, c), lo = eval(e.kids[1], st, c), hi = eval(e.kids[2], st, c);
    if (!c.ok()) return out;
    const DT low = result_of(a.t, false, lo.t, lo.weak), t = result_of(low, false, hi.t, hi.weak);
    if (!common_shape({&a, &lo, &hi}, out.shape, c)) return out;
    out.t = t;
    const std::size_t n = volume(out.shape);
    for (std::size_t k = 0; k < n && c.ok(); ++k) {
      const EV m = binop(Op::Max, low, cast(at(a, k), a.t, low, c), cast(at(lo, k), lo.t, low, c), c);
      out.v.push_back(binop(Op::Min, t, cast(m, low, t, c), cast(at(hi, k), hi.t, t, c), c));
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

namespace {

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

}  // namespace

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
      const Op op = compound_op(s.cop);
      const DT t = binary_compute_type(op, result_of(T, false, r.t, r.weak));
      if (!type_error(op, t).empty()) return c.fail(type_error(op, t));
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

bool run_reference(const Program& p, std::vector<Snap>& snaps, std::string* why, std::vector<std::string>* notes) {
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

}  // namespace fuzz
