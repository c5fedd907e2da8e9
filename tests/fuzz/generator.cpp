// The generator's steps, loops and programs (see generator.hpp; the parts: gen.hpp).

#include "fuzz/generator.hpp"

#include <algorithm>
#include <cmath>

#include "fuzz/gen.hpp"

namespace fuzz {
namespace {

const std::vector<Shape> kShapes = {{7},    {13},   {2},       {3},       {5, 9},    {2, 11},  {4, 6},
                                    {3, 3}, {9, 1}, {3, 4, 5}, {2, 3, 7}, {1, 5, 3}, {3, 1, 4}};

}  // namespace

std::vector<int> Gen::arrays() const {
  std::vector<int> out;
  for (int k = 0; k < kSlots; ++k)
    if (live(k) && st.slots[k]->ndim() > 0) out.push_back(k);
  return out;
}
std::vector<int> Gen::scalars() const {
  std::vector<int> out;
  for (int k = 0; k < kSlots; ++k)
    if (live(k) && st.slots[k]->ndim() == 0) out.push_back(k);
  return out;
}
int Gen::live_count() const {
  int n = 0;
  for (int k = 0; k < kSlots; ++k) n += live(k);
  return n;
}
int Gen::pick_dst() {
  std::vector<int> free;
  for (int k = 0; k < kSlots; ++k)
    if (!live(k)) free.push_back(k);
  if (!free.empty() && r.chance(0.6)) return r.pick(free);
  return r.below(kSlots);
}

bool Gen::ok(const Expr& e) const {
  Ctx c;
  eval(e, st, c);
  return c.ok();
}
DT Gen::type(const Expr& e) const {
  Ctx c;
  return eval(e, st, c).t;
}
Shape Gen::shape(const Expr& e) const {
  Ctx c;
  return eval(e, st, c).shape;
}

Step Gen::create() {
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

Step Gen::bind() {
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

Step Gen::bind_scalar() {
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

// A view of a live array: a box (shrunk by up to 4 in each dimension), or any index expression
// of a launch-domain shape (steps, integers, new axes).
Step Gen::view() {
  Step s;
  s.kind = SK::View;
  if (r.chance(0.55)) {
    const int k = r.pick(arrays());
    const Shape ext = shape_of(k);
    Shape off(ext.size()), len(ext.size());
    for (std::size_t d = 0; d < ext.size(); ++d) {
      len[d] = std::max<std::int64_t>(1, ext[d] - r.weighted({3, 3, 2, 1, 1}));
      off[d] = r.below(ext[d] - len[d] + 1);
    }
    s.target = leaf_box(k, off, len);
  } else {
    Shape S;
    const int k = domain(S);
    s.target = *view_as(k, S, false);
  }
  s.dst = pick_dst();
  return s;
}

// Writes into a view of a named array; the right-hand side often reads other (shifted,
// overlapping) views of the same array.
Step Gen::write(SK kind) {
  Step s;
  s.kind = kind;
  const auto sc = scalars();
  if (!sc.empty() && r.chance(0.1)) {
    s.target = leaf(r.pick(sc));
    s.rhs = r.chance(0.5) ? literal_for(type_of_slot(s.target.slot)) : scalar_operand();
  } else {
    Shape S;
    const int k = domain(S);
    std::optional<Expr> box = r.chance(0.7) ? view_as(k, S, true) : std::nullopt;  // a box where one fits
    s.target = box ? *box : *view_as(k, S, false);
    if (kind == SK::Assign && S.size() < 3 && r.chance(0.08)) {  // assign drops a leading axis of extent 1
      Shape lead = S;
      lead.insert(lead.begin(), 1);
      s.rhs = gen_exact(lead, r.below(4), k);
    } else {
      const int w = r.weighted({7, 1.5, 1.5, 1});
      s.rhs = w == 0   ? gen(S, r.below(4), k)
              : w == 1 ? literal_for(type_of_slot(k))
              : w == 2 ? scalar_operand()
                       : node(Op::Mul, {scalar_operand(), leaf_for(S, k)});  // y += alpha * x
    }
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

std::vector<Step> Gen::propose() {
  int big = 0;  // arrays large enough to be split over the ranks
  for (int k : arrays()) big += volume(shape_of(k)) >= 6;
  if (arrays().empty() || live_count() < 3 || r.chance(big < 3 ? 0.5 : 0.06)) return {create()};
  switch (r.weighted({3.0, 1.0, 0.8, 1.5, 2.0, 0.5, 2.2, 0.5, 1.0, 0.8})) {
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
    case 8: return loop();
    default: return product();
  }
}

// A loop: a body of one to three steps repeated two to five times, the same ops on the same
// names each time (repeated windows hit the plan cache), sometimes with other float constants.
void Gen::perturb(Expr& e) {
  if (e.op == Op::FloatLit && !std::isnan(e.fval)) e.fval = r.pick(kFloatLits);
  if (e.op == Op::Pow) return;
  for (auto& k : e.kids) perturb(k);
}
std::vector<Step> Gen::loop() {
  std::vector<Step> body;
  const int n = 1 + r.below(3);
  for (int k = 0; k < n; ++k) {
    const int w = r.weighted({2, 2, 1, 0.6});
    if (w == 0) {
      Step s = bind();
      if (s.rhs.op == Op::Leaf) continue;
      body.push_back(s);
    } else if (w == 1) {
      body.push_back(write(SK::Compound));
    } else if (w == 3) {
      for (const Step& s : product()) body.push_back(s);
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

namespace {

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
  if (r.chance(0.6)) p.csr = random_csr(r);
  RState st;
  if (p.csr.rows > 0) st.csr = &p.csr;
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
