// The reference's reductions: sum prod min max mean argmin argmax count_nonzero over everything or
// along an axis (keepdims), vdot and norm; each result with an error bound (see reference.hpp).
// Float sums are combined in an order the implementation chooses (tiles, ranks, blocks), so their
// bound covers any order: exact only when every term is a small dyadic, else the sum of the
// terms' bounds plus n * eps * sum |terms|.

#include <algorithm>
#include <cmath>
#include <limits>

#include "fuzz/reference.hpp"

namespace fuzz {
namespace {

// The element each reduction reduces, in its compute type (vdot: the product; norm: the square).
struct Plan {
  DT compute = DT::F64, result = DT::F64;
};

Plan plan_of(Op op, DT a, DT b) {
  switch (op) {
    case Op::Sum:
    case Op::Prod: return {a, sum_result(a)};
    case Op::Mean: return {a, mean_result(a)};
    case Op::Vdot: return {promote(a, b), promote(a, b)};
    case Op::Norm: return {mean_result(a), mean_result(a)};
    case Op::ArgMin:
    case Op::ArgMax:
    case Op::CountNonzero: return {a, DT::I64};
    default: return {a, a};  // min, max
  }
}

// argmin/argmax of terms: the first NaN, else the first extreme. Rejected when another element is
// within the error bounds of the extreme (an implementation could pick either).
EV arg_of(Op op, DT compute, const std::vector<EV>& terms, Ctx& c) {
  EV r;
  std::size_t best = 0;
  if (!is_f(compute)) {
    for (std::size_t k = 1; k < terms.size(); ++k)
      if (op == Op::ArgMin ? terms[k].i < terms[best].i : terms[k].i > terms[best].i) best = k;
    r.i = static_cast<std::int64_t>(best);
    return r;
  }
  for (std::size_t k = 0; k < terms.size(); ++k)
    if (std::isnan(terms[k].f)) {
      r.i = static_cast<std::int64_t>(k);
      return r;
    }
  for (std::size_t k = 1; k < terms.size(); ++k)
    if (op == Op::ArgMin ? terms[k].f < terms[best].f : terms[k].f > terms[best].f) best = k;
  const EV& x = terms[best];
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const EV& y = terms[k];
    if (k != best && (x.e > 0 || y.e > 0) && std::abs(x.f - y.f) <= kMargin * (x.e + y.e))
      c.fail("argmin/argmax between values too close to call");
  }
  r.i = static_cast<std::int64_t>(best);
  return r;
}

// One result of reduction `op` over `terms` (already in the compute type).
EV fold(Op op, const Plan& p, const std::vector<EV>& terms, Ctx& c) {
  const std::size_t n = terms.size();
  if (op == Op::ArgMin || op == Op::ArgMax) return arg_of(op, p.compute, terms, c);
  EV r;
  if (op == Op::CountNonzero) {
    for (const EV& x : terms) r.i += cast(x, p.compute, DT::B, c).i;
    return r;
  }
  const Op kind_op = op == Op::Prod ? Op::Prod : op == Op::RMin ? Op::RMin : op == Op::RMax ? Op::RMax : Op::Sum;
  if (!is_f(p.compute)) {
    std::uint64_t acc = kind_op == Op::Prod ? 1 : 0;
    std::int64_t mn = std::numeric_limits<std::int64_t>::max(), mx = std::numeric_limits<std::int64_t>::min();
    for (const EV& x : terms) {
      acc = kind_op == Op::Prod ? acc * static_cast<std::uint64_t>(x.i) : acc + static_cast<std::uint64_t>(x.i);
      mn = std::min(mn, x.i);
      mx = std::max(mx, x.i);
    }
    const std::int64_t v = kind_op == Op::RMin ? mn : kind_op == Op::RMax ? mx : static_cast<std::int64_t>(acc);
    if (op == Op::Mean) {
      r.f = static_cast<double>(v) / static_cast<double>(n);  // correctly rounded: exact
    } else {
      r.i = wrap_to(p.result, v);
    }
    check_value(p.result, r, false, c);
    return r;
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
  if (op == Op::Mean) {
    f = f / static_cast<double>(n);
    err = err > 0 ? err / static_cast<double>(n) + kEps64 * std::abs(f) : 0.0;
  } else if (op == Op::Norm) {
    const double s = f;
    f = std::sqrt(s);
    if (err > 0) err = std::min(std::sqrt(err), err / (2 * std::sqrt(std::max(s, 1e-300)))) + kEps64 * std::abs(f);
  }
  if (nan) {
    f = std::numeric_limits<double>::quiet_NaN();
    err = 0;
  }
  r.f = round_to(p.result, f);
  r.e = err > 0 && p.result == DT::F32 ? err + kEps32 * std::abs(r.f) : err;
  check_value(p.result, r, nan, c);
  return r;
}

}  // namespace

EV sum_any_order(const std::vector<EV>& terms, Ctx& c) { return fold(Op::Sum, Plan{DT::F64, DT::F64}, terms, c); }

RArr reduce(const Expr& e, const RArr& a, const RArr* b, Ctx& c) {
  RArr out;
  if (e.op == Op::Vdot && (!b || a.shape != b->shape)) {
    c.fail("vdot of different shapes");
    return out;
  }
  const Plan p = plan_of(e.op, a.t, b ? b->t : a.t);
  out.t = p.result;
  std::vector<EV> terms(a.v.size());
  for (std::size_t k = 0; k < a.v.size() && c.ok(); ++k) {
    EV x = cast(a.v[k], a.t, p.compute, c);
    if (e.op == Op::Vdot) {
      EV y = cast(b->v[k], b->t, p.compute, c);
      x = binop(p.compute == DT::B ? Op::Min : Op::Mul, p.compute, x, y, c);
    } else if (e.op == Op::Norm) {
      x = binop(Op::Mul, p.compute, x, x, c);
    }
    terms[k] = x;
  }
  if (!c.ok()) return out;
  if (!e.along) {
    out.v.push_back(fold(e.op, p, terms, c));
    return out;
  }
  // Along an axis: the terms of output (o, i) are (o, j, i) for j along the axis.
  const int nd = static_cast<int>(a.shape.size());
  const int axis = e.axis < 0 ? e.axis + nd : e.axis;
  if (!takes_axis(e.op) || axis < 0 || axis >= nd) {
    c.fail("a reduction axis out of bounds");
    return out;
  }
  std::size_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= static_cast<std::size_t>(a.shape[d]);
  for (int d = axis + 1; d < nd; ++d) inner *= static_cast<std::size_t>(a.shape[d]);
  const auto m = static_cast<std::size_t>(a.shape[axis]);
  out.shape = a.shape;
  if (e.keepdims)
    out.shape[axis] = 1;
  else
    out.shape.erase(out.shape.begin() + axis);
  std::vector<EV> group(m);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t i = 0; i < inner && c.ok(); ++i) {
      for (std::size_t j = 0; j < m; ++j) group[j] = terms[(o * m + j) * inner + i];
      out.v.push_back(fold(e.op, p, group, c));
    }
  return out;
}

RArr bincount(const Expr& e, const RArr& x, const RArr* w, Ctx& c) {
  RArr out;
  if (x.shape.size() != 1 || is_f(x.t) || (w && w->shape != x.shape) || e.ival < 0) {
    c.fail("a bincount of an x that is not 1-D integers, of weights of another shape, or a negative minlength");
    return out;
  }
  std::int64_t length = e.ival;
  for (const EV& v : x.v) {
    if (v.i < 0) {
      c.fail("a bincount of negative values (an error in NumPy and tessera)");
      return out;
    }
    length = std::max(length, v.i + 1);
  }
  if (length > kMaxBins) {
    c.fail("a bincount of more than kMaxBins bins");
    return out;
  }
  out.shape = {length};
  out.t = w ? DT::F64 : DT::I64;
  std::vector<std::vector<EV>> terms(static_cast<std::size_t>(length));
  for (std::size_t k = 0; k < x.v.size(); ++k)
    terms[static_cast<std::size_t>(x.v[k].i)].push_back(w ? cast(w->v[k], w->t, DT::F64, c) : EV{0, 1, 0});
  for (const auto& bin : terms) {
    if (!w) {
      out.v.push_back(EV{0, static_cast<std::int64_t>(bin.size()), 0});
      continue;
    }
    out.v.push_back(bin.empty() ? EV{} : sum_any_order(bin, c));
  }
  return out;
}

}  // namespace fuzz
