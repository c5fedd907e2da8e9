// The window planner: cut the window into the longest groups that the seven fusion rules allow,
// decide which stores are temporaries, and build one fused program per group.
//
// Rules (DESIGN.md): an op joins the current group only if
//   1. its launch domain has the same tiling as the group's;
//   2. it does not read or write a store that the group wrote through a different view;
//   3. it does not write a store that the group read through a different view, unless the write
//      covers most of the store: then the group writes a fresh buffer (buffer renaming);
//   4. it does not read a value reduced in the group;
//   5. the group's halos can be exchanged before it starts (follows from 2: a shifted read of a
//      store written in the group is a read through a different view);
//   6. the group's kernel keeps to kMaxArgs arguments (they travel in the kernel parameters);
//   7. the op does not come after the start of the loop's next iteration (an op repeating the
//      window's first op, or the op where a setup before the loop ends: find_loop_op) once the
//      group spans kLoopSpan ops.
// Scalar-only ops (0-d in, 0-d out) are not grouped: their consumers recompute them inline, and
// they run as kernels of their own only if their result is still needed after the window.
// Elementwise ops whose result is a temporary are rematerialized the same way (recomputed inside
// each consumer, never stored) when the byte model says recomputing reads less than storing and
// loading the result, and their inputs do not change before the consumers run, or change only in
// the consumer's group, into a fresh buffer that the recomputation reads the old values beside
// (recomputations_hold).
// A task with partition constraints (a product, an SpMV, a kernel of the user's own: Task::body)
// is a group of its own, whose arguments are all kernel arguments: nothing it touches lives in
// registers, nothing it reads is recomputed inside it.

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "tessera/core/error.hpp"
#include "tessera/fusion/nesting.hpp"
#include "tessera/fusion/plan.hpp"
#include "tessera/program/interpreter.hpp"

namespace tessera::detail {
namespace {

std::string short_name(const std::string& label) {
  auto open = label.find('[');
  auto close = label.rfind(']');
  return open == std::string::npos ? label : label.substr(open + 1, close - open - 1);
}

bool is_scalar_domain(const Task& t) { return t.args[t.key].store->ndim() == 0; }

// Launch domains are views that induce a tiling (every view the API makes does).
Tiling launch_tiling(const Arg& key) { return induced(key.store->tiling(), key.view).value_or(Tiling{}); }

struct ViewKey {
  int store;
  View view;
  bool renamed = false;  // the fresh buffer of a renamed store, apart from its current one
  bool operator<(const ViewKey& o) const {
    if (store != o.store) return store < o.store;
    if (renamed != o.renamed) return renamed < o.renamed;
    return view < o.view;
  }
};

// Rule 7: a group that spans this many ops ends where the loop repeats. A grown window then runs
// a long loop body (Black-Scholes: 65 ops) one iteration per kernel: the kernel stays the same
// however far the window grows (nothing new to compile mid-run), and no kernel computes
// iterations whose results the next one overwrites. Default windows (64 ops) never reach it.
constexpr int kLoopSpan = 64;

class Planner {
 public:
  Planner(const std::vector<Task>& ops, const CanonicalWindow& w, bool everything)
      : ops_(ops), w_(w), everything_(everything), n_(static_cast<int>(ops.size())) {}

  Plan run() {
    loop_op_ = find_loop_op();
    analyse();
    pinned_.assign(n_, false);
    for (int round = 0;; ++round) {
      choose_floating();
      choose_domains();
      if (recomputations_hold()) break;
      if (round > n_) raise("internal: the planner's recomputations did not settle");
    }
    Plan plan;
    find_deferred();
    for (int i = 0; i < n_; ++i)
      if (i >= cut_ || deferred(i)) plan.kept.push_back(i);
    // Groups and materialized scalar ops, in program order.
    std::size_t g = 0;
    for (int i = 0; i < cut_; ++i) {
      while (g < groups_.size() && !groups_[g].ops.empty() && groups_[g].ops.front() == i) {
        plan.groups.push_back(build_group(groups_[g]));
        previous_group_ = &groups_[g];
        ++g;
      }
      if (floating_[i] && must_materialize(i)) plan.groups.push_back(build_scalar(i));
    }
    return plan;
  }

 private:
  struct Group {
    std::vector<int> ops;
    std::string reason = "end of window";
    std::set<int> renamed;              // stores written into a fresh buffer (rule 3 lifted)
    std::set<int> recomputed_from_old;  // of those, stores that ops recomputed after the write read
    int nested_outer = -1;  // an outer reduction of the op before it; so are the ops after it (nested_reduction)
    int epilogue = -1;      // ops[epilogue..]: the epilogue of the group's reductions (epilogue_refusal)
    int sweep = -1;         // ops[sweep], the last: a reduction sweeping the rows again (sweep_refusal)
  };

  // Rule 3 is lifted by renaming when the write covers at least half of the store: the frame
  // copy then moves at most as much as the write itself.
  bool can_rename(int store, const View& view) const {
    const Store& s = *w_.stores[store];
    return s.ndim() > 0 && view.is_box() && 2 * view.volume() >= s.full().volume();
  }

  // Where the program's loop starts in this window, for rule 7 and the cut: the window's first op,
  // since windows are cut where it repeats, unless it never repeats. Then the window begins with
  // code before the loop (a program's setup, recorded unflushed before its loop): the loop starts
  // at the first op from which the ops repeat one period of at least kLoopSpan later (the ops
  // [p, p + L) equal [p + L, p + 2L)). Without this, such a window fuses whole, grows up to its
  // limit, and its kernel (setup and several iterations) is one that no later window repeats.
  int find_loop_op() const {
    const std::vector<std::uint64_t>& h = w_.op_hash;
    for (int j = 1; j < n_; ++j)
      if (h[j] == h[0]) return 0;
    std::unordered_map<std::uint64_t, std::vector<int>> at;
    for (int i = 0; i < n_; ++i) at[h[i]].push_back(i);
    for (int p = 1; p + 2 * kLoopSpan <= n_; ++p)
      for (int j : at[h[p]])
        if (j - p >= kLoopSpan && 2 * j - p <= n_ && std::equal(h.begin() + p, h.begin() + j, h.begin() + j)) return p;
    return 0;
  }

  // Per op: which stores it reads and writes, and the stores its values depend on (roots_).
  void analyse() {
    const int nstores = static_cast<int>(w_.stores.size());
    last_write_.assign(nstores, -1);
    writers_.assign(nstores, {});
    created_.assign(nstores, false);
    readers_.assign(nstores, {});
    loads_.assign(n_, {});
    for (int i = 0; i < n_; ++i) {
      const Task& t = ops_[i];
      loads_[i].assign(t.args.size(), false);
      for (const Instr& in : t.program.code)
        if (in.op == OpCode::Load) loads_[i][in.a] = true;
      for (std::size_t a = 0; t.body && a < t.args.size(); ++a) loads_[i][a] = t.body->reads(static_cast<int>(a));
      for (std::size_t a = 0; a < t.args.size(); ++a) {
        const int s = w_.arg_store[i][a];
        if (t.args[a].written) last_write_[s] = i, writers_[s].push_back(i);
        if (t.args[a].created) created_[s] = true;
        if (reads(i, static_cast<int>(a))) readers_[s].push_back(i);
      }
      for (int s : w_.reduction_store[i]) last_write_[s] = i, created_[s] = true, writers_[s].push_back(i);
    }
    roots_.assign(n_, {});
    for (int i = 0; i < n_; ++i) {
      std::vector<int>& r = roots_[i];
      for (std::size_t a = 0; a < ops_[i].args.size(); ++a) {
        if (!reads(i, static_cast<int>(a))) continue;
        const int s = w_.arg_store[i][a];
        r.push_back(s);
        const int creator = created_[s] && !writers_[s].empty() ? writers_[s].front() : -1;
        if (creator >= 0 && creator < i) r.insert(r.end(), roots_[creator].begin(), roots_[creator].end());
      }
      std::sort(r.begin(), r.end());
      r.erase(std::unique(r.begin(), r.end()), r.end());
    }
    root_users_.assign(nstores, {});
    for (int i = 0; i < n_; ++i)
      for (int s : roots_[i]) root_users_[s].push_back(i);  // in op order
  }

  // Whether an op in (after, upto] depends on store s (has it among its roots_).
  bool depends_between(int s, int after, int upto) const {
    const std::vector<int>& users = root_users_[s];
    auto it = std::upper_bound(users.begin(), users.end(), after);
    return it != users.end() && *it <= upto;
  }

  // Which ops are recomputed inside their readers (floating), and so which op produces each
  // store that readers recompute; again in each planning round, as pinned_ grows.
  void choose_floating() {
    producer_.assign(w_.stores.size(), -1);
    floating_.assign(n_, false);
    shifted_cone_.assign(n_, -1);
    positional_.assign(n_, -1);
    reads_known_.assign(n_, 0);
    reads_memo_.assign(n_, {});
    for (int i = 0; i < n_; ++i) {
      const Task& t = ops_[i];
      if (!t.reductions.empty() || t.body) continue;
      if (!is_scalar_domain(t)) {
        if (!pinned_[i] && rematerialize(i)) {
          floating_[i] = true;
          producer_[written_store(i)] = i;
        }
        continue;
      }
      int written = 0, out = -1;
      bool ok = true;
      for (std::size_t a = 0; a < t.args.size(); ++a) {
        const int s = w_.arg_store[i][a];
        if (t.args[a].written) {
          ++written;
          out = s;
          ok = ok && t.args[a].created;
        } else if (last_write_[s] > i) {
          ok = false;  // an input changes later in the window: recomputing it later would be wrong
        } else if (t.args[a].store->ndim() > 0) {
          ok = false;  // a 0-d view of a distributed store (a(3, -1)): its readers' domains cannot read it
        }
      }
      // Recomputing the op inside its readers is only right while its result is not overwritten
      // (and a task's body has no registers to recompute it in).
      if (ok && written == 1 && last_write_[out] == i && !read_by_task(out)) {
        floating_[i] = true;
        producer_[out] = i;
      }
    }
  }

  bool read_by_task(int store) const {
    for (int r : readers_[store])
      if (ops_[r].body) return true;
    return false;
  }

  // Rules 2 and 3 compare the views a group reads and writes a store through: two different
  // views conflict only where their elements can meet (may_meet: their bounding boxes intersect
  // and no step keeps them apart), so a reflective boundary `h(all, 0).assign(h(all, 1))` joins
  // the group that read h(all, 1).
  static bool overlap(const View& a, const View& b) { return may_meet(a, b); }
  // A view written in the group that a read or write through `view` conflicts with, or nullptr.
  static const View* conflicting(const std::map<int, std::vector<View>>& written, int store, const View& view) {
    auto it = written.find(store);
    if (it == written.end()) return nullptr;
    for (const View& w : it->second)
      if (w != view && overlap(w, view)) return &w;
    return nullptr;
  }
  // Whether a read of (store, view) takes the value the group stored there (a register).
  static bool forwarded(const std::map<int, std::vector<View>>& written, const ViewKey& r) {
    auto it = written.find(r.store);
    return it != written.end() && std::find(it->second.begin(), it->second.end(), r.view) != it->second.end();
  }

  // Launch domains (rule 1). An op whose results are temporaries read whole, and only by later
  // ops of the window, has no tiling of its own to keep: it is flexible, and runs over the launch
  // domain of its first reader (recursively: a chain of sums runs over the domain of the
  // statement's assign). Its operands are then read through their views relative to that domain
  // (halos where shifted), and its results live in registers. That holds only if every reader
  // lands in the flexible op's group (else the result would be stored, tiled like the domain it
  // ran over rather than like its own store): a flexible op for which grouping and the cut do not
  // achieve that stops being flexible, and the window is grouped again.
  bool flexible(int i) const {
    const Task& t = ops_[i];
    if (floating_[i] || !t.reductions.empty() || is_scalar_domain(t) || t.body) return false;
    bool writes = false;
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      if (!t.args[a].written) continue;
      const int s = w_.arg_store[i][a];
      const Store& store = *w_.stores[s];
      if (!t.args[a].created || store.user_refs() > 0 || last_write_[s] != i || readers_[s].empty() ||
          t.args[a].view != store.whole())
        return false;
      for (int r : readers_[s]) {
        if (r <= i || ops_[r].body) return false;  // a task reads it where its own tiling puts it
        for (std::size_t b = 0; b < ops_[r].args.size(); ++b)
          if (w_.arg_store[r][b] == s && ops_[r].args[b].view != store.whole()) return false;
      }
      writes = true;
    }
    return writes && !consumers(i).empty();
  }

  // The grouped ops that read op i's results: its readers, and for readers recomputed inline
  // (floating), the ops they are inlined into.
  std::vector<int> consumers(int i) const {
    std::vector<int> out;
    const Task& t = ops_[i];
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      if (!t.args[a].written) continue;
      for (int r : readers_[w_.arg_store[i][a]]) {
        if (!floating_[r]) {
          out.push_back(r);
        } else if (!is_scalar_domain(ops_[r])) {
          const std::vector<int> further = consumers(r);
          out.insert(out.end(), further.begin(), further.end());
        }
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  void choose_domains() {
    flexible_.assign(n_, false);
    for (int i = 0; i < n_; ++i) flexible_[i] = flexible(i);
    for (int round = 0; round <= n_; ++round) {
      anchor_.assign(n_, 0);
      for (int i = n_ - 1; i >= 0; --i) anchor_[i] = flexible_[i] ? anchor_[consumers(i).front()] : i;
      groups_.clear();
      form_groups();
      choose_cut();
      std::vector<int> group_of(n_, -1);
      for (std::size_t g = 0; g < groups_.size(); ++g)
        for (int i : groups_[g].ops) group_of[i] = static_cast<int>(g);
      bool settled = true;
      for (int i = 0; i < n_; ++i) {
        if (!flexible_[i] || launch_of(i).aligned(launch_tiling(ops_[i].args[ops_[i].key]))) continue;
        for (int r : consumers(i))
          if (group_of[i] < 0 || group_of[r] != group_of[i]) flexible_[i] = false;
        settled = settled && flexible_[i];
      }
      if (settled) return;
    }
    raise("internal: the planner's launch domains did not settle");
  }

  // Whether every input of a recomputed (floating) op that is written after it, up to one of its
  // readers, is written only in the group of each kernel that recomputes it, into a fresh buffer
  // there (renamed: the recomputation reads the values from before the group). Otherwise the
  // first such op is pinned (stored where it runs), and the window is planned again.
  bool recomputations_hold() {
    std::vector<int> group_of(n_, -1);
    for (std::size_t g = 0; g < groups_.size(); ++g)
      for (int i : groups_[g].ops) group_of[i] = static_cast<int>(g);
    for (int q = 0; q < n_; ++q) {
      if (!floating_[q] || is_scalar_domain(ops_[q])) continue;
      const int out = written_store(q);
      if (readers_[out].empty()) continue;
      const int last_reader = readers_[out].back();
      std::vector<ViewKey> inputs;
      effective_reads(q, inputs);
      std::vector<int> kernels;  // the grouped ops that recompute q
      bool computed = false;
      for (const ViewKey& r : inputs) {
        const std::vector<int>& w = writers_[r.store];
        for (auto it = std::upper_bound(w.begin(), w.end(), q); it != w.end() && *it <= last_reader; ++it) {
          if (!computed) kernels = consumers(q), computed = true;
          for (int c : kernels) {
            const int g = group_of[c];
            if (g < 0 || group_of[*it] != g || groups_[g].renamed.count(r.store) == 0) {
              pinned_[q] = true;
              return false;
            }
          }
        }
      }
    }
    return true;
  }

  // The launch domain op i runs over (its anchor's key view).
  Tiling launch_of(int i) const {
    const Task& t = ops_[anchor_[i]];
    return launch_tiling(t.args[t.key]);
  }

  // Whether elementwise op i is recomputed inside its readers instead of being stored (see the top
  // of the file). Its result must be a temporary (created by i, no user handle, written whole),
  // and the byte model must favour it: storing costs one write plus one read per reader;
  // recomputing costs, per reader, the inputs of i that neither the reader nor an op between i
  // and it depends on (roots_: those are most likely read by the reader's kernel anyway). An input of i may be
  // written after i, up to a reader, only in the reader's group and into a fresh buffer (renamed),
  // which the recomputation reads the old values from: recomputations_hold() checks that once
  // the groups are formed, and stores i otherwise.
  bool rematerialize(int i) {
    const Task& t = ops_[i];
    int out = -1, written = 0;
    for (std::size_t a = 0; a < t.args.size(); ++a)
      if (t.args[a].written) {
        ++written;
        out = w_.arg_store[i][a];
        if (!t.args[a].created || t.args[a].view != w_.stores[out]->whole()) return false;
      }
    if (written != 1 || last_write_[out] != i || w_.stores[out]->user_refs() > 0) return false;
    if (read_by_task(out)) return false;
    // Readers may read the result through any view (a shifted or strided one): i is then
    // recomputed there, its inputs read through the composed views. Values that depend on where
    // the element is (its index, its coordinates, generated random numbers, also in the ops
    // inlined into i) are recomputed only for readers that read the result whole.
    const bool positional = is_positional(i);
    std::vector<ViewKey> inputs;
    effective_reads(i, inputs);
    std::set<int> input_stores;
    for (const ViewKey& r : inputs) {
      if (r.store == out) return false;
      input_stores.insert(r.store);
    }
    // Each view recomputed i reads is an argument of the kernel that recomputes it: keep room
    // for the reader's own (rule 6 cannot split a single op).
    if (std::set<ViewKey>(inputs.begin(), inputs.end()).size() > static_cast<std::size_t>(kMaxArgs / 2)) return false;
    const Store& o = *w_.stores[out];
    // Recomputed at shifts only one level deep: an op read through a shifted view whose own
    // recomputation reads another recomputed op through one would multiply the work at every
    // level (a reconstruction, its slopes, its differences: each shift recomputes the whole cone).
    // Positional values are recomputed only for readers that read them whole.
    bool read_shifted = false;
    for (int j : readers_[out])
      for (std::size_t a = 0; a < ops_[j].args.size(); ++a)
        read_shifted = read_shifted || (w_.arg_store[j][a] == out && ops_[j].args[a].view != o.whole());
    if (read_shifted && (positional || recomputes_shifted(i))) return false;
    const double out_bytes = static_cast<double>(o.full().volume()) * size_of(o.dtype());
    double stored = out_bytes, recomputed = 0;
    int scanned = i;  // the ops after i up to the current reader (or a later one read before it)
    for (int j : readers_[out]) {
      scanned = std::max(scanned, j);
      for (int s : input_stores) {
        const Store& in = *w_.stores[s];
        if (in.ndim() > 0 && !depends_between(s, i, scanned))
          recomputed += static_cast<double>(in.full().volume()) * size_of(in.dtype());
      }
      stored += out_bytes;
    }
    return recomputed < stored;
  }

  // Whether op i, recomputed, recomputes an op through a view that is not its whole result
  // (memoized: choose_floating() decides the ops before i first, and they stay decided).
  bool recomputes_shifted(int i) {
    if (shifted_cone_[i] >= 0) return shifted_cone_[i];
    const Task& t = ops_[i];
    bool shifted = false;
    for (std::size_t a = 0; a < t.args.size() && !shifted; ++a) {
      if (!reads(i, static_cast<int>(a))) continue;
      const int s = w_.arg_store[i][a];
      const int p = producer_[s];
      if (p < 0 || p >= i || is_scalar_domain(ops_[p])) continue;
      shifted = t.args[a].view != w_.stores[s]->whole() || recomputes_shifted(p);
    }
    shifted_cone_[i] = shifted;
    return shifted;
  }

  // Whether op i's values depend on where the element is, seen through the ops it will inline
  // (memoized per planning round, like reads_of).
  bool is_positional(int i) const {
    if (positional_[i] >= 0) return positional_[i];
    const Task& t = ops_[i];
    bool positional = false;
    for (const Instr& in : t.program.code)
      positional = positional || in.op == OpCode::Index || in.op == OpCode::Coord || in.op == OpCode::Random;
    for (std::size_t a = 0; a < t.args.size() && !positional; ++a) {
      const int p = reads(i, static_cast<int>(a)) ? producer_[w_.arg_store[i][a]] : -1;
      positional = p >= 0 && p < i && is_positional(p);
    }
    positional_[i] = positional;
    return positional;
  }

  // Does op i load argument a (as opposed to only storing it)?
  bool reads(int i, int a) const { return loads_[i][a]; }

  // The stores op i reads, seen through the ops it will inline: each view of a store that one op
  // loads once, in the order of their first reads; `by`, if given, gets the op that loads each (i,
  // or an op inlined into it).
  void effective_reads(int i, std::vector<ViewKey>& out, std::vector<int>* by = nullptr) const {
    for (const EffectiveRead& r : reads_of(i)) {
      out.push_back(r.key);
      if (by) by->push_back(r.loader);
    }
  }

  // A read of effective_reads, and whether a reader of the op's result through a view reads it
  // through that view composed with this one (not where a 0-d store is read, or lies between).
  struct EffectiveRead {
    ViewKey key;
    int loader;
    bool composes;
    bool operator==(const EffectiveRead& o) const {
      return key.store == o.key.store && loader == o.loader && composes == o.composes && key.view == o.key.view;
    }
  };

  // Op i's effective reads, computed once per planning round (producer_ changes only in
  // choose_floating) from those of the ops it inlines, composed with the views it reads their
  // results through (composition is associative: reading p through v, inside a reader that reads
  // i through w, is reading p through compose(v, w)). Expanding the ops it inlines afresh at every
  // call instead visited each path through them: a window of 512 ops of a shallow-water step
  // took about 0.5 s to plan.
  const std::vector<EffectiveRead>& reads_of(int i) const {
    if (reads_known_[i]) return reads_memo_[i];
    std::vector<EffectiveRead> out;
    const auto add = [&](EffectiveRead r) {
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(std::move(r));
    };
    const Task& t = ops_[i];
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      if (!reads(i, static_cast<int>(a))) continue;
      const int s = w_.arg_store[i][a];
      const View& view = t.args[a].view;
      const bool spread = w_.stores[s]->ndim() > 0;  // a 0-d store is read whole, wherever
      const int p = producer_[s];
      if (p >= 0 && p < i) {
        for (const EffectiveRead& r : reads_of(p))
          add({{r.key.store, spread && r.composes ? compose(r.key.view, view) : r.key.view},
               r.loader,
               spread && r.composes});
      } else {
        add({{s, view}, i, spread});
      }
    }
    reads_memo_[i] = std::move(out);
    reads_known_[i] = 1;
    return reads_memo_[i];
  }

  // The view an argument of an op inlined through `through` reads (0-d stores are read whole).
  static View seen_through(const Arg& arg, const View* through) {
    return through && arg.store->ndim() > 0 ? compose(arg.view, *through) : arg.view;
  }

  // A store written by a group stays visible after op i (so it is a kernel argument) if a user
  // handle or a later op can read it, or it existed before the window.
  bool visible_after(int store, int i) const {
    if (w_.stores[store]->user_refs() > 0 || !created_[store]) return true;
    return !readers_[store].empty() && readers_[store].back() > i;  // readers are in op order
  }

  // Rule 6: how many kernel arguments the group would have with op i: the views it reads from
  // outside the group, and the stores it writes that are visible after op i. An upper bound: a
  // later op may still turn a written store into a temporary (reads of stores written in the
  // group are forwarded registers, never arguments). `visible` holds the group's written stores
  // visible after op i - 1; those that op i reads last are dropped here, each once.
  std::size_t arguments_with(int i, const std::vector<ViewKey>& reads_i, const std::vector<char>& old_read,
                             const std::set<ViewKey>& external, const std::map<int, std::vector<View>>& written,
                             std::set<int>& visible) const {
    std::set<ViewKey> new_reads;
    for (std::size_t k = 0; k < reads_i.size(); ++k)
      if ((old_read[k] || !forwarded(written, reads_i[k])) && external.count(reads_i[k]) == 0)
        new_reads.insert(reads_i[k]);
    for (auto it = visible.begin(); it != visible.end();)
      it = visible_after(*it, i) ? std::next(it) : visible.erase(it);
    std::size_t count = external.size() + new_reads.size() + visible.size();
    const Task& t = ops_[i];
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      const int s = w_.arg_store[i][a];
      if (t.args[a].written && visible.count(s) == 0 && visible_after(s, i)) ++count;
    }
    return count;
  }

  // Whether op i reduces, along an axis, the result of the current group's reduction along an
  // axis inside the group's kernel (a nested reduction, nesting.hpp); returns why not ("" if it
  // does). The group's last op must be its only reduction, whose result is a temporary read by op
  // i only, and nothing else the group writes may be visible after it: the kernel, over the
  // result's domain, then stores nothing but op i's outputs. Nesting must not move data that
  // stays in place today: an operand aligned with the group's launch domain, which cuts a reduced
  // dimension, would have to be gathered (the fallback then stores the inner result, as before).
  // Whether op i is an outer reduction of op inner's result, read whole and alone (the part of
  // nested_reduction about op i itself); returns why not ("" if it is).
  std::string outer_reduction(int i, int inner) const {
    const Task& t = ops_[i];
    const Task& in = ops_[inner];
    if (t.body || t.reductions.size() != 1 || t.program.reduce_dim < 0) return "not a reduction along an axis";
    int loaded = -1;
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      if (t.args[a].written) return "it writes memory";
      if (!reads(i, static_cast<int>(a))) continue;
      if (loaded >= 0) return "it reads more than the inner result";
      loaded = static_cast<int>(a);
    }
    if (loaded < 0) return "it reads nothing";
    const int s = w_.arg_store[i][loaded];
    if (in.reductions.size() != 1 || w_.reduction_store[inner].front() != s || in.program.reduce_dim < 0)
      return "it does not reduce the group's last reduction along an axis";
    if (t.args[loaded].view != w_.stores[s]->whole()) return "it reads the inner result through a view";
    for (const Instr& c : t.program.code)
      if (c.op == OpCode::Index || c.op == OpCode::Random || (c.op == OpCode::Coord && c.a != t.program.reduce_dim))
        return "its values depend on the element's position";
    if (!nesting(in, *w_.stores[s], t, *w_.stores[w_.reduction_store[i].front()]))
      return "it reduces the inner result's kept length-1 axis";
    return "";
  }

  // The other readers of the inner reduction's result, when each is an outer reduction of it
  // like op i (k-means' argmin and min of the distances): along the same dimension, into a result
  // of the same tiling, and after op i with only ops recomputed inline between them. They nest
  // into op i's kernel too. nullopt where some other reader is not such.
  std::optional<std::vector<int>> nested_siblings(int i, int inner) const {
    const int s = w_.reduction_store[inner].front();
    const Task& t = ops_[i];
    const Store& result = *w_.stores[w_.reduction_store[i].front()];
    std::vector<int> out;
    int previous = i;
    for (int j : readers_[s]) {
      if (j == i) continue;
      if (j < i || out.size() + 2 > static_cast<std::size_t>(kMaxReductions)) return std::nullopt;
      for (int k = previous + 1; k < j; ++k)
        if (!floating_[k]) return std::nullopt;
      const Task& u = ops_[j];
      if (floating_[j] || !outer_reduction(j, inner).empty() || u.program.reduce_dim != t.program.reduce_dim)
        return std::nullopt;
      const Store& other = *w_.stores[w_.reduction_store[j].front()];
      if (!(other.full() == result.full()) || !same_parts(other.tiling(), result.tiling())) return std::nullopt;
      out.push_back(j);
      previous = j;
    }
    return out;
  }

  std::string nested_reduction(int i, const Group& group, const std::set<ViewKey>& external) const {
    const Task& t = ops_[i];
    const int inner = group.ops.back();
    const Task& in = ops_[inner];
    if (std::string why = outer_reduction(i, inner); !why.empty()) return why;
    const int s = w_.reduction_store[inner].front();
    const std::optional<std::vector<int>> siblings = nested_siblings(i, inner);
    if (w_.stores[s]->user_refs() > 0 || !siblings || writers_[s] != std::vector<int>{inner})
      return "the inner result store#" + std::to_string(w_.stores[s]->id()) + " is read elsewhere or held";
    int reductions = 0;
    for (int k : group.ops) reductions += !ops_[k].reductions.empty();
    if (reductions != 1 || !group.renamed.empty()) return "the group has other reductions or renames a buffer";
    std::vector<int> members = group.ops;
    members.push_back(i);
    members.insert(members.end(), siblings->begin(), siblings->end());
    for (int k : group.ops)
      for (std::size_t a = 0; a < ops_[k].args.size(); ++a)
        if (ops_[k].args[a].written && live_after(w_.arg_store[k][a], members))
          return "the group stores store#" + std::to_string(w_.stores[w_.arg_store[k][a]]->id()) + ", read later";
    const std::optional<Nesting> g = nesting(in, *w_.stores[s], t, *w_.stores[w_.reduction_store[i].front()]);
    std::vector<std::pair<const Store*, View>> operands;
    for (const ViewKey& r : external) operands.push_back({w_.stores[r.store].get(), r.view});
    return gathered_operand(*g, launch_of(inner), operands);
  }

  // Whether op i may join the current group's epilogue (Program::epilogue, nesting.hpp): run once
  // per row of the group's reductions along the last dimension, reading their results from
  // registers. Returns why not ("" if it may). `starting`: op i would begin the epilogue; `body`
  // the stores the group's ops before the epilogue read or write, `body_written` those they write.
  std::string epilogue_refusal(int i, const Group& group, const std::vector<ViewKey>& reads_i,
                               const std::vector<char>& reduced, const std::set<int>& body,
                               const std::set<int>& body_written, const Tiling& body_domain, bool starting) const {
    const Task& t = ops_[i];
    if (!t.reductions.empty()) return "it reduces";
    if (is_scalar_domain(t)) return "it is a scalar op";
    for (const Instr& c : t.program.code)
      if (c.op == OpCode::Index || c.op == OpCode::Random || c.op == OpCode::Coord)
        return "its values depend on the element's position";
    const auto name = [&](int s) { return "store#" + std::to_string(w_.stores[s]->id()); };
    // Nor may the ops it recomputes inline (an `arange` temporary): the epilogue runs once per
    // row, where an element's position is the row's, not the element's of the op's own shape.
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      const int s = w_.arg_store[i][a];
      const int p = !reduced[s] && reads(i, static_cast<int>(a)) ? producer_[s] : -1;
      if (p >= 0 && p < i && !is_scalar_domain(ops_[p]) && is_positional(p))
        return "it recomputes " + name(s) + ", whose values depend on the element's position";
    }
    for (const ViewKey& r : reads_i) {
      if (reduced[r.store] && r.view != w_.stores[r.store]->whole())
        return "it reads the reduction's result " + name(r.store) + " through a view";
      if (!reduced[r.store] && body_written.count(r.store))
        return "it reads " + name(r.store) + ", which the reduction's kernel writes";
    }
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      const int s = w_.arg_store[i][a];
      if (t.args[a].written && (body.count(s) || reduced[s]))
        return "it writes " + name(s) + ", which the reduction's kernel reads";
    }
    if (!starting) return "";
    if (!group.renamed.empty()) return "the group renames a buffer";
    std::vector<int> members = group.ops;
    members.push_back(i);
    // The kernel runs over the epilogue's tiling: a store the reduction's side writes would be
    // written through a domain it is not aligned with.
    for (int s : body_written)
      if (live_after(s, members)) return "the group's earlier ops store " + name(s);
    for (int k : group.ops)
      for (int s : w_.reduction_store[k])
        if (live_after(s, members)) return "the reduction's result " + name(s) + " is read after the epilogue or held";
    const Task& first = ops_[anchor_[group.ops.front()]];
    const View& key = first.args[first.key].view;
    const Task& head = ops_[anchor_[i]];
    const View& op_key = head.args[head.key].view;
    const std::optional<View> lift = epilogue_lift(key, op_key.ndim, op_key.extent);
    if (!lift) return "it runs over another shape than the reduction's result";
    const std::optional<Tiling> lifted = induced(head.args[head.key].store->tiling(), compose(op_key, *lift));
    if (!lifted || !same_parts(*lifted, body_domain) || !same_holders(*lifted, launch_of(i)))
      return "the reduction's operands are cut along the reduced dimension, or tiled unlike its result";
    return "";
  }

  // Whether op i, a reduction along dimension 1 (a column's sum) over the group's 2-D domain,
  // may sweep the rows once more after the group's reductions along the last dimension, reading
  // their results (Program::sweep): logistic regression's gradient (y - sigmoid(X @ w)) @ X,
  // whose X is then read once. Returns why not ("" if it may).
  std::string sweep_refusal(int i, const Group& group, const std::vector<ViewKey>& reads_i,
                            const std::vector<char>& reduced, const std::map<int, std::vector<View>>& written,
                            const Tiling& domain) const {
    const Task& t = ops_[i];
    const auto name = [&](int s) { return "store#" + std::to_string(w_.stores[s]->id()); };
    if (group.epilogue >= 0) return "the group has an epilogue";
    if (!group.renamed.empty()) return "the group renames a buffer";
    if (!written.empty()) return "the group's earlier ops store " + name(written.begin()->first);
    const View& key = t.args[t.key].view;
    if (domain.ndim != 2 || key.ndim != 2) return "it does not run over a matrix";
    if (domain.cuts[1] && domain.cuts[1]->parts > 1) return "its rows are split across ranks (the columns are cut)";
    if (key.extent[1] > kMaxSweepColumns)
      return "its rows are longer than " + std::to_string(kMaxSweepColumns) + " elements";
    // The reductions' results, read at the row of the element: one value per row (a keepdims
    // result's second axis of length 1), stretched along it.
    for (const ViewKey& r : reads_i) {
      if (!reduced[r.store]) continue;
      const View& v = r.view;
      const Box full = w_.stores[r.store]->full();
      bool row_value = v.ndim == 2 && v.extent[0] == key.extent[0] && v.extent[1] == key.extent[1] &&
                       full.extent(0) == key.extent[0] && v.map[0][0] == 1 && v.map[0][1] == 0;
      for (int d = 0; d < v.store_ndim && row_value; ++d)
        row_value = v.origin[d] == 0 && (d == 0 || (full.extent(d) == 1 && v.map[d][0] == 0 && v.map[d][1] == 0));
      if (!row_value) return "it reads the reduction's result " + name(r.store) + " other than at each element's row";
    }
    std::vector<int> members = group.ops;
    members.push_back(i);
    for (int k : group.ops)
      for (int s : w_.reduction_store[k])
        if (live_after(s, members)) return "the reduction's result " + name(s) + " is read after the sweep or held";
    return "";
  }

  void form_groups() {
    std::map<int, std::vector<View>> written;      // store -> views written in the group
    std::map<int, std::vector<View>> read;         // store -> views read in the group
    std::map<int, std::pair<int, int>> write_ops;  // store -> the first and last op writing it in the group
    std::vector<char> reduced(w_.stores.size(), 0);
    std::set<ViewKey> external;  // views the group reads from outside itself (kernel arguments)
    std::set<int> visible;       // stores the group wrote that are visible after the last op
    Tiling domain;
    bool domain_scalar = false;
    int span_start = 0;      // where the current group's ops (floating ones included) begin
    int loop_boundary = -1;  // rule 7: an op repeating op loop_op_ at least kLoopSpan ops past span_start
    Group current;
    // The dimension the group's reductions run along (Program::reduce_dim): one per kernel.
    constexpr int kNoReduction = -2;
    int group_reduce_dim = kNoReduction;
    int group_reductions = 0;  // reduction slots the group's kernel holds (at most kMaxReductions)
    // The group's epilogue: the body's stores (read or written, and written) and its tiling.
    std::set<int> body_stores, body_written;
    Tiling body_domain;
    auto close = [&](std::string reason) {
      if (current.ops.empty()) return;
      current.reason = std::move(reason);
      span_start = loop_boundary > current.ops.front() ? loop_boundary : current.ops.back() + 1;
      loop_boundary = -1;
      groups_.push_back(std::move(current));
      current = Group{};
      written.clear();
      read.clear();
      write_ops.clear();
      external.clear();
      visible.clear();
      std::fill(reduced.begin(), reduced.end(), 0);
      group_reduce_dim = kNoReduction;
      group_reductions = 0;
      body_stores.clear();
      body_written.clear();
    };
    for (int i = 0; i < n_; ++i) {
      if (i > loop_op_ && w_.op_hash[i] == w_.op_hash[loop_op_] && i - span_start >= kLoopSpan && loop_boundary < 0)
        loop_boundary = i;
      if (floating_[i]) continue;
      const Task& t = ops_[i];
      if (t.body) {
        close("op " + std::to_string(i) + " (" + short_name(t.label) +
              ") is a task with partition constraints, a group of its own");
        current.ops.push_back(i);
        close("a task with partition constraints runs alone");
        continue;
      }
      const bool scalar = is_scalar_domain(t);
      const Tiling tiling = scalar ? Tiling{} : launch_of(i);
      std::vector<ViewKey> reads_i;
      std::vector<int> loader;  // the op that loads each of reads_i (i, or an op it recomputes)
      effective_reads(i, reads_i, &loader);
      std::set<int> renames_i;
      std::set<int> read_old_i;  // of those, stores an op recomputed in i reads before the group's write
      std::string why;
      std::ostringstream msg;
      // Reads by a recomputed op of a store that the group writes only after that op: they take
      // the values from before the group (recomputations_hold), from the old buffer of a renamed
      // store.
      std::vector<char> old_read(reads_i.size(), 0);
      for (std::size_t k = 0; k < reads_i.size(); ++k) {
        auto wo = write_ops.find(reads_i[k].store);
        old_read[k] = wo != write_ops.end() && loader[k] < wo->second.first;
      }
      // A reduction of the group's reduction: nested into the group's kernel, which it ends.
      std::string not_nested;
      if (!current.ops.empty() && !t.reductions.empty() && t.program.reduce_dim >= 0 && !reads_i.empty() &&
          reduced[reads_i.front().store]) {
        not_nested = nested_reduction(i, current, external);
        if (not_nested.empty()) {
          const int inner = current.ops.back();
          const std::vector<int> siblings = *nested_siblings(i, inner);
          current.ops.push_back(i);
          current.ops.insert(current.ops.end(), siblings.begin(), siblings.end());
          current.nested_outer = i;
          std::string nests = "op " + std::to_string(i) + " (" + short_name(t.label) + ")";
          for (int j : siblings) nests += ", op " + std::to_string(j) + " (" + short_name(ops_[j].label) + ")";
          close(nests + (siblings.empty() ? " nests op " : " nest op ") + std::to_string(inner) +
                "'s reduction: its kernel ends here");
          if (!siblings.empty()) i = siblings.back();  // the ops between are recomputed inline
          continue;
        }
      }
      // A reduction along the columns of the group's matrix that reads the results of its
      // reductions along the rows: a sweep of the rows once more, in the same kernel, which it ends.
      std::string not_sweep;
      bool sweep_reads = false;  // op i reads the group's reductions' results, as its sweep
      if (!current.ops.empty() && group_reduce_dim == 2 && !t.reductions.empty() && t.program.reduce_dim == 1) {
        bool reads_reduced = false;
        for (const ViewKey& r : reads_i) reads_reduced = reads_reduced || reduced[r.store];
        if (reads_reduced) {
          not_sweep = sweep_refusal(i, current, reads_i, reduced, written, domain);
          sweep_reads = not_sweep.empty();
        }
      }
      // Elementwise work on the results of the group's reductions along the last dimension: the
      // epilogue of its kernel, over the results' tiling from here on.
      std::string not_epilogue;
      bool epilogue_reads = false;  // op i reads the group's reductions' results, as its epilogue
      if (!current.ops.empty() && group_reduce_dim == 2 && !sweep_reads) {
        bool reads_reduced = false;
        for (const ViewKey& r : reads_i) reads_reduced = reads_reduced || reduced[r.store];
        const bool starting = current.epilogue < 0;
        if (starting && reads_reduced) {
          for (const auto& [store, views] : read) body_stores.insert(store);
          for (const auto& [store, views] : written) body_stores.insert(store), body_written.insert(store);
          body_domain = domain;
        }
        if (!starting || reads_reduced) {
          not_epilogue =
              epilogue_refusal(i, current, reads_i, reduced, body_stores, body_written, body_domain, starting);
          if (not_epilogue.empty()) {
            epilogue_reads = reads_reduced;
            if (starting) {
              current.epilogue = static_cast<int>(current.ops.size());
              domain = tiling;
            }
          } else if (!starting) {
            close("op " + std::to_string(i) + " (" + short_name(t.label) +
                  ") cannot join the epilogue: " + not_epilogue);
            not_epilogue.clear();
          } else {
            body_stores.clear();
            body_written.clear();
          }
        }
      }
      if (!current.ops.empty()) {
        if (scalar != domain_scalar || (!scalar && !tiling.aligned(domain))) {
          msg << "rule 1 (launch domain): op " << i << " (" << short_name(t.label) << ") runs over a different tiling";
          why = msg.str();
        }
        for (std::size_t k = 0; k < reads_i.size() && why.empty(); ++k) {
          const ViewKey& r = reads_i[k];
          auto wo = write_ops.find(r.store);
          if (old_read[k]) {
            const std::vector<View>& views = written.at(r.store);
            bool meets = false;
            for (const View& w : views) meets = meets || overlap(w, r.view);
            if (!meets) continue;
            if (current.renamed.count(r.store) || renames_i.count(r.store) ||
                (views.size() == 1 && can_rename(r.store, views.front()))) {
              renames_i.insert(r.store);
              read_old_i.insert(r.store);
              continue;
            }
            msg << "rule 3 (anti-dependence): op " << i << " (" << short_name(t.label) << ") recomputes op "
                << loader[k] << ", which reads store#" << w_.stores[r.store]->id() << " through " << r.view
                << ", written in the group after it through " << views.front();
            why = msg.str();
          } else if (wo != write_ops.end() && loader[k] < wo->second.second) {
            msg << "rule 2 (true dependence): op " << i << " (" << short_name(t.label) << ") recomputes op "
                << loader[k] << ", which reads store#" << w_.stores[r.store]->id()
                << " between two writes in the group";
            why = msg.str();
          } else if (const View* w = conflicting(written, r.store, r.view)) {
            msg << "rule 2 (true dependence): op " << i << " (" << short_name(t.label) << ") reads store#"
                << w_.stores[r.store]->id() << " through " << r.view << ", written in the group through " << *w;
            why = msg.str();
          } else if (reduced[r.store] && !epilogue_reads && !sweep_reads) {
            msg << "rule 4 (reduction): op " << i << " (" << short_name(t.label) << ") reads store#"
                << w_.stores[r.store]->id() << ", reduced in the group";
            if (!not_epilogue.empty()) msg << " (no epilogue: " << not_epilogue << ")";
            if (!not_sweep.empty()) msg << " (no sweep: " << not_sweep << ")";
            why = msg.str();
          }
        }
        for (std::size_t a = 0; a < t.args.size() && why.empty(); ++a) {
          if (!t.args[a].written || renames_i.count(w_.arg_store[i][a])) continue;
          const int s = w_.arg_store[i][a];
          if (reduced[s]) {  // the reduction's results are written after the kernel: they would win
            msg << "rule 4 (reduction): op " << i << " (" << short_name(t.label) << ") writes store#"
                << w_.stores[s]->id() << ", reduced in the group";
            why = msg.str();
            break;
          }
          const View* w = conflicting(written, s, t.args[a].view);
          // A store written through two views: they must be disjoint, and not renamed (one frame).
          const bool second_view = written.count(s) && !forwarded(written, {s, t.args[a].view});
          if (w || (second_view && current.renamed.count(s))) {
            msg << "rule 2 (true dependence): op " << i << " (" << short_name(t.label) << ") writes store#"
                << w_.stores[s]->id() << " through " << t.args[a].view << ", written in the group through "
                << (w ? *w : written.at(s).front());
            why = msg.str();
            break;
          }
          auto rt = read.find(s);
          if (rt != read.end())
            for (const View& v : rt->second)
              if (v != t.args[a].view && overlap(v, t.args[a].view)) {
                if (can_rename(s, t.args[a].view) && !second_view) {
                  renames_i.insert(s);
                  break;
                }
                msg << "rule 3 (anti-dependence): op " << i << " (" << short_name(t.label) << ") writes store#"
                    << w_.stores[s]->id() << " through " << t.args[a].view << ", read in the group through " << v;
                why = msg.str();
                break;
              }
        }
        if (why.empty() && !t.reductions.empty() && group_reduce_dim != kNoReduction && !sweep_reads &&
            group_reduce_dim != t.program.reduce_dim) {
          msg << "rule 4 (reduction): op " << i << " (" << short_name(t.label)
              << ") reduces along another dimension than the group's reductions";
          why = msg.str();
        }
        if (why.empty() && loop_boundary > current.ops.front()) {
          msg << "rule 7 (loop period): op " << loop_boundary << " (" << short_name(ops_[loop_boundary].label)
              << ") starts the loop's next iteration (it repeats op " << loop_op_ << "), " << loop_boundary - span_start
              << " ops after the group's start";
          why = msg.str();
        }
        if (why.empty() && group_reductions + static_cast<int>(t.program.reduce_kinds.size()) > kMaxReductions) {
          msg << "rule 6 (kernel size): op " << i << " (" << short_name(t.label) << ") would take the group past "
              << kMaxReductions << " reductions";
          why = msg.str();
        }
        if (why.empty()) {
          if (arguments_with(i, reads_i, old_read, external, written, visible) > static_cast<std::size_t>(kMaxArgs)) {
            msg << "rule 6 (kernel size): op " << i << " (" << short_name(t.label) << ") would take the group past "
                << kMaxArgs << " arguments";
            why = msg.str();
          }
        }
        if (!why.empty()) {
          close(not_nested.empty() ? why : why + " (not nested: " + not_nested + ")");
          renames_i.clear();  // they were for the group just closed
          read_old_i.clear();
          sweep_reads = false;
        }
      }
      // Op i's own writes against what the ops it recomputes read through other views that meet
      // them: read before i writes, but by other elements too, so only from the old buffer of a
      // renamed store (recomputations_hold stores the recomputed op where that is not possible).
      for (std::size_t a = 0; a < t.args.size(); ++a) {
        const int s = w_.arg_store[i][a];
        const View& v = t.args[a].view;
        if (!t.args[a].written || !can_rename(s, v) || (written.count(s) && !forwarded(written, {s, v}))) continue;
        for (std::size_t k = 0; k < reads_i.size(); ++k)
          if (reads_i[k].store == s && loader[k] < i && reads_i[k].view != v && overlap(reads_i[k].view, v)) {
            renames_i.insert(s);
            read_old_i.insert(s);
          }
      }
      if (current.ops.empty()) {
        domain = tiling;
        domain_scalar = scalar;
      }
      current.ops.push_back(i);
      current.renamed.insert(renames_i.begin(), renames_i.end());
      current.recomputed_from_old.insert(read_old_i.begin(), read_old_i.end());
      for (const ViewKey& r : reads_i) read[r.store].push_back(r.view);
      for (std::size_t k = 0; k < reads_i.size(); ++k)
        if (old_read[k] || !forwarded(written, reads_i[k])) external.insert(reads_i[k]);
      for (std::size_t a = 0; a < t.args.size(); ++a)
        if (t.args[a].written) {
          auto [wo, first] = write_ops.emplace(w_.arg_store[i][a], std::make_pair(i, i));
          if (!first) wo->second.second = i;
          std::vector<View>& views = written[w_.arg_store[i][a]];
          if (std::find(views.begin(), views.end(), t.args[a].view) == views.end()) views.push_back(t.args[a].view);
          if (visible_after(w_.arg_store[i][a], i)) visible.insert(w_.arg_store[i][a]);
        }
      for (int s : w_.reduction_store[i]) reduced[s] = 1;
      if (!t.reductions.empty()) group_reduce_dim = t.program.reduce_dim;
      group_reductions += static_cast<int>(t.program.reduce_kinds.size());
      if (sweep_reads) {
        current.sweep = static_cast<int>(current.ops.size()) - 1;
        close("op " + std::to_string(i) + " (" + short_name(t.label) +
              ") sweeps the rows once more, reading the results of their reductions: its kernel ends here");
      }
    }
    close(everything_ ? "flush" : "window full");
  }

  // Where this window stops: everything on a flush; otherwise before the last group, or, if the
  // window is one group, where the op stream repeats its first op (a loop's next iteration).
  void choose_cut() {
    cut_ = n_;
    if (everything_) return;
    if (groups_.size() >= 2 && !w_.loop_heads.empty()) {
      // The loop is longer than half the window, so the window holds at most one start of an
      // iteration past its first op (the Window found the period in the op stream): end there,
      // however close to the window's start it is. The next window then starts where an
      // iteration does, as the windows after a flush inside the loop do, and from there on the
      // cuts fall at the same places in every iteration: the plans repeat with the loop's period
      // whatever came before the loop (its setup, the phase of earlier windows).
      cut_ = w_.loop_heads.back();
    } else if (groups_.size() >= 2) {
      cut_ = groups_.back().ops.front();
      while (cut_ > 0 && feeds_only_kept(cut_ - 1)) --cut_;
      // The window ends in a partial iteration of the program's loop whose statements are still
      // being built (their results held, so not yet temporaries): keep all of it for the next
      // window, which then starts where the loop does and can fuse the iteration whole.
      for (int j = cut_ - 1; j > std::max(n_ / 2, loop_op_); --j)
        if (w_.op_hash[j] == w_.op_hash[loop_op_]) {
          cut_ = j;
          break;
        }
      // A last group longer than half the window would make the next window re-plan at once.
      if (n_ - cut_ > n_ / 2) cut_ = n_;
    } else {
      for (int j = n_ - 1; j > loop_op_; --j)
        if (w_.op_hash[j] == w_.op_hash[loop_op_]) {
          cut_ = j;
          break;
        }
    }
    // Outer reductions nested into one kernel stay together: the inner result is never stored, so
    // none of them may be left to the next window without the others.
    for (const Group& g : groups_)
      if (g.nested_outer >= 0 && g.nested_outer < cut_ && cut_ <= g.ops.back()) cut_ = g.nested_outer;
    for (Group& g : groups_) {
      auto end = std::lower_bound(g.ops.begin(), g.ops.end(), cut_);
      if (end != g.ops.end()) g.reason = "window full: continued in the next window";
      g.ops.erase(end, g.ops.end());
    }
    groups_.erase(std::remove_if(groups_.begin(), groups_.end(), [](const Group& g) { return g.ops.empty(); }),
                  groups_.end());
  }

  // Whether op i ends a group and its results are temporaries read only by ops at or after the
  // cut: then it stays in the window with them. A window fills up in the middle of a statement,
  // such as the first op of the loop's next iteration, whose result is still held by the
  // expression being built (so it is no temporary yet); in the next window it is, and can be
  // rematerialized or fused with its readers instead of being stored now and loaded back.
  bool feeds_only_kept(int i) const {
    if (floating_[i] || !ops_[i].reductions.empty()) return false;
    bool ends_group = false;
    for (const Group& g : groups_) ends_group = ends_group || g.ops.back() == i;
    if (!ends_group) return false;
    const Task& t = ops_[i];
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      if (!t.args[a].written) continue;
      const int s = w_.arg_store[i][a];
      if (!created_[s] || readers_[s].empty() || readers_[s].front() < cut_) return false;
    }
    return true;
  }

  // A scalar op read by an op that stays in the window stays with it (it costs nothing until a
  // consumer inlines it) instead of running as a kernel of its own now; so do the scalar ops it
  // reads. Readers come after their producers, so one backward pass settles it.
  void find_deferred() {
    deferred_.assign(n_, false);
    for (int i = std::min(cut_, n_) - 1; i >= 0; --i) {
      if (!floating_[i]) continue;
      for (int r : readers_[written_store(i)])
        if (r >= cut_ || deferred_[r]) deferred_[i] = true;
    }
  }
  bool deferred(int i) const { return deferred_[i]; }

  bool must_materialize(int i) const {
    if (deferred(i)) return false;
    const int out = written_store(i);
    if (w_.stores[out]->user_refs() > 0) return true;
    for (int r : readers_[out])
      if (r >= cut_) return true;
    return false;
  }

  int written_store(int i) const {
    const Task& t = ops_[i];
    for (std::size_t a = 0; a < t.args.size(); ++a)
      if (t.args[a].written) return w_.arg_store[i][a];
    return -1;
  }

  // A store written in a group must be kept if anything can see it after the group.
  // A floating reader is recomputed where its own readers are: the store is live if they are.
  bool live_after(int store, const std::vector<int>& group) const {
    if (w_.stores[store]->user_refs() > 0 || !created_[store]) return true;
    for (int r : readers_[store]) {
      if (floating_[r] ? live_after(written_store(r), group) : !std::binary_search(group.begin(), group.end(), r))
        return true;
    }
    return false;
  }

  struct Builder {
    PlannedGroup g;
    std::map<ViewKey, int> arg_index;
    // The register last stored to (store, view) in this group, and the op that stored it.
    std::map<ViewKey, std::pair<int, int>> forwarded;
    std::map<std::pair<int, View>, int> inlined;  // (floating op, view its result is read through) -> register
    std::vector<int> elided;                      // temporaries never allocated
    // A nested reduction: the inner op folds into Program::nested, the outer op reads its result.
    int nested_inner = -1, nested_outer = -1;  // nested_outer: the first outer reduction
    std::vector<int> outers;                   // all of them
    const Nesting* nesting = nullptr;
    bool outer(int i) const { return std::find(outers.begin(), outers.end(), i) != outers.end(); }
    // An epilogue (Program::epilogue): its ops' coordinates lifted into the reduction's domain, and
    // the accumulator slot of each reduction's result store, which its loads read instead.
    std::optional<View> lift;
    std::map<int, int> result_slot;
    bool sweeping = false;  // emitting a sweep (Program::sweep): its loads of the results read them too

    int arg(int store, const View& view, bool written, bool renamed = false) {
      auto [it, fresh] = arg_index.emplace(ViewKey{store, view, renamed}, static_cast<int>(g.args.size()));
      if (fresh)
        g.args.push_back({store, view, written, renamed});
      else
        g.args[it->second].written = g.args[it->second].written || written;
      return it->second;
    }
    int reg() { return g.program.registers++; }
  };

  // Emits op i into the builder; returns the register of the value it stored (scalar ops).
  // `through`: op i is inlined into a reader that reads its result through this view.
  int emit(Builder& b, int i, const Group* group, const View* through = nullptr) {
    const Task& t = ops_[i];
    std::vector<int> r(t.program.registers, -1);
    int stored = -1;
    auto R = [&](int x) { return static_cast<std::uint16_t>(r[x]); };
    for (const Instr& in : t.program.code) {
      Instr out = in;
      switch (in.op) {
        case OpCode::Load: {
          const int s = w_.arg_store[i][in.a];
          const View view = seen_through(t.args[in.a], through);
          const int p = producer_[s];
          if (p >= 0 && p < i && floating_[p]) {
            // Inlined once per view it is read through (an elementwise op read shifted is
            // recomputed at each shift).
            const bool array = w_.stores[s]->ndim() > 0;
            const std::pair<int, View> key{p, array ? view : View{}};
            auto it = b.inlined.find(key);
            r[in.dst] =
                it != b.inlined.end() ? it->second : (b.inlined[key] = emit(b, p, nullptr, array ? &view : nullptr));
            continue;
          }
          if (b.outer(i)) {  // the inner reduction's result, never stored
            out.op = OpCode::NestedResult;
            out.a = 0;
            out.dst = static_cast<std::uint16_t>(r[in.dst] = b.reg());
            break;
          }
          if (auto rs = b.result_slot.find(s); (b.lift || b.sweeping) && rs != b.result_slot.end()) {
            // A reduction's result in the epilogue or sweep: its accumulator, finalized, never stored.
            const PlannedReduction& red = b.g.reductions[rs->second];
            b.g.program.constants.push_back(make_value<double>(red.count));
            out.op = OpCode::ReduceResult;
            out.a = static_cast<std::uint16_t>(rs->second);
            out.b = static_cast<std::uint16_t>(red.finalize);
            out.c = static_cast<std::uint16_t>(b.g.program.constants.size() - 1);
            out.dst = static_cast<std::uint16_t>(r[in.dst] = b.reg());
            break;
          }
          // An op recomputed after a later op's store reads the value from before it: the old
          // buffer of the renamed store (form_groups, recomputations_hold).
          auto fw = b.forwarded.find({s, view});
          if (fw != b.forwarded.end() && fw->second.second <= i) {
            r[in.dst] = fw->second.first;
            continue;
          }
          out.a = static_cast<std::uint16_t>(b.arg(s, view, false));
          out.dst = static_cast<std::uint16_t>(r[in.dst] = b.reg());
          break;
        }
        case OpCode::Store: {
          const int s = w_.arg_store[i][in.a];
          const View view = seen_through(t.args[in.a], through);
          stored = r[in.b];
          b.forwarded[{s, view}] = {stored, i};
          if (group == nullptr) continue;  // inlined scalar op: a register only
          if (!live_after(s, group->ops)) {
            if (std::find(b.elided.begin(), b.elided.end(), s) == b.elided.end()) b.elided.push_back(s);
            continue;
          }
          out.a = static_cast<std::uint16_t>(b.arg(s, view, true, group->renamed.count(s) > 0));
          out.b = R(in.b);
          break;
        }
        case OpCode::Const:
          b.g.program.constants.push_back(t.program.constants[in.a]);
          out.a = static_cast<std::uint16_t>(b.g.program.constants.size() - 1);
          out.dst = static_cast<std::uint16_t>(r[in.dst] = b.reg());
          break;
        case OpCode::Random:
          b.g.program.constants.push_back(t.program.constants[in.b]);
          out.a = R(in.a);
          out.b = static_cast<std::uint16_t>(b.g.program.constants.size() - 1);
          out.dst = static_cast<std::uint16_t>(r[in.dst] = b.reg());
          break;
        case OpCode::Reduce:
        case OpCode::ReduceArg: {
          if (i == b.nested_inner) {
            NestedReduction& n = b.g.program.nested;
            n.dim = t.program.reduce_dim;
            n.kind = t.program.reduce_kinds[in.dst];
            n.is_float = t.program.reduce_float[in.dst];
            n.finalize = t.reductions[in.dst].finalize;
            n.count = t.reductions[in.dst].count;
            out.op = OpCode::NestedReduce;
            out.dst = 0;
            out.a = R(in.a);
            out.b = in.op == OpCode::ReduceArg ? R(in.b) : 0;
            break;
          }
          const int slot = static_cast<int>(b.g.program.reduce_kinds.size());
          if (slot >= kMaxReductions) raise("internal: more than ", kMaxReductions, " reductions in a fused group");
          b.g.program.reduce_kinds.push_back(t.program.reduce_kinds[in.dst]);
          b.g.program.reduce_float.push_back(t.program.reduce_float[in.dst]);
          b.g.program.reduce_dim = t.program.reduce_dim;  // the group's reductions share it (form_groups)
          const ReductionOut& ro = t.reductions[in.dst];
          b.g.reductions.push_back({w_.reduction_store[i][in.dst], ro.finalize, ro.count});
          b.result_slot[w_.reduction_store[i][in.dst]] = slot;
          out.dst = static_cast<std::uint16_t>(slot);
          out.a = R(in.a);
          if (in.op == OpCode::ReduceArg) out.b = R(in.b);
          break;
        }
        case OpCode::Index:
        case OpCode::Coord:
          if (b.outer(i) && in.op == OpCode::Coord) out.a = static_cast<std::uint16_t>(b.nesting->coord_map[in.a]);
          out.dst = static_cast<std::uint16_t>(r[in.dst] = b.reg());
          break;
        default:  // arithmetic: remap operands, then the destination
          out.a = R(in.a);
          out.b = in.op == OpCode::Where || is_binary(in.op) ? R(in.b) : 0;
          out.c = in.op == OpCode::Where ? R(in.c) : 0;
          out.dst = static_cast<std::uint16_t>(r[in.dst] = b.reg());
          break;
      }
      b.g.program.code.push_back(out);
    }
    return stored;
  }

  PlannedGroup build_group(const Group& group) {
    if (ops_[group.ops.front()].body) return build_task(group);
    Builder b;
    const Task& first = ops_[group.ops.front()];
    // A nested group whose outer op stayed (the window's cut may have moved it to the next window).
    std::optional<Nesting> nest;
    const auto first_outer = std::find(group.ops.begin(), group.ops.end(), group.nested_outer);
    const bool nested = group.nested_outer >= 0 && first_outer != group.ops.end();
    if (nested) {
      b.nested_outer = group.nested_outer;
      b.outers.assign(first_outer, group.ops.end());
      b.nested_inner = *(first_outer - 1);
      const int inner_result = w_.reduction_store[b.nested_inner].front();
      const int result = w_.reduction_store[b.nested_outer].front();
      nest = nesting(ops_[b.nested_inner], *w_.stores[inner_result], ops_[b.nested_outer], *w_.stores[result]);
      if (!nest) raise("internal: a nested reduction lost its geometry");
      b.nesting = &*nest;
    }
    const bool epilogue = group.epilogue >= 0 && group.epilogue < static_cast<int>(group.ops.size());
    const Task& epilogue_key = ops_[anchor_[group.ops[epilogue ? group.epilogue : 0]]];
    const bool sweep = group.sweep >= 0 && group.sweep < static_cast<int>(group.ops.size());
    int sweep_start = -1, row_slots = 0;
    for (std::size_t k = 0; k < group.ops.size(); ++k) {
      const int i = group.ops[k];
      if (i == b.nested_outer) b.g.program.nested.end = static_cast<int>(b.g.program.code.size());
      if (sweep && static_cast<int>(k) == group.sweep) {
        // Like an epilogue, the sweep shares no register with the rows' fold: it runs after it.
        b.sweeping = true;
        sweep_start = static_cast<int>(b.g.program.code.size());
        row_slots = static_cast<int>(b.g.program.reduce_kinds.size());
        b.inlined.clear();
        b.forwarded.clear();
      }
      if (epilogue && static_cast<int>(k) == group.epilogue) {
        // The epilogue shares no register with the code before it: it runs after the row's fold.
        const Task& head = ops_[anchor_[group.ops.front()]];
        const View& op_key = epilogue_key.args[epilogue_key.key].view;
        b.lift = epilogue_lift(head.args[head.key].view, op_key.ndim, op_key.extent);
        if (!b.lift) raise("internal: an epilogue lost its geometry");
        b.g.program.epilogue = static_cast<int>(b.g.program.code.size());
        b.inlined.clear();
        b.forwarded.clear();
      }
      emit(b, i, &group, b.lift ? &*b.lift : nullptr);
    }
    std::string sweep_results;
    if (sweep) {
      split_sweep(b, sweep_start, row_slots);
      for (int k = 0; k < row_slots; ++k) {
        b.elided.push_back(b.g.reductions[k].store);
        sweep_results += " store#" + std::to_string(w_.stores[b.g.reductions[k].store]->id());
      }
      b.g.reductions.erase(b.g.reductions.begin(), b.g.reductions.begin() + row_slots);
    }
    finish(b, group.ops.front());
    std::string epilogue_results;
    if (epilogue) {
      // Over the epilogue's tiling, lifted into the reduction's domain: the reduced dimension is
      // stretched (cut nowhere), and the reductions have no outputs of their own.
      const View& op_key = epilogue_key.args[epilogue_key.key].view;
      b.g.domain = {w_.arg_store[anchor_[group.ops[group.epilogue]]][epilogue_key.key], compose(op_key, *b.lift),
                    false};
      for (const PlannedReduction& red : b.g.reductions) {
        b.elided.push_back(red.store);
        epilogue_results += " store#" + std::to_string(w_.stores[red.store]->id());
      }
      b.g.reductions.clear();
    }
    if (nested) {
      // Over the result's domain (the reduced dimensions cut nowhere), reducing along the outer
      // op's dimension in the inner domain's coordinates.
      b.g.domain = {w_.reduction_store[b.nested_outer].front(), nest->domain, false};
      b.g.program.reduce_dim = nest->outer_dim;
    }
    // The kernel's ops: the group's and the elementwise ops it recomputes inline (their results
    // are temporaries that are never stored, like those of the group elided below).
    std::vector<int> members = group.ops;
    std::size_t inlined_temporaries = 0;
    std::string recomputed;
    for (const auto& [key, reg] : b.inlined) {
      const int op = key.first;
      if (is_scalar_domain(ops_[op]) || std::count(members.begin(), members.end(), op)) continue;
      members.push_back(op);
      ++inlined_temporaries;
      // Recomputed: an earlier kernel computed it too, or could have and would have stored it.
      const bool again = !computed_.insert(op).second;
      if (again || (previous_group_ != nullptr && previous_group_->ops.back() < op && could_join(*previous_group_, op)))
        recomputed += (recomputed.empty() ? "" : ",") + short_name(ops_[op].label) + "(op " + std::to_string(op) + ")";
    }
    std::sort(members.begin(), members.end());
    std::ostringstream names, explain;
    for (std::size_t k = 0; k < members.size(); ++k) names << (k ? "," : "") << short_name(ops_[members[k]].label);
    b.g.label = members.size() == 1 ? first.label : fused_label(members);
    explain << "group of " << members.size() << " op(s) [" << members.front() << ".." << members.back()
            << "]: " << names.str() << " | ended: " << group.reason
            << " | temporaries elided: " << b.elided.size() + inlined_temporaries;
    if (!recomputed.empty()) explain << " | rematerialized: " << recomputed;
    if (nested) {
      const Program& p = b.g.program;
      const auto kind = [](ReduceKind k, Finalize f) { return f == Finalize::Mean ? "mean" : name(k); };
      explain << " | nested: " << kind(p.reduce_kinds.front(), b.g.reductions.front().finalize) << " along dim "
              << p.reduce_dim << " of " << kind(p.nested.kind, p.nested.finalize) << " along dim " << p.nested.dim
              << " in one kernel (store#" << w_.stores[w_.reduction_store[b.nested_inner].front()]->id()
              << " never stored)";
    }
    if (sweep)
      explain << " | sweep: op " << group.ops[group.sweep]
              << " over every element of the rows once more, after their reductions, in the same kernel (one pass;"
              << sweep_results << " never stored)";
    if (epilogue)
      explain << " | epilogue: ops " << group.ops[group.epilogue] << ".." << group.ops.back()
              << " once per row of the reductions along the last dimension, in the same kernel (" << epilogue_results
              << " never stored)";
    const int anchor = anchor_[group.ops.front()];
    if (anchor != group.ops.front())
      explain << " | domain: op " << anchor << " (" << short_name(ops_[anchor].label) << ")'s, which the "
              << "temporaries of ops " << group.ops.front() << ".. feed (their own tilings are not kept)";
    for (const PlannedArg& a : b.g.args)
      if (a.renamed)
        explain << " | renamed: store#" << w_.stores[a.store]->id() << " (written into a fresh buffer"
                << (group.recomputed_from_old.count(a.store) ? "; recomputed ops read the old one)" : ")");
    std::int64_t read_bytes = 0, write_bytes = 0;
    std::int64_t shifted = 0;
    const View& domain = b.g.domain.view;
    for (const PlannedArg& a : b.g.args) {
      const Store& s = *w_.stores[a.store];
      const std::int64_t bytes = a.view.footprint() * size_of(s.dtype());
      (a.written ? write_bytes : read_bytes) += bytes;
      if (s.ndim() > 0 && !a.written && (a.view.origin != domain.origin || a.view.map != domain.map)) ++shifted;
    }
    explain << " | shifted reads (halo or redistribution): " << shifted << " | bytes read " << read_bytes
            << ", written " << write_bytes << " (global)";
    b.g.explain = explain.str();
    return std::move(b.g);
  }

  // Whether floating op i could have joined group g (rules 1, 2 and 4), which would then have
  // stored its result for a later kernel to load: the fusion log calls such an op rematerialized.
  bool could_join(const Group& g, int i) const {
    const Task& head = ops_[g.ops.front()];
    if (head.body || is_scalar_domain(head) ||
        !launch_tiling(ops_[i].args[ops_[i].key]).aligned(launch_tiling(head.args[head.key])))
      return false;
    std::vector<ViewKey> reads_i;
    effective_reads(i, reads_i);
    for (int k : g.ops) {
      const Task& t = ops_[k];
      for (const ViewKey& r : reads_i) {
        for (int s : w_.reduction_store[k])
          if (s == r.store) return false;
        for (std::size_t a = 0; a < t.args.size(); ++a)
          if (t.args[a].written && w_.arg_store[k][a] == r.store && t.args[a].view != r.view) return false;
      }
    }
    return true;
  }

  // tessera::fused[sqrt,multiply,...+57]: short enough for profiler timelines.
  std::string fused_label(const std::vector<int>& group) const {
    constexpr std::size_t kShown = 6;
    std::string label = "tessera::fused[";
    for (std::size_t k = 0; k < std::min(kShown, group.size()); ++k)
      label += (k ? "," : "") + short_name(ops_[group[k]].label);
    if (group.size() > kShown) label += ",...+" + std::to_string(group.size() - kShown);
    return label + "]";
  }

  // A task with partition constraints: its arguments as they are (its body reads and writes
  // memory), its body taken from the window being executed (PlannedGroup::task_op).
  PlannedGroup build_task(const Group& group) {
    const int i = group.ops.front();
    const Task& t = ops_[i];
    PlannedGroup g;
    std::vector<ArgView> views;
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      g.args.push_back({w_.arg_store[i][a], t.args[a].view, t.args[a].written, false});
      views.push_back({t.args[a].store.get(), t.args[a].view});
    }
    g.domain = {w_.arg_store[i][t.key], t.args[t.key].view, false};
    g.label = t.label;
    g.task_op = i;
    g.explain = "task op " + std::to_string(i) + " (" + short_name(t.label) + "): " + t.body->describe(views) +
                " | ended: " + group.reason;
    return g;
  }

  PlannedGroup build_scalar(int i) {
    Builder b;
    Group self;
    self.ops = {i};
    emit(b, i, &self);
    finish(b, i);
    b.g.label = ops_[i].label;
    b.g.explain =
        "scalar op " + std::to_string(i) + " (" + short_name(ops_[i].label) + ") materialized: used after the window";
    return std::move(b.g);
  }

  // The domain (geometry only: the key view of the first op's anchor) and register allocation.
  // A sweep's code (Program::sweep), from `start`: what is the same along a row (the row
  // reductions' results, constants, operands stretched along the row, and what only they
  // compute) moves first, to run once per row; the rest runs at every element. Slots are
  // renumbered so that the sweep's own, the program's outputs, come first and the `rows` slots
  // of the reductions along the rows last.
  static void split_sweep(Builder& b, int start, int rows) {
    Program& p = b.g.program;
    std::vector<char> per_row(static_cast<std::size_t>(p.registers), 0);
    std::vector<Instr> once, each;
    int src[3];
    for (std::size_t pc = static_cast<std::size_t>(start); pc < p.code.size(); ++pc) {
      const Instr& in = p.code[pc];
      bool row_value = false;
      switch (in.op) {
        case OpCode::Const:
        case OpCode::ReduceResult: row_value = true; break;
        case OpCode::Load: {
          const View& v = b.g.args[in.a].view;
          row_value = true;
          for (int k = 0; k < v.store_ndim && v.ndim > 0; ++k) row_value = row_value && v.map[k][v.ndim - 1] == 0;
          break;
        }
        case OpCode::Store:
        case OpCode::Reduce:
        case OpCode::ReduceArg:
        case OpCode::Index:
        case OpCode::Coord:
        case OpCode::NestedReduce:
        case OpCode::NestedResult: break;
        default: {
          row_value = true;
          const int k = register_sources(p, in, src);
          for (int j = 0; j < k; ++j) row_value = row_value && per_row[src[j]];
        }
      }
      if (row_value && defines_register(in.op)) per_row[in.dst] = 1;
      (row_value ? once : each).push_back(in);
    }
    p.code.resize(static_cast<std::size_t>(start));
    p.epilogue = start;
    p.code.insert(p.code.end(), once.begin(), once.end());
    p.sweep = static_cast<int>(p.code.size());
    p.code.insert(p.code.end(), each.begin(), each.end());
    const int total = static_cast<int>(p.reduce_kinds.size()), outputs = total - rows;
    const auto renumbered = [&](int slot) { return slot >= rows ? slot - rows : slot + outputs; };
    for (Instr& in : p.code) {
      if (in.op == OpCode::Reduce || in.op == OpCode::ReduceArg)
        in.dst = static_cast<std::uint16_t>(renumbered(in.dst));
      if (in.op == OpCode::ReduceResult) in.a = static_cast<std::uint16_t>(renumbered(in.a));
    }
    std::rotate(p.reduce_kinds.begin(), p.reduce_kinds.begin() + rows, p.reduce_kinds.end());
    std::vector<bool> is_float;
    for (int k = 0; k < total; ++k) is_float.push_back(p.reduce_float[(k + rows) % total]);
    p.reduce_float = std::move(is_float);
    p.row_slots = rows;
  }

  void finish(Builder& b, int first_index) {
    const int anchor = anchor_.empty() ? first_index : anchor_[first_index];
    const Task& t = ops_[anchor];
    b.g.domain = {w_.arg_store[anchor][t.key], t.args[t.key].view, false};
    allocate_registers(b.g.program);
  }

  // Linear scan over the straight-line code: a register is reused once its last reader has run.
  static void allocate_registers(Program& p) {
    const int n = p.registers;
    std::vector<int> last_use(n, -1);
    auto sources = [&p](const Instr& in, int* out) { return register_sources(p, in, out); };
    auto defines = [](const Instr& in) { return defines_register(in.op); };
    int src[3];
    for (int pc = 0; pc < static_cast<int>(p.code.size()); ++pc) {
      int k = sources(p.code[pc], src);
      for (int j = 0; j < k; ++j) last_use[src[j]] = pc;
    }
    std::vector<int> phys(n, -1), free_list;
    int used = 0;
    for (int pc = 0; pc < static_cast<int>(p.code.size()); ++pc) {
      Instr& in = p.code[pc];
      int k = sources(in, src);
      int mapped[3];
      for (int j = 0; j < k; ++j) mapped[j] = phys[src[j]];
      for (int j = 0; j < k; ++j)
        if (last_use[src[j]] == pc && std::count(free_list.begin(), free_list.end(), phys[src[j]]) == 0)
          free_list.push_back(phys[src[j]]);
      if (defines(in)) {
        int r;
        if (!free_list.empty())
          r = free_list.back(), free_list.pop_back();
        else
          r = used++;
        const int ssa = in.dst;
        phys[ssa] = r;
        in.dst = static_cast<std::uint16_t>(r);
        if (last_use[ssa] < 0) free_list.push_back(r);  // dead value: reuse at once
      }
      switch (in.op) {
        case OpCode::Store: in.b = static_cast<std::uint16_t>(mapped[0]); break;
        case OpCode::Where:
          in.a = static_cast<std::uint16_t>(mapped[0]), in.b = static_cast<std::uint16_t>(mapped[1]),
          in.c = static_cast<std::uint16_t>(mapped[2]);
          break;
        case OpCode::Load:
        case OpCode::Const:
        case OpCode::Index:
        case OpCode::Coord:
        case OpCode::NestedResult:
        case OpCode::ReduceResult: break;
        default:
          if (k >= 1) in.a = static_cast<std::uint16_t>(mapped[0]);
          if (k >= 2) in.b = static_cast<std::uint16_t>(mapped[1]);
      }
    }
    p.registers = used;
    if (used > kMaxRegisters) raise("internal: fused program needs ", used, " registers, more than ", kMaxRegisters);
  }

  const std::vector<Task>& ops_;
  const CanonicalWindow& w_;
  bool everything_;
  int n_;
  int cut_ = 0;
  int loop_op_ = 0;                        // the op the loop's iterations start with (find_loop_op)
  const Group* previous_group_ = nullptr;  // the group built before (for the fusion log)
  std::set<int> computed_;                 // floating array ops inlined so far (for the fusion log)
  std::vector<int> last_write_, producer_;
  std::vector<std::vector<int>> writers_;  // store -> ops that write it, in order
  std::vector<bool> created_, floating_, deferred_, flexible_;
  std::vector<bool> pinned_;  // ops stored because a recomputation of them would read a changed input
  // op -> the stores its values depend on: those it loads, and those the ops creating them
  // depend on (the byte model's guess at what a kernel holding the op reads anyway)
  std::vector<std::vector<int>> roots_;
  std::vector<std::vector<int>> root_users_;  // store -> the ops with it among their roots_, in order
  std::vector<signed char> shifted_cone_;     // recomputes_shifted's answers (-1: not yet asked)
  // Memos of one planning round (reset by choose_floating, when producer_ changes).
  mutable std::vector<signed char> positional_;  // is_positional's answers (-1: not yet asked)
  mutable std::vector<char> reads_known_;        // reads_of's ...
  mutable std::vector<std::vector<EffectiveRead>> reads_memo_;
  std::vector<int> anchor_;  // op -> the op whose key view is its launch domain (choose_domains)
  std::vector<std::vector<int>> readers_;
  std::vector<std::vector<bool>> loads_;  // op -> arg -> loaded by the op
  std::vector<Group> groups_;
};

}  // namespace

Plan make_plan(const std::vector<Task>& ops, const CanonicalWindow& window, bool everything) {
  return Planner(ops, window, everything).run();
}

}  // namespace tessera::detail
