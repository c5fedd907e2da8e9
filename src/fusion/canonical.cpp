// The plan cache's key: a window's ops with their stores numbered in order of first use, each op
// hashed into one word (its stream hash: program, label, argument dtypes, tilings and views),
// plus which of its stores have Array handles. Equal signatures share a plan (docs/FUSION.md,
// "Plan cache").

#include <cstring>

#include "tessera/core/hash.hpp"
#include "tessera/fusion/plan.hpp"

namespace tessera::detail {
namespace {

// A canonical window's op hash must change whenever anything its plan depends on does: two
// windows whose words are equal share a plan (a collision reuses a wrong one). So every field is
// mixed in exactly: small fields share a word where they fit (nearly always), with its top bit 0;
// where one does not fit, a word with the top bit 1 comes first and every field follows in a
// word of its own. No two different inputs give the same words.
constexpr std::uint64_t kWide = 1ULL << 63;

bool fits(std::uint64_t v, int bits) { return (v >> bits) == 0; }

// Two non-negative fields (an origin or offset and an extent): one word where both fit 31 bits.
std::uint64_t mix_pair(std::uint64_t h, std::int64_t first, std::int64_t second) {
  const auto a = static_cast<std::uint64_t>(first), b = static_cast<std::uint64_t>(second);
  return fits(a | b, 31) ? mix64(h, a << 32 | b) : mix64(mix64(mix64(h, kWide), a), b);
}

std::uint64_t mix_instr(std::uint64_t h, const Instr& in) {
  const auto op = static_cast<std::uint64_t>(in.op), type = static_cast<std::uint64_t>(in.type),
             from = static_cast<std::uint64_t>(in.from);
  if (fits(type | from, 4) && fits(std::uint64_t(in.dst) | in.a | in.b | in.c, 11))
    return mix64(h, op | type << 8 | from << 12 | std::uint64_t(in.dst) << 16 | std::uint64_t(in.a) << 27 |
                        std::uint64_t(in.b) << 38 | std::uint64_t(in.c) << 49);
  h = mix64(h, kWide);
  h = mix64(h, op | type << 8 | from << 16 | std::uint64_t(in.dst) << 24);
  return mix64(h, std::uint64_t(in.a) | std::uint64_t(in.b) << 16 | std::uint64_t(in.c) << 32);
}

// Per dimension: the origin and extent in one word, the map's row in another.
std::uint64_t mix_view(std::uint64_t h, const View& v) {
  for (int d = 0; d < kMaxDims; ++d) {
    h = mix_pair(h, v.origin[d], v.extent[d]);
    const auto m0 = static_cast<std::uint64_t>(v.map[d][0]), m1 = static_cast<std::uint64_t>(v.map[d][1]),
               m2 = static_cast<std::uint64_t>(v.map[d][2]);
    if (fits(m0 | m1 | m2, 20)) {
      h = mix64(h, m0 | m1 << 20 | m2 << 40);
    } else {
      h = mix64(mix64(mix64(mix64(h, kWide), m0), m1), m2);
    }
  }
  return h;
}

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The label's length, then its bytes eight to a word.
std::uint64_t mix_label(std::uint64_t h, const std::string& label) {
  return fold_bytes(mix64(h, label.size()), label, mix64);
}

// A store's tiling (step, axis, fixed coordinate, grid, cuts, offset and extent per dimension)
// as one word, computed on the store's first window: a store's tiling never changes.
std::uint64_t tiling_hash(const Store& s) {
  if (const std::uint64_t h = s.tiling_hash()) return h;
  const Tiling& tl = s.tiling();
  std::uint64_t h = 0x7e55;
  for (int d = 0; d < kMaxDims; ++d) {
    const auto step = static_cast<std::uint64_t>(tl.step[d]), fixed = static_cast<std::uint64_t>(tl.fixed[d] + 1),
               axis = static_cast<std::uint64_t>(tl.axis[d]);
    if (fits(step | fixed, 24) && fits(axis, 8)) {
      h = mix64(h, step | fixed << 24 | axis << 48);
    } else {
      h = mix64(mix64(mix64(mix64(h, kWide), step), fixed), axis);
    }
    h = mix_pair(h, tl.offset[d], tl.extent[d]);
    h = mix64(h, reinterpret_cast<std::uintptr_t>(tl.cuts[d]));
  }
  h = mix64(h, static_cast<std::uint64_t>(tl.grid));
  if (h == 0) h = 1;  // 0 means "not computed"
  s.set_tiling_hash(h);
  return h;
}

// An op's hash in the op stream: its program, label, and per argument the store's dtype and
// tiling and the view, but not which stores it touches or which have handles (never 0).
std::uint64_t stream_hash(const Task& t) {
  std::uint64_t oh = 0x1234;
  for (const Instr& in : t.program.code) oh = mix_instr(oh, in);
  for (const Value& v : t.program.constants) oh = mix64(oh, static_cast<std::uint64_t>(v.i64));
  for (std::size_t k = 0; k < t.program.reduce_kinds.size(); ++k)
    oh = mix64(oh, static_cast<std::uint64_t>(t.program.reduce_kinds[k]) * 2 + t.program.reduce_float[k]);
  oh = mix64(oh, static_cast<std::uint64_t>(t.key) | static_cast<std::uint64_t>(t.program.reduce_dim + 2) << 32);
  oh = mix_label(oh, t.label);
  if (t.body) oh = mix64(oh, t.body->signature());
  for (const Arg& a : t.args) {
    const Store& s = *a.store;
    oh = mix64(oh, static_cast<std::uint64_t>(s.dtype()) | std::uint64_t(a.written) << 8 |
                       std::uint64_t(a.created) << 9 | std::uint64_t(s.tiling().ndim) << 16 |
                       std::uint64_t(a.view.ndim) << 24 | std::uint64_t(a.view.store_ndim) << 32);
    oh = mix_view(oh, a.view);
    oh = mix64(oh, tiling_hash(s));
  }
  for (const ReductionOut& r : t.reductions)
    oh = mix64(mix64(oh, static_cast<std::uint64_t>(r.finalize)), bits(r.count));
  return oh == 0 ? 1 : oh;
}

}  // namespace

CanonicalWindow canonicalize(std::vector<Task>& ops, bool everything) {
  CanonicalWindow w;
  // Stores are numbered in order of first use; the number lives in the store under this call's
  // stamp (no map: a steady loop's windows allocate less).
  static std::uint64_t last_stamp = 0;
  const std::uint64_t stamp = ++last_stamp;
  auto canon = [&](const std::shared_ptr<Store>& s) {
    int n;
    if (s->canonical_number(stamp, n)) return n;
    n = static_cast<int>(w.stores.size());
    s->set_canonical_number(stamp, n);
    w.stores.push_back(s);
    return n;
  };
  std::uint64_t h = everything ? 1 : 2;
  auto& words = w.signature.words;
  std::size_t nwords = 1;
  for (const Task& t : ops) nwords += 1 + t.args.size() + t.reductions.size();
  words.resize(nwords);  // filled in place below (push_back was not inlined)
  std::size_t next_word = 0;
  w.stores.reserve(nwords - 1 - ops.size());
  words[next_word++] = h;
  std::size_t nreductions = 0;
  for (const Task& t : ops) nreductions += t.reductions.size();
  w.arg_store.reserve(ops.size(), nwords - 1 - ops.size() - nreductions);
  w.reduction_store.reserve(ops.size(), nreductions);
  w.op_hash.resize(ops.size());
  w.stream_hash.resize(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    Task& t = ops[i];
    if (t.stream_hash == 0) t.stream_hash = stream_hash(t);
    // Which stores have Array handles now: a bit per store, in order, after a leading 1 bit (so
    // that the count shows); mixed in when 63 have been taken.
    std::uint64_t held = 1, all_held = 0x5678;
    auto take_held = [&](bool bit) {
      if (held >> 63) all_held = mix64(all_held, held), held = 1;
      held = held << 1 | bit;
    };
    for (const Arg& a : t.args) take_held(a.store->user_refs() > 0);
    for (const ReductionOut& r : t.reductions) take_held(r.out->user_refs() > 0);
    std::uint64_t oh = t.stream_hash;
    w.stream_hash[i] = oh;
    oh = mix64(oh, mix64(all_held, held));
    w.op_hash[i] = oh;
    words[next_word++] = oh;
    w.arg_store.next_op();
    w.reduction_store.next_op();
    for (const Arg& a : t.args) {
      const int n = canon(a.store);
      w.arg_store.add(n);
      words[next_word++] = static_cast<std::uint64_t>(n);
    }
    for (const ReductionOut& r : t.reductions) {
      const int n = canon(r.out);
      w.reduction_store.add(n);
      words[next_word++] = static_cast<std::uint64_t>(n) | (1ULL << 40);
    }
  }
  w.arg_store.next_op();
  w.reduction_store.next_op();
  // Four chains folded at the end: one chain waits on its multiply for every word.
  std::uint64_t lanes[4] = {h, 0x51, 0x52, 0x53};
  for (std::size_t k = 0; k < words.size(); ++k) lanes[k % 4] = mix64(lanes[k % 4], words[k]);
  w.signature.hash = mix64(mix64(mix64(lanes[0], lanes[1]), lanes[2]), lanes[3]);
  return w;
}

void set_loop_heads(CanonicalWindow& window, std::vector<int> heads) {
  for (int j : heads) {
    window.signature.words.push_back(static_cast<std::uint64_t>(j) | (1ULL << 41));
    window.signature.hash = mix64(window.signature.hash, window.signature.words.back());
  }
  window.loop_heads = std::move(heads);
}

}  // namespace tessera::detail
