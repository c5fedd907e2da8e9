#pragma once
// A half-open box [lo, hi) in up to three dimensions: the unit of ownership, ghost regions and
// messages. Unused trailing dimensions hold [0, 1), so a box always has a well-defined volume.

#include <algorithm>
#include <array>
#include <cstdint>
#include <ostream>
#include <vector>

namespace tessera::detail {

constexpr int kMaxDims = 3;
using Index3 = std::array<std::int64_t, kMaxDims>;

struct Box {
  int ndim = 0;
  Index3 lo{0, 0, 0};
  Index3 hi{1, 1, 1};

  std::int64_t extent(int d) const { return hi[d] - lo[d]; }
  std::int64_t volume() const {
    std::int64_t v = 1;
    for (int d = 0; d < kMaxDims; ++d) v *= std::max<std::int64_t>(0, hi[d] - lo[d]);
    return v;
  }
  bool empty() const { return volume() == 0; }
  bool contains(const Box& b) const {
    if (b.empty()) return true;
    for (int d = 0; d < kMaxDims; ++d)
      if (b.lo[d] < lo[d] || b.hi[d] > hi[d]) return false;
    return true;
  }
  friend bool operator==(const Box& a, const Box& b) { return a.ndim == b.ndim && a.lo == b.lo && a.hi == b.hi; }
  friend bool operator!=(const Box& a, const Box& b) { return !(a == b); }
};

inline Box intersect(const Box& a, const Box& b) {
  Box r;
  r.ndim = a.ndim;
  for (int d = 0; d < kMaxDims; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::max(r.lo[d], std::min(a.hi[d], b.hi[d]));
  }
  return r;
}

inline Box shifted(const Box& a, const Index3& by) {
  Box r = a;
  for (int d = 0; d < a.ndim; ++d) {
    r.lo[d] += by[d];
    r.hi[d] += by[d];
  }
  return r;
}

// The part of `a` outside `b`, as at most 2 * ndim disjoint boxes (a frame around b, cut slab by
// slab along each dimension).
inline std::vector<Box> subtract(const Box& a, const Box& b) {
  const Box cut = intersect(a, b);
  if (cut.empty()) return a.empty() ? std::vector<Box>{} : std::vector<Box>{a};
  std::vector<Box> pieces;
  Box rest = a;
  for (int d = 0; d < a.ndim; ++d) {
    if (rest.lo[d] < cut.lo[d]) {
      Box piece = rest;
      piece.hi[d] = cut.lo[d];
      pieces.push_back(piece);
      rest.lo[d] = cut.lo[d];
    }
    if (cut.hi[d] < rest.hi[d]) {
      Box piece = rest;
      piece.lo[d] = cut.hi[d];
      pieces.push_back(piece);
      rest.hi[d] = cut.hi[d];
    }
  }
  return pieces;
}

// Calls f(first, length) for each row of the box along its last dimension, in row-major order.
template <class F>
void for_each_row(const Box& b, F&& f) {
  if (b.empty()) return;
  if (b.ndim == 0) return f(Index3{0, 0, 0}, std::int64_t(1));
  const int last = b.ndim - 1;
  Index3 x = b.lo;
  while (true) {
    f(x, b.extent(last));
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++x[d] < b.hi[d]) break;
      x[d] = b.lo[d];
    }
    if (d < 0) return;
  }
}

inline std::ostream& operator<<(std::ostream& out, const Box& b) {
  out << '[';
  for (int d = 0; d < b.ndim; ++d) out << (d ? ", " : "") << b.lo[d] << ':' << b.hi[d];
  return out << ']';
}

}  // namespace tessera::detail
