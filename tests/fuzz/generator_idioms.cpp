// The idioms of real array programs, as steps (see gen.hpp): stencils and Jacobi sweeps (halo
// exchanges, fusion rule 2), centering and normalizing (reductions broadcast back over what they
// reduced), a k-means assignment step, reflective boundaries, red-black updates and multigrid
// transfers (strided views), periodic stencils (roll), outer products (new axes), in-place
// updates whose right-hand side reads overlapping views of the target, and Lax-Wendroff half
// steps (temporaries read after an input of theirs was updated in place).

#include <algorithm>

#include "fuzz/gen.hpp"

namespace fuzz {
namespace {

// Arrays with every extent at least `min` (and of a floating type if floating).
std::vector<int> with_extents(const Gen& g, std::int64_t min, bool floating) {
  std::vector<int> out;
  for (int k : g.arrays()) {
    bool fits = !floating || is_f(g.type_of_slot(k));
    for (auto e : g.shape_of(k)) fits = fits && e >= min;
    if (fits) out.push_back(k);
  }
  return out;
}

// Entries that take axis `axis` as `e` and the axes before it whole.
std::vector<Sl> along_axis(int axis, const Sl& e) {
  std::vector<Sl> out(static_cast<std::size_t>(axis), Sl{});
  out.push_back(e);
  return out;
}

Step assign(Expr target, Expr rhs) {
  Step s;
  s.kind = SK::Assign;
  s.target = std::move(target);
  s.rhs = std::move(rhs);
  return s;
}
Step compound(Expr target, char cop, Expr rhs) {
  Step s = assign(std::move(target), std::move(rhs));
  s.kind = SK::Compound;
  s.cop = cop;
  return s;
}
int other_than(int dst, int k) { return dst == k ? (k + 1) % kSlots : dst; }
int other_than(int dst, int k, int j) {
  while (dst == k || dst == j) dst = (dst + 1) % kSlots;
  return dst;
}

}  // namespace

std::vector<Step> Gen::pattern() {
  std::vector<Step> out;
  switch (r.weighted({1, 1.3, 1, 0.7, 1, 0.7, 1.5, 0.8, 1, 1, 0.8, 0.8, 0.8, 0.6, 1, 0.6})) {
    case 0: out = stencil(); break;
    case 1: out = center(); break;
    case 2: {  // alpha = vdot(a, b) / (norm(a) * norm(b) + 1.0); y += alpha * z
      Shape S;
      const int k = domain(S);
      const int alpha = pick_dst();
      const Expr p = leaf_for(S, k), q = leaf_for(S, k);
      const Expr norms = node(Op::Mul, {node(Op::Norm, {p}), node(Op::Norm, {q})});
      out.push_back(bind_to(alpha, node(Op::Div, {node(Op::Vdot, {p, q}), node(Op::Add, {norms, float_lit(1.0)})})));
      out.push_back(
          compound(*view_as(k, S, false), r.chance(0.7) ? '+' : '-', node(Op::Mul, {leaf(alpha), leaf_for(S, k)})));
      break;
    }
    case 3: {  // x = x / (norm(x) + 1.0)
      const int k = r.pick(arrays());
      out.push_back(bind_to(k, node(Op::Div, {leaf(k), node(Op::Add, {node(Op::Norm, {leaf(k)}), float_lit(1.0)})})));
      break;
    }
    case 4: {  // overlapping in-place update along the first dimension: a(1:) op= f(a(:-1))
      const int k = r.pick(arrays());
      if (shape_of(k)[0] < 2) break;
      const Expr src = leaf(k, {sl(0, -1)});
      const Expr rhs = is_f(type_of_slot(k)) && r.chance(0.5) ? node(Op::Mul, {float_lit(0.5), src}) : src;
      out.push_back(r.chance(0.5) ? compound(leaf(k, {sl_end(1)}), '+', rhs) : assign(leaf(k, {sl_end(1)}), rhs));
      break;
    }
    case 5: {  // shift left: v(0:-1) = v(1:)
      const int k = r.pick(arrays());
      if (shape_of(k)[0] >= 2) out.push_back(assign(leaf(k, {sl(0, -1)}), leaf(k, {sl_end(1)})));
      break;
    }
    case 6: out = jacobi(); break;
    case 7: out = nearest_centroid(); break;
    case 8: out = boundary(); break;
    case 9: out = red_black(); break;
    case 10: out = restrict_and_prolong(); break;
    case 11: out = periodic_stencil(); break;
    case 12: out = outer_product(); break;
    case 13: out = symmetrize(); break;
    case 14: out = half_steps(); break;
    default: out = histogram(); break;
  }
  if (out.empty()) out.push_back(Gen::bind());
  return out;
}

// c.assign(0.2 * (c + north + south + ...)) on the interior.
std::vector<Step> Gen::stencil() {
  const auto cands = with_extents(*this, 3, false);
  if (cands.empty()) return {};
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
  return {assign(leaf(k, inner), is_f(type_of_slot(k)) ? node(Op::Mul, {float_lit(0.2), sum}) : sum)};
}

// Lax-Wendroff half steps along an axis (the shallow-water step): the values between neighbours,
// t = 0.5 * (a(hi) + a(lo)) - 0.25 * (b(hi) - b(lo)); a and then b updated in place on the
// interior from t's differences, so that b's update reads t, which depends on a's values from
// before a's update; then t's handle is dropped: the planner may recompute t inside the updates
// (from the old buffer of a renamed a) instead of storing it.
std::vector<Step> Gen::half_steps() {
  const auto cands = with_extents(*this, 3, true);
  if (cands.empty()) return {};
  const int a = r.pick(cands);
  std::vector<int> alike;  // a itself included
  for (int k : cands)
    if (shape_of(k) == shape_of(a) && type_of_slot(k) == type_of_slot(a)) alike.push_back(k);
  const int b = r.pick(alike);
  const int axis = r.below(static_cast<int>(shape_of(a).size()));
  const auto at = [&](int k, const Sl& e) { return leaf(k, along_axis(axis, e)); };
  const int t = other_than(pick_dst(), a, b);
  const Expr mean = node(Op::Mul, {float_lit(0.5), node(Op::Add, {at(a, sl_end(1)), at(a, sl(0, -1))})});
  const Expr flux = node(Op::Mul, {float_lit(0.25), node(Op::Sub, {at(b, sl_end(1)), at(b, sl(0, -1))})});
  const Expr diff = node(Op::Sub, {at(t, sl_end(1)), at(t, sl(0, -1))});
  Step drop;
  drop.kind = SK::Drop;
  drop.dst = t;
  return {
      bind_to(t, node(Op::Sub, {mean, flux})), compound(at(a, sl(1, -1)), '-', node(Op::Mul, {float_lit(0.1), diff})),
      compound(at(b, sl(1, -1)), '-', node(Op::Mul, {float_lit(0.1), node(Op::Mul, {diff, at(t, sl(0, -1))})})), drop};
}

// Jacobi sweeps between two arrays of one shape: b(inner) = avg(a(shifted)), and back.
std::vector<Step> Gen::jacobi() {
  const auto cands = with_extents(*this, 3, true);
  if (cands.empty()) return {};
  const int a = r.pick(cands);
  const int b = other_than(pick_dst(), a);
  const int nd = static_cast<int>(shape_of(a).size());
  const std::vector<Sl> inner(static_cast<std::size_t>(nd), sl(1, -1));
  // With the center term first, the sweep's launch domain is aligned with its target, so the
  // next sweep may join the group but for rule 2 (it reads shifted what this one wrote).
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
    return assign(leaf(to, inner), node(Op::Mul, {float_lit(center ? 0.2 : 0.25), sum}));
  };
  std::vector<Step> out = {
      bind_to(b, r.chance(0.5) ? node(Op::Copy, {leaf(a)}) : node(Op::Mul, {leaf(a), float_lit(0.5)}))};
  for (int t = 1 + r.below(3); t > 0; --t) {
    out.push_back(sweep(b, a));
    out.push_back(sweep(a, b));
  }
  return out;
}

// x = x - mean(x); or along an axis, broadcast back over it: x -= mean(x, 1, true),
// x = x - max(x, 0) (no keepdims: the result stretches along the leading axis),
// x /= sum(abs(x), -1, true) + 1.0.
std::vector<Step> Gen::center() {
  const int k = r.pick(arrays());
  const bool floating = is_f(type_of_slot(k));
  if (r.chance(0.3)) {
    const Expr mean = node(Op::Mean, {leaf(k)});
    if (floating && r.chance(0.5)) return {compound(leaf(k), '-', mean)};
    return {bind_to(k, node(Op::Sub, {leaf(k), mean}))};
  }
  const int nd = static_cast<int>(shape_of(k).size());
  const int a = r.below(nd);
  const int axis = r.chance(0.3) ? a - nd : a;
  const bool keep = a != 0 || r.chance(0.5);
  const int w = r.below(3);
  const Expr red = w == 0   ? along(Op::Mean, leaf(k), axis, keep)
                   : w == 1 ? along(Op::RMax, leaf(k), axis, keep)
                            : node(Op::Add, {along(Op::Sum, node(Op::Abs, {leaf(k)}), axis, keep), float_lit(1.0)});
  const Op op = w == 2 ? Op::Div : Op::Sub;
  if (floating && r.chance(0.5)) return {compound(leaf(k), op == Op::Div ? '/' : '-', red)};
  return {bind_to(k, node(op, {leaf(k), red}))};
}

// k-means' assignment step: the index of the nearest of c centroids C (a (c, d) view) for each
// point of P (n, d): argmin(sum(square(P(:, newaxis, :) - C(newaxis, :, :)), 2), 1); sometimes
// also the distance to it (sometimes from the distances held in a handle, dropped after: argmin
// and min of one stored reduction) or how many points chose centroid 0; sometimes the update's bincounts
// (the points per centroid, a column of P summed per centroid), with minlength c (the indices'
// bounds decide the length) or below it (the length is read back).
std::vector<Step> Gen::nearest_centroid() {
  std::vector<int> points;
  for (int k : arrays())
    if (shape_of(k).size() == 2) points.push_back(k);
  if (points.empty()) return {};
  const int p = r.pick(points);
  const Shape C = {2 + r.below(3), shape_of(p)[1]};
  std::vector<int> cands;
  for (int k : arrays())
    if (view_as_exists(k, C)) cands.push_back(k);
  if (cands.empty()) return {};
  Step view;
  view.kind = SK::View;
  view.dst = other_than(pick_dst(), p);
  const int from = r.pick(cands);
  std::optional<Expr> centroids = r.chance(0.5) ? view_as(from, C, true) : std::nullopt;  // a box if it can
  view.target = centroids ? *centroids : *view_as(from, C, false);
  const Expr diff = node(Op::Sub, {leaf(p, {Sl{}, new_axis(), Sl{}}), leaf(view.dst, {new_axis(), Sl{}, Sl{}})});
  const Expr d2 = along(Op::Sum, node(Op::Square, {diff}), r.chance(0.5) ? 2 : -1, false);
  const int label = other_than(pick_dst(), p, view.dst);
  std::vector<Step> out = {view};
  if (r.chance(0.3)) {
    const int lo = other_than(pick_dst(), p, view.dst);
    const bool keepdims = r.chance(0.5);
    if (!keepdims && r.chance(0.5)) {
      // The distances held while the labels and the distance to them are taken, then dropped:
      // the argmin and the min nest into one kernel together.
      const auto free_slot = [&](std::vector<int> taken) {
        int k = pick_dst();
        while (std::find(taken.begin(), taken.end(), k) != taken.end()) k = (k + 1) % kSlots;
        return k;
      };
      const int held = free_slot({p, view.dst, label});
      const int nearest = free_slot({p, view.dst, label, held});
      Step drop;
      drop.kind = SK::Drop;
      drop.dst = held;
      for (Step s : {bind_to(held, d2), bind_to(label, along(Op::ArgMin, leaf(held), 1, false)),
                     bind_to(nearest, along(Op::RMin, leaf(held), 1, false)), drop})
        out.push_back(s);
    } else {
      out.push_back(bind_to(label, along(Op::ArgMin, d2, 1, false)));
      out.push_back(bind_to(lo, along(Op::RMin, d2, 1, keepdims)));
    }
  } else {
    out.push_back(bind_to(label, along(Op::ArgMin, d2, 1, false)));
    if (r.chance(0.3))
      out.push_back(
          bind_to(other_than(pick_dst(), label), node(Op::CountNonzero, {node(Op::Eq, {leaf(label), int_lit(0)})})));
  }
  if (r.chance(0.4)) {
    Expr counts = node(Op::Bincount, {leaf(label)});
    if (r.chance(0.6)) counts.kids.push_back(leaf(p, {Sl{}, index(r.below(shape_of(p)[1]))}));
    counts.ival = r.chance(0.7) ? C[0] + r.below(2) : r.below(C[0]);
    out.push_back(bind_to(other_than(pick_dst(), label, p), counts));
  }
  return out;
}

// A histogram: bincount of a 1-D view of an array (its first axis, the others at an index) taken
// into a few bins (x % bins, as int64 for floats; bools as they are), sometimes weighted by
// another view of that length, with a minlength below or above the bins.
std::vector<Step> Gen::histogram() {
  const int k = r.pick(arrays());
  const Shape s = shape_of(k);
  std::vector<Sl> entries = {Sl{}};
  for (std::size_t d = 1; d < s.size(); ++d) entries.push_back(index(r.below(s[d])));
  Expr x = leaf(k, entries);
  const std::int64_t bins = 1 + r.below(6);
  const DT t = type_of_slot(k);
  if (t != DT::B) x = node(Op::Mod, {x, is_f(t) ? float_lit(static_cast<double>(bins)) : int_lit(bins)});
  if (is_f(t)) x = astype(x, DT::I64);
  Expr counts = node(Op::Bincount, {x});
  if (r.chance(0.6)) counts.kids.push_back(leaf_for({s[0]}, k, true));
  counts.ival = r.below(bins + 3);
  return {bind_to(other_than(pick_dst(), k), counts)};
}

// Reflective boundaries along the first or the last axis: a(0) = a(1), a(-1) = a(-2).
std::vector<Step> Gen::boundary() {
  const auto cands = with_extents(*this, 2, false);
  if (cands.empty()) return {};
  const int k = r.pick(cands);
  const int nd = static_cast<int>(shape_of(k).size());
  const int axis = r.chance(0.5) ? 0 : nd - 1;
  std::vector<Step> out;
  if (r.chance(0.7)) out.push_back(assign(leaf(k, along_axis(axis, index(0))), leaf(k, along_axis(axis, index(1)))));
  if (out.empty() || r.chance(0.6))
    out.push_back(assign(leaf(k, along_axis(axis, index(-1))), leaf(k, along_axis(axis, index(-2)))));
  return out;
}

// A red-black update along one axis: the odd elements from their even neighbours,
// a(1:-1:2) = 0.5 * (a(0:-2:2) + a(2::2)) (strided reads that overlap the written view's bounding
// box: evaluated before the write), then sometimes the even ones from the odd, a(2:-1:2).
std::vector<Step> Gen::red_black() {
  std::vector<std::pair<int, int>> cands;  // a floating array and an axis of at least 4
  for (int k : with_extents(*this, 1, true))
    for (std::size_t d = 0; d < shape_of(k).size(); ++d)
      if (shape_of(k)[d] >= 4) cands.emplace_back(k, static_cast<int>(d));
  if (cands.empty()) return {};
  const auto [k, axis] = r.pick(cands);
  auto at = [&](const Sl& e) { return leaf(k, along_axis(axis, e)); };
  auto color = [&](std::int64_t first) {
    const Expr nbrs = node(Op::Add, {at(sl(first - 1, -2, 2)), at(sl_end(first + 1, 2))});
    if (r.chance(0.3)) return compound(at(sl(first, -1, 2)), '+', node(Op::Mul, {float_lit(0.25), nbrs}));
    return assign(at(sl(first, -1, 2)), node(Op::Mul, {float_lit(0.5), nbrs}));
  };
  std::vector<Step> out = {color(1)};
  if (r.chance(0.5)) out.push_back(color(2));
  return out;
}

// Multigrid transfers: c = 0.5 * f(0::2, 0::2, ...) (a step-2 view, redistributed), a smoothing
// of c, and its injection back: f(0::2, 0::2) += c.
std::vector<Step> Gen::restrict_and_prolong() {
  const auto cands = with_extents(*this, 3, true);
  if (cands.empty()) return {};
  const int f = r.pick(cands);
  const int c = other_than(pick_dst(), f);
  const std::vector<Sl> even(shape_of(f).size(), sl_end(0, 2));
  std::vector<Step> out = {bind_to(c, node(Op::Mul, {float_lit(0.5), leaf(f, even)}))};
  if (r.chance(0.5)) out.push_back(compound(leaf(c), '-', node(Op::Mean, {leaf(c)})));
  out.push_back(compound(leaf(f, even), '+', leaf(c)));
  return out;
}

// A periodic stencil: u = 0.5 * u + 0.25 * (roll(u, 1, axis) + roll(u, -1, axis)).
std::vector<Step> Gen::periodic_stencil() {
  const auto cands = with_extents(*this, 2, true);
  if (cands.empty()) return {};
  const int k = r.pick(cands);
  const int axis = r.below(static_cast<int>(shape_of(k).size()));
  auto roll = [&](std::int64_t shift) {
    Expr e = node(Op::Roll, {leaf(k)});
    e.ival = shift;
    e.axis = axis;
    return e;
  };
  const Expr nbrs = node(Op::Mul, {float_lit(0.25), node(Op::Add, {roll(1), roll(-1)})});
  return {bind_to(k, node(Op::Add, {node(Op::Mul, {float_lit(0.5), leaf(k)}), nbrs}))};
}

// An outer product of two 1-D arrays through new axes, x(:, newaxis) op y(newaxis, :), often
// reduced along an axis: sum(x[:, None] * y[None, :], 0).
std::vector<Step> Gen::outer_product() {
  std::vector<int> vectors;
  for (int k : arrays())
    if (shape_of(k).size() == 1) vectors.push_back(k);
  if (vectors.empty()) return {};
  const int x = r.pick(vectors), y = r.pick(vectors);
  const Op op = r.pick(std::vector<Op>{Op::Mul, Op::Sub, Op::Max, Op::Lt});
  Expr outer = node(op, {leaf(x, {Sl{}, new_axis()}), r.chance(0.5) ? leaf(y) : leaf(y, {new_axis(), Sl{}})});
  if (r.chance(0.6)) {
    const Op red = op == Op::Lt ? Op::CountNonzero : r.pick(std::vector<Op>{Op::Sum, Op::RMax, Op::ArgMax});
    outer = along(red, outer, r.below(2), r.chance(0.3));
  }
  return {bind_to(pick_dst(), outer)};
}

// A square box of a 2-D array made symmetric: s.assign(0.5 * (s + transpose(s))), or
// s += transpose(s) (the transpose is a new array: it reads s before the write).
std::vector<Step> Gen::symmetrize() {
  std::vector<int> cands;
  for (int k : with_extents(*this, 2, false))
    if (shape_of(k).size() == 2) cands.push_back(k);
  if (cands.empty()) return {};
  const int k = r.pick(cands);
  const Shape E = shape_of(k);
  const std::int64_t m = std::min(E[0], E[1]);
  const Expr s = leaf_box(k, {r.below(E[0] - m + 1), r.below(E[1] - m + 1)}, {m, m});
  const Expr st = node(Op::Transpose, {s});
  if (is_f(type_of_slot(k)) && r.chance(0.6))
    return {assign(s, node(Op::Mul, {float_lit(0.5), node(Op::Add, {s, st})}))};
  return {compound(s, '+', st)};
}

}  // namespace fuzz
