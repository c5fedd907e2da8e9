// The reference's views (affine maps into a base, composed by NumPy's basic indexing), writes
// through them, and broadcasting (see reference.hpp).

#include <algorithm>
#include <cmath>
#include <string>

#include "fuzz/reference.hpp"

namespace fuzz {

std::size_t volume(const Shape& s) {
  std::size_t n = 1;
  for (auto x : s) n *= static_cast<std::size_t>(x);
  return n;
}

RSlot whole(std::shared_ptr<Base> base) {
  RSlot v;
  v.extent = base->shape;
  v.stride.assign(v.extent.size(), 1);
  for (int d = static_cast<int>(v.extent.size()) - 2; d >= 0; --d) v.stride[d] = v.stride[d + 1] * v.extent[d + 1];
  v.base = std::move(base);
  return v;
}

std::vector<std::int64_t> RSlot::flat() const {
  std::vector<std::int64_t> out;
  out.reserve(volume(extent));
  std::vector<std::int64_t> i(extent.size(), 0);
  for (std::size_t k = 0; k < volume(extent); ++k) {
    std::int64_t f = origin;
    for (std::size_t d = 0; d < i.size(); ++d) f += i[d] * stride[d];
    out.push_back(f);
    for (std::size_t d = i.size(); d-- > 0;) {  // the next index, row-major
      if (++i[d] < extent[d]) break;
      i[d] = 0;
    }
  }
  return out;
}

// Applies index entries as NumPy's basic indexing does (tessera raises where NumPy would clip a
// slice's bounds, and so does this; empty slices are rejected too: nothing to compute on).
bool resolve(const Expr& e, const RState& st, RSlot& out, Ctx& c) {
  if (e.op != Op::Leaf) {
    c.fail("a view target that is not a named array");
    return false;
  }
  if (e.slot < 0 || e.slot >= kSlots || !st.slots[e.slot]) {
    c.fail("v" + std::to_string(e.slot) + " is empty");
    return false;
  }
  const RSlot in = *st.slots[e.slot];
  if (e.sl.empty()) {
    out = in;
    return true;
  }
  out = in;
  out.extent.clear();
  out.stride.clear();
  int next = 0;  // the axis of `in` the next entry applies to
  for (const Sl& s : e.sl) {
    if (s.kind == Sl::NewAxis) {
      out.extent.push_back(1);
      out.stride.push_back(0);
      continue;
    }
    if (next >= in.ndim()) {
      c.fail("too many indices");
      return false;
    }
    const int d = next++;
    const std::int64_t n = in.extent[d];
    if (s.kind == Sl::Int) {
      const std::int64_t i = s.start < 0 ? s.start + n : s.start;
      if (i < 0 || i >= n) {
        c.fail("an index out of bounds");
        return false;
      }
      out.origin += i * in.stride[d];
      continue;
    }
    std::int64_t a = 0, b = n, step = 1;
    if (!s.whole) {
      a = s.start < 0 ? s.start + n : s.start;
      b = s.to_end ? n : s.stop < 0 ? s.stop + n : s.stop;
      step = s.step;
    }
    if (!(0 <= a && a < b && b <= n) || step < 1) {
      c.fail("a slice out of bounds, empty or with a step below 1");
      return false;
    }
    out.origin += a * in.stride[d];
    out.extent.push_back((b - a + step - 1) / step);
    out.stride.push_back(in.stride[d] * step);
  }
  for (int d = next; d < in.ndim(); ++d) {
    out.extent.push_back(in.extent[d]);
    out.stride.push_back(in.stride[d]);
  }
  if (out.ndim() > 3) {
    c.fail("a view of more than 3 dimensions");
    return false;
  }
  return true;
}

RArr materialize(const RSlot& s) {
  RArr out;
  out.t = s.base->t;
  out.shape = s.shape();
  for (std::int64_t f : s.flat()) out.v.push_back(s.base->v[static_cast<std::size_t>(f)]);
  return out;
}

bool broadcast_shape(std::initializer_list<const RArr*> xs, Shape& out, Ctx& c) {
  bool have = false;
  out.clear();
  for (const RArr* x : xs) {
    if (x->weak) continue;
    have = true;
    if (x->shape.size() > out.size()) out.insert(out.begin(), x->shape.size() - out.size(), 1);
    const std::size_t pad = out.size() - x->shape.size();
    for (std::size_t d = 0; d < x->shape.size(); ++d) {
      std::int64_t& o = out[pad + d];
      if (x->shape[d] == o || x->shape[d] == 1) continue;
      if (o != 1) {
        c.fail("operands could not be broadcast together");
        return false;
      }
      o = x->shape[d];
    }
  }
  return have;
}

std::vector<std::size_t> broadcast_index(const Shape& from, const Shape& to) {
  // Row-major strides of `from`, 0 on the axes it stretches (extent 1) or lacks.
  std::vector<std::size_t> stride(to.size(), 0);
  const std::size_t pad = to.size() - from.size();
  std::size_t s = 1;
  for (std::size_t d = from.size(); d-- > 0;) {
    if (from[d] != 1) stride[pad + d] = s;
    s *= static_cast<std::size_t>(from[d]);
  }
  std::vector<std::size_t> out;
  out.reserve(volume(to));
  std::vector<std::int64_t> i(to.size(), 0);
  for (std::size_t k = 0; k < volume(to); ++k) {
    std::size_t f = 0;
    for (std::size_t d = 0; d < i.size(); ++d) f += static_cast<std::size_t>(i[d]) * stride[d];
    out.push_back(f);
    for (std::size_t d = i.size(); d-- > 0;) {
      if (++i[d] < to[d]) break;
      i[d] = 0;
    }
  }
  return out;
}

void check_budget(const Base& b, Ctx& c) {
  if (!is_f(b.t)) return;
  const double budget = b.t == DT::F32 ? kBudget32 : kBudget64;
  for (const EV& v : b.v)
    if (!std::isnan(v.f) && v.e > budget * std::max(1.0, std::abs(v.f)))
      return c.fail("the error bound of the result exceeds the budget");
}

void write_view(const RSlot& dst, const RArr& src, Ctx& c) {
  const Shape shape = dst.shape();
  // The value broadcasts to the target's shape without growing it, once its leading axes of
  // extent 1 beyond the target's are dropped (NumPy's setitem; an in-place op's value has the
  // target's shape by then). Dropping them leaves the elements' row-major order as it is.
  Shape value = src.weak ? Shape{} : src.shape;
  while (value.size() > shape.size() && value.front() == 1) value.erase(value.begin());
  bool fits = value.size() <= shape.size();
  for (std::size_t d = 0; fits && d < value.size(); ++d) {
    const std::int64_t o = shape[shape.size() - value.size() + d];
    fits = value[d] == o || value[d] == 1;
  }
  if (!fits) return c.fail("writing a value whose shape does not broadcast to the target's");
  const std::vector<std::size_t> from = broadcast_index(value, shape);
  std::vector<EV> vals;
  for (std::size_t k = 0; k < from.size() && c.ok(); ++k) vals.push_back(cast(src.v[from[k]], src.t, dst.base->t, c));
  if (!c.ok()) return;
  const std::vector<std::int64_t> flat = dst.flat();
  for (std::size_t k = 0; k < flat.size(); ++k) dst.base->v[static_cast<std::size_t>(flat[k])] = vals[k];
  check_budget(*dst.base, c);
}

}  // namespace fuzz
