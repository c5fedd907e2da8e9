// The generator's shapes and views: launch domains, and the index expressions that view an array
// as a shape, in random spellings (negative bounds, ts::end, steps, trailing axes left out).

#include <algorithm>
#include <string>

#include "fuzz/gen.hpp"

namespace fuzz {
namespace {

// How the entries of an index expression take the axes of an array of shape E to a shape S, in
// order: 'm' maps the next axis of E to the next of S, 'i' drops the next axis of E (an integer
// index), 'n' is a new axis (an axis of S of extent 1).
void matchings(const Shape& E, const Shape& S, std::size_t d, std::size_t j, std::string& cur,
               std::vector<std::string>& out) {
  if (j == S.size()) {
    out.push_back(cur + std::string(E.size() - d, 'i'));
    return;
  }
  for (const char a : {'m', 'i', 'n'}) {
    if (a == 'm' && !(d < E.size() && E[d] >= S[j])) continue;
    if (a == 'i' && d >= E.size()) continue;
    if (a == 'n' && S[j] != 1) continue;
    cur.push_back(a);
    matchings(E, S, d + (a != 'n'), j + (a != 'i'), cur, out);
    cur.pop_back();
  }
}

bool plain_fits(const Shape& E, const Shape& S) {
  bool fits = E.size() == S.size();
  for (std::size_t d = 0; fits && d < S.size(); ++d) fits = E[d] >= S[d];
  return fits;
}

}  // namespace

Sl Gen::sl(std::int64_t start, std::int64_t stop, std::int64_t step) {
  Sl s;
  s.whole = false;
  s.start = start;
  s.stop = stop;
  s.step = step;
  return s;
}
Sl Gen::sl_end(std::int64_t start, std::int64_t step) {
  Sl s = sl(start, 0, step);
  s.to_end = true;
  return s;
}
Sl Gen::index(std::int64_t i) {
  Sl s;
  s.kind = Sl::Int;
  s.start = i;
  return s;
}
Sl Gen::new_axis() {
  Sl s;
  s.kind = Sl::NewAxis;
  return s;
}

namespace {

// One axis of `len` elements from `off` with a step, of an extent `ext`, in a random spelling.
Sl range_entry(Rng& r, std::int64_t off, std::int64_t len, std::int64_t step, std::int64_t ext) {
  Sl s;
  if (off == 0 && len == ext && step == 1 && r.chance(0.7)) return s;
  s.whole = false;
  s.start = off > 0 && r.chance(0.2) ? off - ext : off;  // negative: counted from the end
  s.step = step;
  // Any stop past the last element and not past the next step gives the same elements.
  const std::int64_t last = off + (len - 1) * step;
  const std::int64_t stop = std::min(ext, last + 1 + (step > 1 ? r.below(step) : 0));
  if (stop == ext) {
    if (r.chance(0.7))
      s.to_end = true;
    else
      s.stop = ext;
    return s;
  }
  s.stop = r.chance(0.5) ? stop : stop - ext;
  return s;
}

}  // namespace

std::vector<std::string> Gen::ways(int k, const Shape& S) const {
  std::vector<std::string> out;
  std::string cur;
  matchings(shape_of(k), S, 0, 0, cur, out);
  return out;
}

bool Gen::view_as_exists(int k, const Shape& S) const { return !ways(k, S).empty(); }

Expr Gen::leaf_box(int k, const Shape& off, const Shape& len) {
  const Shape ext = shape_of(k);
  std::vector<Sl> entries;
  bool all_whole = true;
  for (std::size_t d = 0; d < ext.size(); ++d) {
    entries.push_back(range_entry(r, off[d], len[d], 1, ext[d]));
    all_whole = all_whole && entries.back().whole;
  }
  if (all_whole) entries.clear();
  return leaf(k, entries);
}

std::optional<Expr> Gen::view_as(int k, const Shape& S, bool plain) {
  const Shape E = shape_of(k);
  if (plain) {
    if (!plain_fits(E, S)) return std::nullopt;
    Shape off(S.size());
    for (std::size_t d = 0; d < S.size(); ++d) off[d] = r.below(E[d] - S[d] + 1);
    return leaf_box(k, off, S);
  }
  const std::vector<std::string> all = ways(k, S);
  if (all.empty()) return std::nullopt;
  const std::string how = r.pick(all);
  std::vector<Sl> entries;
  std::size_t d = 0, j = 0;
  for (const char a : how) {
    if (a == 'n') {
      entries.push_back(new_axis());
      ++j;
      continue;
    }
    const std::int64_t e = E[d++];
    if (a == 'i') {
      const std::int64_t i = r.below(e);
      entries.push_back(index(r.chance(0.3) ? i - e : i));
      continue;
    }
    const std::int64_t s = S[j++];
    // A step where the extent allows one (a single element may take any step).
    const std::int64_t max_step = s > 1 ? (e - 1) / (s - 1) : 3;
    const std::int64_t step =
        max_step >= 2 && r.chance(0.45) ? 2 + r.below(std::min<std::int64_t>(max_step, 3) - 1) : 1;
    const std::int64_t span = (s - 1) * step + 1;
    entries.push_back(range_entry(r, r.below(e - span + 1), s, step, e));
  }
  // Axes left out at the end are taken whole.
  while (!entries.empty() && entries.back().kind == Sl::Range && entries.back().whole && r.chance(0.6))
    entries.pop_back();
  bool all_whole = true;
  for (const Sl& s : entries) all_whole = all_whole && s.kind == Sl::Range && s.whole;
  if (all_whole) entries.clear();
  return leaf(k, entries);
}

Shape Gen::broadcast_part(const Shape& S) {
  Shape b = S;
  const int drop = r.weighted({4, 2, 1});
  for (int k = 0; k < drop && !b.empty(); ++k) b.erase(b.begin());
  bool changed = b.size() < S.size();
  for (auto& x : b)
    if (x > 1 && r.chance(0.35)) x = 1, changed = true;
  if (!changed && !b.empty()) b[static_cast<std::size_t>(r.below(static_cast<std::int64_t>(b.size())))] = 1;
  return b;
}

Expr Gen::leaf_for(const Shape& S, int anchor, bool exact) {
  const Shape want = !exact && r.chance(0.1) ? broadcast_part(S) : S;
  bool plain = want == S && r.chance(0.65);
  auto candidates = [&](bool p) {
    std::vector<int> out;
    for (int k : arrays())
      if (p ? plain_fits(shape_of(k), want) : view_as_exists(k, want)) out.push_back(k);
    return out;
  };
  std::vector<int> cands = candidates(plain);
  if (cands.empty() && plain) cands = candidates(plain = false);
  if (cands.empty()) return *view_as(r.pick(arrays()), {}, false);  // a 0-d view broadcasts to anything
  const bool take_anchor = anchor >= 0 && std::find(cands.begin(), cands.end(), anchor) != cands.end() && r.chance(0.5);
  return *view_as(take_anchor ? anchor : r.pick(cands), want, plain);
}

int Gen::domain(Shape& S) {
  const int k = r.pick(arrays());
  S = shape_of(k);
  const int nd = static_cast<int>(S.size());
  switch (r.weighted({7, 1.2, 1.2, 0.7})) {
    case 1: {  // halved along one axis: a step-2 view fits
      const int d = r.below(nd);
      if (S[d] >= 3) S[d] = (S[d] + 1) / 2;
      break;
    }
    case 2:  // one axis fewer (an integer index); rarely 0-d
      if (nd >= 2 || r.chance(0.2)) S.erase(S.begin() + r.below(nd));
      break;
    case 3:  // a new axis
      if (nd < 3) S.insert(S.begin() + r.below(nd + 1), 1);
      break;
    default:
      for (auto& x : S) {
        if (x >= 5)
          x -= r.weighted({5, 2, 3});
        else if (x >= 3)
          x -= r.weighted({6, 2});
      }
  }
  return k;
}

}  // namespace fuzz
