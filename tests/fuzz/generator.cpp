#include "fuzz/generator.hpp"

#include <algorithm>
#include <cmath>

#include "fuzz/reference.hpp"
#include "fuzz/rng.hpp"

namespace fuzz {
namespace {

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
    static const Op reds[] = {Op::Sum, Op::Prod, Op::RMin, Op::RMax, Op::Mean, Op::Vdot, Op::Norm};
    for (int attempt = 0; attempt < 4; ++attempt) {
      const Op op = reds[r.below(7)];
      Expr a = r.chance(0.6) ? leaf_for(S, k) : gen(S, 1, k);
      Expr e;
      if (op == Op::Vdot)
        e = node(Op::Vdot, {a, r.chance(0.6) ? leaf_for(S, k) : gen(S, 1, k)});
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
    switch (r.below(20)) {
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
      case 11: return node(Op::Copy, {k});
      case 12:
      case 13: {  // floor(k * 2.5), ceil(k): steps that an approximate k must not sit on
        const Expr x = r.chance(0.5) ? node(Op::Mul, {k, float_lit(r.pick(std::vector<double>{0.5, 1.5, 2.5}))}) : k;
        return node(r.chance(0.5) ? Op::Floor : Op::Ceil, {x});
      }
      case 14: return node(Op::Tan, {r.chance(0.5) ? node(Op::Tanh, {k}) : k});
      case 15: return node(Op::Sign, {t == DT::B ? astype(k, DT::I32) : k});  // sign(bool) does not compile
      case 16: return node(Op::Square, {k});
      case 17:  // ~ of integers and bools; of a float, of a comparison
        return node(Op::Invert, {is_f(t) ? node(Op::Gt, {k, literal_for(t)}) : k});
      case 18: {  // isnan/isfinite, often cleaning up a deliberate NaN
        const Op test = r.chance(0.5) ? Op::IsNan : Op::IsFinite;
        if (is_f(t) && r.chance(0.6)) {
          const Expr maybe_nan = r.chance(0.5) ? node(Op::Max, {k, float_lit(std::nan(""))}) : k;
          return node(Op::Where, {node(test, {maybe_nan}), literal_for(t), k});
        }
        return node(test, {k});
      }
      default: {  // clip(k, lo, hi): literals, arrays or 0-d arrays as bounds; rarely a NaN bound
        auto bound = [&] {
          if (is_f(t) && r.chance(0.04)) return float_lit(std::nan(""));
          const int w = r.weighted({5, 2, 1});
          return w == 0 ? literal_for(t) : w == 1 ? gen(S, depth - 1, anchor) : scalar_operand();
        };
        Expr lo = bound();
        Expr hi = bound();
        return node(Op::Clip, {k, lo, hi});
      }
    }
  }

  Expr gen_binary(const Shape& S, int depth, int anchor) {
    Expr a = gen(S, depth - 1, anchor);
    const DT ta = type(a);
    static const Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min, Op::Pow};
    const int w = r.weighted({4, 3, 3, 2, 1.5, 1.5, 1.5, 2.5, 1.5, 1.5, 0.8});
    Op op = w < 7    ? ops[w]
            : w == 7 ? static_cast<Op>(static_cast<int>(Op::Eq) + r.below(6))
            : w == 8 ? Op::Mod
            : w == 9 ? r.pick(std::vector<Op>{Op::BitAnd, Op::BitOr, Op::BitXor})
                     : Op::Atan2;
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
    // Floating divisors must not be 0; integers may (x % 0 is 0, as NumPy).
    const bool floating_mod = op == Op::Mod && (is_f(ta) || is_f(type(b)) || b.op == Op::FloatLit);
    if (op == Op::Div || floating_mod) {
      if (b.op == Op::IntLit && b.ival == 0) b = int_lit(2);
      if (b.op == Op::FloatLit && b.fval == 0) b = float_lit(2);
      if (b.op != Op::IntLit && b.op != Op::FloatLit && r.chance(0.6))
        b = node(Op::Add, {node(Op::Abs, {b}), int_lit(1)});
    }
    if (is_bitwise(op)) {  // bool and integer operands only: floats become int32 (or bool)
      const DT to = ta == DT::B && r.chance(0.6) ? DT::B : DT::I32;
      if (is_f(ta)) a = astype(a, to);
      if (b.op == Op::FloatLit)
        b = int_literal();
      else if (b.op != Op::IntLit && is_f(type(b)))
        b = astype(b, to);
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
        s.cop = "+*&|^"[r.weighted({2, 2, 1, 1, 1})];
      else if (!is_f(T))
        s.cop = "+-*%&|^"[r.weighted({3, 3, 3, 1.5, 1, 1, 1})];
      else
        s.cop = "+-*/%"[r.weighted({3, 3, 2, 1, 1})];
      const bool literal = s.rhs.op == Op::IntLit || s.rhs.op == Op::FloatLit;
      const bool divides = s.cop == '/' || (s.cop == '%' && is_f(T));  // by a floating 0: inf or NaN
      if (divides && !literal) s.rhs = node(Op::Add, {node(Op::Abs, {s.rhs}), int_lit(1)});
      if (divides && ((s.rhs.op == Op::IntLit && s.rhs.ival == 0) || (s.rhs.op == Op::FloatLit && s.rhs.fval == 0)))
        s.rhs = int_lit(2);
      if (is_bitwise(compound_op(s.cop))) {  // same_kind: a bool target takes bools, an integer one no floats
        if (T == DT::B && literal)
          s.rhs = node(Op::Gt, {leaf(s.target.slot, s.target.sl), int_lit(0)});  // v |= v > 0
        else if (s.rhs.op == Op::FloatLit)
          s.rhs = int_literal();
        else if (!literal && (T == DT::B ? type(s.rhs) != DT::B : is_f(type(s.rhs))))
          s.rhs = astype(s.rhs, T == DT::B ? DT::B : DT::I32);
      }
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
      case 2: {  // alpha = vdot(a, b) / (norm(a) * norm(b) + 1.0); y += alpha * z
        Shape S;
        const int k = domain(S);
        Step a;
        a.kind = SK::Bind;
        a.dst = pick_dst();
        Expr p = leaf_for(S, k), q = leaf_for(S, k);
        a.rhs =
            node(Op::Div, {node(Op::Vdot, {p, q}),
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

}  // namespace

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

}  // namespace fuzz
