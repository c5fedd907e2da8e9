// The reference's shape operations: transpose (with axes), roll, concatenate, hstack, vstack and
// reshape, as NumPy's. They move values without arithmetic: error bounds travel with them.

#include "fuzz/reference.hpp"

namespace fuzz {
namespace {

Shape row_major_strides(const Shape& s) {
  Shape st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

// The coordinates of the k-th element (row-major) of an array of shape s.
Shape unravel(std::size_t k, const Shape& s) {
  Shape i(s.size());
  for (std::size_t d = s.size(); d-- > 0;) {
    i[d] = static_cast<std::int64_t>(k % static_cast<std::size_t>(s[d]));
    k /= static_cast<std::size_t>(s[d]);
  }
  return i;
}

std::size_t ravel(const Shape& i, const Shape& strides) {
  std::size_t f = 0;
  for (std::size_t d = 0; d < i.size(); ++d) f += static_cast<std::size_t>(i[d] * strides[d]);
  return f;
}

bool normal_axis(int axis, int nd, int& out, Ctx& c) {
  out = axis < 0 ? axis + nd : axis;
  if (out >= 0 && out < nd) return true;
  c.fail("an axis out of bounds");
  return false;
}

RArr transpose(const Expr& e, const RArr& a, Ctx& c) {
  const int nd = static_cast<int>(a.shape.size());
  std::vector<int> axes;
  for (int d = nd - 1; e.dims.empty() && d >= 0; --d) axes.push_back(d);
  std::vector<bool> seen(static_cast<std::size_t>(nd), false);
  for (std::int64_t x : e.dims) {
    int d = 0;
    if (!normal_axis(static_cast<int>(x), nd, d, c)) return {};
    if (seen[d]) {
      c.fail("transpose: a repeated axis");
      return {};
    }
    seen[d] = true;
    axes.push_back(d);
  }
  if (static_cast<int>(axes.size()) != nd) {
    c.fail("transpose: axes that don't match the array");
    return {};
  }
  RArr out;
  out.t = a.t;
  for (int d : axes) out.shape.push_back(a.shape[d]);
  const Shape in_strides = row_major_strides(a.shape);
  for (std::size_t k = 0; k < a.v.size(); ++k) {
    const Shape i = unravel(k, out.shape);
    Shape from(static_cast<std::size_t>(nd));
    for (int d = 0; d < nd; ++d) from[axes[d]] = i[d];
    out.v.push_back(a.v[ravel(from, in_strides)]);
  }
  return out;
}

RArr roll(const Expr& e, const RArr& a, Ctx& c) {
  int axis = 0;
  if (!normal_axis(e.axis, static_cast<int>(a.shape.size()), axis, c)) return {};
  const std::int64_t n = a.shape[axis];
  const std::int64_t s = ((e.ival % n) + n) % n;
  RArr out = a;
  const Shape strides = row_major_strides(a.shape);
  for (std::size_t k = 0; k < a.v.size(); ++k) {  // out[.., (j + s) mod n, ..] = a[.., j, ..]
    Shape i = unravel(k, a.shape);
    i[axis] = (i[axis] + s) % n;
    out.v[ravel(i, strides)] = a.v[k];
  }
  return out;
}

RArr stack(const Expr& e, std::vector<RArr> kids, Ctx& c) {
  const int nd = static_cast<int>(kids[0].shape.size());
  if (nd == 0) {
    c.fail("stacking 0-d arrays (tessera: zero-dimensional arrays cannot be concatenated)");
    return {};
  }
  int axis = 0;
  if (e.op == Op::HStack) axis = nd == 1 ? 0 : 1;
  if (e.op == Op::VStack)
    for (RArr& k : kids)
      if (k.shape.size() == 1) k.shape.insert(k.shape.begin(), 1);  // 1-D arrays are rows
  if (e.op == Op::Concat && !normal_axis(e.axis, nd, axis, c)) return {};
  RArr out;
  out.t = kids[0].t;
  out.shape = kids[0].shape;
  out.shape[axis] = 0;
  for (const RArr& k : kids) {
    if (k.t != out.t) {
      c.fail("stacking arrays of different element types (C++ needs astype first)");
      return {};
    }
    bool same = k.shape.size() == out.shape.size();
    for (std::size_t d = 0; same && d < k.shape.size(); ++d)
      same = static_cast<int>(d) == axis || k.shape[d] == out.shape[d];
    if (!same) {
      c.fail("stacking arrays whose shapes differ off the axis");
      return {};
    }
    out.shape[axis] += k.shape[axis];
  }
  out.v.resize(volume(out.shape));
  const Shape strides = row_major_strides(out.shape);
  std::int64_t at = 0;
  for (const RArr& k : kids) {
    for (std::size_t j = 0; j < k.v.size(); ++j) {
      Shape i = unravel(j, k.shape);
      i[axis] += at;
      out.v[ravel(i, strides)] = k.v[j];
    }
    at += k.shape[axis];
  }
  return out;
}

}  // namespace

RArr shape_op(const Expr& e, const std::vector<RArr>& kids, Ctx& c) {
  for (const RArr& k : kids)
    if (k.weak) {
      c.fail("a scalar where an array is needed");
      return {};
    }
  if (is_stack(e.op)) return stack(e, kids, c);
  const RArr& a = kids[0];
  if (a.shape.empty()) {
    c.fail("a shape operation on a 0-d array");
    return {};
  }
  if (e.op == Op::Transpose) return transpose(e, a, c);
  if (e.op == Op::Roll) return roll(e, a, c);
  if (e.dims.empty() || e.dims.size() > 3 || volume(e.dims) != a.v.size()) {  // Reshape
    c.fail("reshape to another size or to more than 3 dimensions");
    return {};
  }
  for (std::int64_t x : e.dims)
    if (x < 1) {
      c.fail("reshape to an empty extent");
      return {};
    }
  RArr out = a;
  out.shape = e.dims;
  return out;
}

}  // namespace fuzz
