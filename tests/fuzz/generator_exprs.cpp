// The generator's expressions: literals, 0-d operands, unary and binary operations, where, clip,
// casts, axis reductions, shape operations and (generator_products.cpp) products, over views of a
// launch-domain shape (see gen.hpp).

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fuzz/gen.hpp"

namespace fuzz {

const std::vector<double> kFloatLits = {0.5, -0.25, 2.0, 1.5, -3.0, 0.1, 0.2, 0.75, -1.0, 3.25, 1e-3};

Expr Gen::int_literal() {
  if (r.chance(0.04))  // large (still int32) values: int32 products wrap around, as in NumPy
    return int_lit(r.pick(std::vector<std::int64_t>{65537, -1000003, 46341, 2147483647}));
  return int_lit(r.below(9) - 3);
}

Expr Gen::literal_for(DT t) {
  if (is_f(t)) return r.chance(0.75) ? float_literal() : int_literal();
  return r.chance(0.85) ? int_literal() : float_literal();
}

Expr Gen::scalar_operand() {
  const auto sc = scalars();
  const int w = r.weighted({sc.empty() ? 0.0 : 4.5, 1.2, 6});
  if (w == 0) return leaf(r.pick(sc));
  if (w == 1) return leaf_for({}, -1);  // a 0-d view of an array: v0(3, -1)
  Shape S;
  const int k = domain(S);
  static const Op reds[] = {Op::Sum,  Op::Prod, Op::RMin,   Op::RMax,   Op::Mean,
                            Op::Vdot, Op::Norm, Op::ArgMin, Op::ArgMax, Op::CountNonzero};
  for (int attempt = 0; attempt < 4; ++attempt) {
    const Op op = reds[r.weighted({1, 1, 1, 1, 1, 1, 1, 0.5, 0.5, 0.4})];
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

Expr Gen::gen_unary(const Shape& S, int depth, int anchor) {
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

Expr Gen::gen_binary(const Shape& S, int depth, int anchor) {
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

Expr Gen::gen_where(const Shape& S, int depth, int anchor) {
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

namespace {

// The extents of the live arrays (and their halves): axis lengths that views can give.
std::vector<std::int64_t> extents(const Gen& g) {
  std::vector<std::int64_t> out;
  for (int k : g.arrays())
    for (std::int64_t e : g.shape_of(k)) {
      out.push_back(e);
      if (e >= 3) out.push_back((e + 1) / 2);
    }
  return out;
}

}  // namespace

Expr Gen::gen_axis_reduction(const Shape& S, int depth, int anchor) {
  // Along an axis inserted into S, or (keepdims) along one of S's own axes, often of its own
  // extent: x - mean(x, 1, true). The operand's shape is one that some array can be viewed as.
  static const Op ops[] = {Op::Sum, Op::Prod, Op::RMin, Op::RMax, Op::Mean, Op::ArgMin, Op::ArgMax, Op::CountNonzero};
  const Op op = ops[r.weighted({3, 1, 1.5, 1.5, 2, 1, 1, 0.8})];
  const int nd = static_cast<int>(S.size());
  bool keep = false, found = false;
  int a = 0;
  Shape in;
  for (int attempt = 0; attempt < 6 && !found; ++attempt) {
    keep = nd == 3 || (nd > 0 && r.chance(0.4));
    a = r.below(keep ? nd : nd + 1);
    in = S;
    const std::int64_t m = keep && r.chance(0.5) ? S[a] : r.pick(extents(*this));
    if (keep)
      in[a] = m;
    else
      in.insert(in.begin() + a, m);
    for (int k : arrays()) found = found || view_as_exists(k, in);
  }
  if (!found) return leaf_for(S, anchor);
  Expr x = r.chance(0.5) ? leaf_for(in, anchor, true) : gen_exact(in, depth - 1, anchor);
  if (op == Op::Prod && r.chance(0.6))  // a product of small values
    x = node(Op::Add, {node(Op::Mul, {float_lit(0.1), node(Op::Tanh, {x})}), float_lit(1.0)});
  const int axis = r.chance(0.3) ? a - static_cast<int>(in.size()) : a;
  return along(op, x, axis, keep);
}

Expr Gen::gen_shape_op(const Shape& S, int depth, int anchor) {
  const int nd = static_cast<int>(S.size());
  if (nd == 0) return leaf_for(S, anchor);
  auto spell = [&](int axis) { return r.chance(0.3) ? axis - nd : axis; };  // negative axes too
  switch (r.weighted({nd >= 2 ? 3.0 : 0.0, 3, 3, 0.4})) {
    case 0: {  // transpose, reversed or by a permutation
      std::vector<std::int64_t> perm(static_cast<std::size_t>(nd));
      std::iota(perm.begin(), perm.end(), 0);
      const bool reversed = r.chance(0.4);
      if (reversed)
        std::reverse(perm.begin(), perm.end());
      else
        for (int d = nd - 1; d > 0; --d) std::swap(perm[d], perm[r.below(d + 1)]);
      Shape in(S.size());
      for (int d = 0; d < nd; ++d) in[perm[d]] = S[d];
      Expr e = node(Op::Transpose, {gen_exact(in, depth - 1, anchor)});
      if (!reversed)
        for (std::int64_t p : perm) e.dims.push_back(spell(static_cast<int>(p)));
      return e;
    }
    case 1: {  // roll by a shift of either sign, often more than the extent
      Expr e = node(Op::Roll, {gen_exact(S, depth - 1, anchor)});
      e.ival = r.below(15) - 7;
      e.axis = spell(r.below(nd));
      return e;
    }
    case 2: {  // concatenate two parts along an axis; hstack, vstack; vstack of 1-D rows
      std::vector<int> axes;
      for (int d = 0; d < nd; ++d)
        if (S[d] >= 2) axes.push_back(d);
      if (axes.empty()) return leaf_for(S, anchor);
      const int a = r.pick(axes);
      std::vector<Expr> kids;
      Op op = Op::Concat;
      if (nd == 2 && a == 0 && S[0] <= 3 && r.chance(0.3)) {
        for (std::int64_t i = 0; i < S[0]; ++i) kids.push_back(gen_exact({S[1]}, depth - 1, anchor));
        op = Op::VStack;
      } else {
        const std::int64_t n1 = 1 + r.below(S[a] - 1);
        Shape s1 = S, s2 = S;
        s1[a] = n1;
        s2[a] = S[a] - n1;
        kids = {gen_exact(s1, depth - 1, anchor), gen_exact(s2, depth - 1, anchor)};
        if (a == (nd == 1 ? 0 : 1) && r.chance(0.3)) op = Op::HStack;
        if (a == 0 && nd >= 2 && r.chance(0.3)) op = Op::VStack;
      }
      const DT t = type(kids[0]);  // one element type (C++ cannot name a promoted one for a list)
      for (Expr& k : kids)
        if (type(k) != t) k = astype(k, t);
      Expr e = node(op, kids);
      e.axis = spell(a);
      return e;
    }
    default: {  // reshape (it flushes the window): a 1-D array from 2-D, or the other way
      Shape in = {static_cast<std::int64_t>(volume(S))};
      if (nd == 1)
        for (std::int64_t p = 2; p < S[0]; ++p)
          if (S[0] % p == 0) {
            in = {p, S[0] / p};
            break;
          }
      Expr e = node(Op::Reshape, {gen_exact(in, depth - 1, anchor)});
      e.dims = S;
      return e;
    }
  }
}

Expr Gen::gen(const Shape& S, int depth, int anchor) {
  if (depth <= 0 || r.chance(0.2)) return leaf_for(S, anchor);
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int cat = r.weighted({3, 4.5, 1.5, 0.7, 0.5, S.size() <= 2 ? 0.25 : 0.0});
    Expr e = cat == 0   ? gen_unary(S, depth, anchor)
             : cat == 1 ? gen_binary(S, depth, anchor)
             : cat == 2 ? gen_where(S, depth, anchor)
             : cat == 3 ? gen_axis_reduction(S, depth, anchor)
             : cat == 4 ? gen_shape_op(S, depth, anchor)
                        : gen_product(S, depth, anchor);
    if (ok(e)) return e;
  }
  return leaf_for(S, anchor);
}

Expr Gen::gen_exact(const Shape& S, int depth, int anchor) {
  Expr e = gen(S, depth, anchor);
  if (ok(e) && shape(e) == S) return e;
  return leaf_for(S, anchor, true);
}

}  // namespace fuzz
