// The generator's products (see gen.hpp): ts::matmul nodes (matvec (n,k)@(k,), vecmat
// (k,)@(k,m), GEMM (n,k)@(k,m), sometimes A @ transpose(B), and the 1-D inner product) and SpMV
// nodes by the program's sparse matrix, float64, over views (strided ones are copied before BLAS)
// and temporaries (an elementwise group before the product task); and the steps that feed their
// results to what follows: bound to a handle or combined with elementwise work (groups after the
// task), added into a view in place (y += A x), reduced (vdot(p, A p)), and relaxation sweeps
// x = (b - A x) * w, rebinding x or assigning into it while the product reads it, which loops
// repeat (plan-cache hits with a task in the window); and regression gradients (b - f(A x)) @ A.

#include <algorithm>

#include "fuzz/gen.hpp"

namespace fuzz {
namespace {

// The extents of the live arrays: the inner dimensions products can have.
std::vector<std::int64_t> lengths(const Gen& g) {
  std::vector<std::int64_t> out;
  for (int k : g.arrays())
    for (std::int64_t e : g.shape_of(k)) out.push_back(e);
  return out;
}

Expr as_f64(const Gen& g, Expr e) { return g.type(e) == DT::F64 ? e : astype(std::move(e), DT::F64); }

}  // namespace

Csr random_csr(Rng& r) {
  static const std::vector<std::int64_t> sizes = {7, 13, 5, 9, 11, 3};
  Csr a;
  a.rows = r.pick(sizes);
  a.cols = r.chance(0.6) ? a.rows : r.pick(sizes);
  const double density = r.pick(std::vector<double>{0.15, 0.3, 0.5});
  const bool dyadic = r.chance(0.7);  // exact products and sums
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t j = 0; j < a.cols; ++j)
      if (r.chance(density) || (i == j && r.chance(0.7))) {
        a.indices.push_back(j);
        a.values.push_back(dyadic ? static_cast<double>(r.below(17) - 8) / 4.0 : r.real() * 2.0 - 1.0);
      }
    a.indptr.push_back(static_cast<std::int64_t>(a.indices.size()));
  }
  return a;
}

bool Gen::viewable(const Shape& S) const {
  for (int k : arrays())
    if (view_as_exists(k, S)) return true;
  return false;
}

Expr Gen::product_operand(const Shape& S, int depth, int anchor) {
  return depth > 0 && r.chance(0.35) ? gen_exact(S, depth, anchor) : leaf_for(S, anchor, true);
}

Expr Gen::gen_product(const Shape& S, int depth, int anchor) {
  const std::size_t nd = S.size();
  const std::vector<std::int64_t> ks = lengths(*this);
  for (int attempt = 0; attempt < 4 && nd <= 2 && !ks.empty(); ++attempt) {
    Expr e;
    if (nd == 1 && st.csr && st.csr->rows == S[0] && r.chance(0.6)) {
      if (!viewable({st.csr->cols})) continue;
      e = node(Op::SpMV, {as_f64(*this, product_operand({st.csr->cols}, depth - 1, anchor))});
    } else {
      const std::int64_t k = r.pick(ks);
      Shape sa = {k}, sb = {k};
      const bool transposed = nd == 2 && r.chance(0.25);  // A @ transpose(B): B of shape (m, k)
      if (nd == 1 && r.chance(0.6)) {
        sa = {S[0], k};  // matvec
      } else if (nd == 1) {
        sb = {k, S[0]};  // vecmat
      } else if (nd == 2) {
        sa = {S[0], k};
        sb = transposed ? Shape{S[1], k} : Shape{k, S[1]};
      }
      if (!viewable(sa) || !viewable(sb)) continue;
      Expr a = product_operand(sa, depth - 1, anchor);
      Expr b = transposed ? node(Op::Transpose, {leaf_for(sb, anchor, true)}) : product_operand(sb, depth - 1, anchor);
      if (promote(type(a), type(b)) != DT::F64) {
        if (r.chance(0.5))
          a = astype(a, DT::F64);
        else
          b = astype(b, DT::F64);
      }
      e = node(Op::MatMul, {a, b});
    }
    if (ok(e)) return e;
  }
  return leaf_for(S, anchor);
}

std::vector<Step> Gen::product() {
  Shape S;
  const int anchor = domain(S);
  if (S.size() == 3) S.erase(S.begin());
  if (S.empty()) S = {shape_of(anchor)[0]};
  const bool square = st.csr && st.csr->rows == st.csr->cols;
  if (st.csr && r.chance(0.35)) S = {st.csr->rows};
  switch (r.weighted({3, 2, 1.5, square ? 2.0 : 0.7, 1.2})) {
    case 1: {  // y += A x, y -= A B, y.assign(A x) into a floating view of the product's shape
      std::vector<int> targets;
      for (int k : arrays())
        if (is_f(type_of_slot(k)) && view_as_exists(k, S)) targets.push_back(k);
      if (targets.empty()) break;
      Step s;
      s.kind = r.chance(0.75) ? SK::Compound : SK::Assign;
      s.cop = r.chance(0.6) ? '+' : '-';
      const int k = r.pick(targets);
      const std::optional<Expr> box = r.chance(0.5) ? view_as(k, S, true) : std::nullopt;
      s.target = box ? *box : *view_as(k, S, false);
      s.rhs = gen_product(S, 1 + r.below(2), k);
      return {s};
    }
    case 2: {  // a 0-d result of the product: vdot(p, A p), sum(A x), norm(A B)
      if (square && S == Shape{st.csr->rows} && r.chance(0.75)) {
        // CG's vdot(p, A p): the SpMV's epilogue where p is aligned with A's rows.
        const Expr p = as_f64(*this, leaf_for(S, anchor, true));
        return {bind_to(pick_dst(), node(Op::Vdot, {p, node(Op::SpMV, {p})}))};
      }
      const Expr p = gen_product(S, 1 + r.below(2), anchor);
      const int w = r.below(3);
      const Expr e = w == 0   ? node(Op::Vdot, {as_f64(*this, leaf_for(S, anchor, true)), p})
                     : w == 1 ? node(Op::Sum, {p})
                              : node(Op::Norm, {p});
      return {bind_to(pick_dst(), e)};
    }
    case 3: {  // x = (b - A x) * w: the product reads x, then x is rebound or written in place
      std::int64_t n = square ? st.csr->rows : S[0];
      std::vector<int> xs;
      for (int k : arrays())
        if (type_of_slot(k) == DT::F64 && shape_of(k) == Shape{n}) xs.push_back(k);
      if ((!square && !viewable({n, n})) || (xs.empty() && !viewable({n}))) break;
      std::vector<Step> out;
      const int x = xs.empty() ? pick_dst() : r.pick(xs);
      if (xs.empty()) {  // x = float64 copy of some vector of length n
        const Expr from = leaf_for({n}, -1, true);
        out.push_back(bind_to(x, type(from) == DT::F64 ? node(Op::Copy, {from}) : astype(from, DT::F64)));
      }
      const Expr ax = square && r.chance(0.7) ? node(Op::SpMV, {leaf(x)})
                                              : node(Op::MatMul, {as_f64(*this, leaf_for({n, n}, x, true)), leaf(x)});
      const Expr rhs = node(
          Op::Mul, {node(Op::Sub, {leaf_for({n}, x, true), ax}), float_lit(r.pick(std::vector<double>{0.25, 0.5}))});
      if (r.chance(0.5)) {
        out.push_back(bind_to(x, rhs));
      } else {
        Step s;
        s.kind = SK::Assign;
        s.target = leaf(x);
        s.rhs = rhs;
        out.push_back(s);
      }
      return out;
    }
    case 4: {  // a regression's gradient (b - f(A x)) @ A: A's rows swept again (docs/FUSION.md, "Sweeps")
      std::vector<Shape> matrices;
      for (int k : arrays())
        if (shape_of(k).size() == 2) matrices.push_back(shape_of(k));
      if (matrices.empty()) break;
      const Shape M = r.pick(matrices);
      if (!viewable({M[1]}) || !viewable({M[0]})) break;
      const Expr A = as_f64(*this, leaf_for(M, anchor, true));
      const Expr scores = node(Op::MatMul, {A, as_f64(*this, leaf_for({M[1]}, anchor, true))});
      const Expr error =
          r.chance(0.3) ? node(Op::Div, {float_lit(1.0),
                                         node(Op::Add, {float_lit(1.0), node(Op::Exp, {node(Op::Neg, {scores})})})})
                        : node(Op::Sub, {leaf_for({M[0]}, anchor, true), scores});
      const Expr gradient = node(Op::MatMul, {error, A});
      if (!ok(gradient)) break;
      return {bind_to(pick_dst(), gradient)};
    }
    default: break;
  }
  // v = A x, or combined with elementwise work after the task: v = A x * 0.5 + u, v = b - A x
  Expr p = gen_product(S, 1 + r.below(2), anchor);
  switch (r.below(4)) {
    case 0: break;
    case 1: p = node(Op::Sub, {leaf_for(S, anchor), p}); break;
    case 2: p = node(Op::Add, {node(Op::Mul, {p, float_literal()}), gen(S, 1, anchor)}); break;
    default: p = node(r.pick(std::vector<Op>{Op::Add, Op::Mul, Op::Max, Op::Div}), {p, gen(S, 1, anchor)});
  }
  if (p.op == Op::Div) p.kids[1] = node(Op::Add, {node(Op::Abs, {p.kids[1]}), int_lit(1)});
  return {bind_to(pick_dst(), p)};
}

}  // namespace fuzz
