// The reference's expressions and steps (see reference.hpp).

#include "fuzz/reference.hpp"

#include <algorithm>
#include <cmath>

namespace fuzz {
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

RArr eval_strong(const Expr& e, const RState& st, Ctx& c) {
  RArr a = eval(e, st, c);
  if (a.weak) c.fail("a scalar where an array is needed");
  return a;
}

// Each operand's element for each element of the broadcast shape `to`.
struct Reader {
  const RArr& a;
  std::vector<std::size_t> from;
  Reader(const RArr& x, const Shape& to) : a(x), from(broadcast_index(x.weak ? Shape{} : x.shape, to)) {}
  const EV& operator[](std::size_t k) const { return a.v[from[k]]; }
};

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
  if (is_reduction(e.op)) {
    const RArr a = eval_strong(e.kids[0], st, c);
    const RArr b = e.op == Op::Vdot ? eval_strong(e.kids[1], st, c) : RArr{};
    if (!c.ok()) return out;
    return reduce(e, a, e.op == Op::Vdot ? &b : nullptr, c);
  }
  if (e.op == Op::Bincount) {
    const RArr x = eval_strong(e.kids[0], st, c);
    const RArr w = e.kids.size() > 1 ? eval_strong(e.kids[1], st, c) : RArr{};
    if (!c.ok()) return out;
    return bincount(e, x, e.kids.size() > 1 ? &w : nullptr, c);
  }
  if (is_product(e.op)) {
    // A product is a task that moves its operands (redistributions, a sum across the grid): it
    // counts as four ops toward a program's size, so that programs with products cost about
    // what programs without them do.
    c.ops += 3;
    std::vector<RArr> kids;
    for (const Expr& k : e.kids) kids.push_back(eval_strong(k, st, c));
    if (!c.ok()) return out;
    return product(e, kids, st.csr, c);
  }
  if (is_shape_op(e.op)) {
    std::vector<RArr> kids;
    for (const Expr& k : e.kids) kids.push_back(eval(k, st, c));
    if (!c.ok()) return out;
    return shape_op(e, kids, c);
  }
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
    if (!broadcast_shape({&a, &b}, out.shape, c)) return out;
    out.t = is_compare(op) ? DT::B : t;
    const Reader ra(a, out.shape), rb(b, out.shape);
    for (std::size_t k = 0; k < volume(out.shape) && c.ok(); ++k) {
      EV x = cast(ra[k], a.t, t, c), y = cast(rb[k], b.t, t, c);
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
    if (!broadcast_shape({&cond, &x, &y}, out.shape, c)) return out;
    out.t = t;
    const Reader rc(cond, out.shape), rx(x, out.shape), ry(y, out.shape);
    for (std::size_t k = 0; k < volume(out.shape) && c.ok(); ++k) {
      const EV m = cast(rc[k], cond.t, DT::B, c);
      out.v.push_back(m.i ? cast(rx[k], x.t, t, c) : cast(ry[k], y.t, t, c));
    }
    return out;
  }
  if (e.op == Op::Clip) {  // minimum(maximum(a, lo), hi), each promoting as a binary op does
    RArr a = eval_strong(e.kids[0], st, c), lo = eval(e.kids[1], st, c), hi = eval(e.kids[2], st, c);
    if (!c.ok()) return out;
    const DT low = result_of(a.t, false, lo.t, lo.weak), t = result_of(low, false, hi.t, hi.weak);
    if (!broadcast_shape({&a, &lo, &hi}, out.shape, c)) return out;
    out.t = t;
    const Reader ra(a, out.shape), rlo(lo, out.shape), rhi(hi, out.shape);
    for (std::size_t k = 0; k < volume(out.shape) && c.ok(); ++k) {
      const EV m = binop(Op::Max, low, cast(ra[k], a.t, low, c), cast(rlo[k], lo.t, low, c), c);
      out.v.push_back(binop(Op::Min, t, cast(m, low, t, c), cast(rhi[k], hi.t, t, c), c));
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

void bind_new(RState& st, int dst, RArr value, Ctx& c) {
  auto b = std::make_shared<Base>();
  b->t = value.t;
  b->shape = value.shape;
  b->v = std::move(value.v);
  check_budget(*b, c);
  st.slots[dst] = whole(b);
}

}  // namespace

// Applies one step to the reference state; c.reject says why it is not acceptable.
void apply_step(RState& st, const Step& s, int index, Ctx& c, std::vector<Snap>* snaps) {
  if (s.dst >= kSlots) return c.fail("bad slot");
  switch (s.kind) {
    case SK::Create: {
      if (s.shape.empty()) return c.fail("creating a 0-d array (tessera's arrays have 1 to 3 dimensions)");
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
          auto b = std::make_shared<Base>();
          b->t = s.t;
          b->shape = s.shape;
          b->v.resize(n);
          write_view(whole(b), r, c);
          v.v = b->v;
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
      Shape shape;
      broadcast_shape({&cur, &r}, shape, c);
      if (!c.ok()) return;
      if (shape != cur.shape) return c.fail("an in-place op whose result has another shape than the target");
      RArr res;
      res.t = t;
      res.shape = cur.shape;
      const Reader rr(r, shape);
      for (std::size_t k = 0; k < cur.v.size() && c.ok(); ++k)
        res.v.push_back(binop(op, t, cast(cur.v[k], T, t, c), cast(rr[k], r.t, t, c), c));
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
  if (p.csr.rows > 0) st.csr = &p.csr;
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
