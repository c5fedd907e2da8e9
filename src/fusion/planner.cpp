// The window planner, part one: what each op reads and where it runs, which ops are recomputed
// inside their readers (floating), and the launch domains (the rules: fusion/planner_impl.hpp).

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "tessera/core/error.hpp"
#include "tessera/fusion/planner_impl.hpp"

namespace tessera::detail::planning {

Plan Planner::run() {
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

bool Planner::can_rename(int store, const View& view) const {
  const Store& s = *w_.stores[store];
  return s.ndim() > 0 && view.is_box() && 2 * view.volume() >= s.full().volume();
}

int Planner::find_loop_op() const {
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

void Planner::analyse() {
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

bool Planner::depends_between(int s, int after, int upto) const {
  const std::vector<int>& users = root_users_[s];
  auto it = std::upper_bound(users.begin(), users.end(), after);
  return it != users.end() && *it <= upto;
}

void Planner::choose_floating() {
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

bool Planner::read_by_task(int store) const {
  for (int r : readers_[store])
    if (ops_[r].body) return true;
  return false;
}

const View* Planner::conflicting(const std::map<int, std::vector<View>>& written, int store, const View& view) {
  auto it = written.find(store);
  if (it == written.end()) return nullptr;
  for (const View& w : it->second)
    if (w != view && overlap(w, view)) return &w;
  return nullptr;
}

bool Planner::forwarded(const std::map<int, std::vector<View>>& written, const ViewKey& r) {
  auto it = written.find(r.store);
  return it != written.end() && std::find(it->second.begin(), it->second.end(), r.view) != it->second.end();
}

bool Planner::flexible(int i) const {
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

std::vector<int> Planner::consumers(int i) const {
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

void Planner::choose_domains() {
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

bool Planner::recomputations_hold() {
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

Tiling Planner::launch_of(int i) const {
  const Task& t = ops_[anchor_[i]];
  return launch_tiling(t.args[t.key]);
}

bool Planner::rematerialize(int i) {
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

bool Planner::recomputes_shifted(int i) {
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

bool Planner::is_positional(int i) const {
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

void Planner::effective_reads(int i, std::vector<ViewKey>& out, std::vector<int>* by) const {
  for (const EffectiveRead& r : reads_of(i)) {
    out.push_back(r.key);
    if (by) by->push_back(r.loader);
  }
}

const std::vector<Planner::EffectiveRead>& Planner::reads_of(int i) const {
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

View Planner::seen_through(const Arg& arg, const View* through) {
  return through && arg.store->ndim() > 0 ? compose(arg.view, *through) : arg.view;
}

bool Planner::visible_after(int store, int i) const {
  if (w_.stores[store]->user_refs() > 0 || !created_[store]) return true;
  return !readers_[store].empty() && readers_[store].back() > i;  // readers are in op order
}

std::size_t Planner::arguments_with(int i, const std::vector<ViewKey>& reads_i, const std::vector<char>& old_read,
                                    const std::set<ViewKey>& external, const std::map<int, std::vector<View>>& written,
                                    std::set<int>& visible) const {
  std::set<ViewKey> new_reads;
  for (std::size_t k = 0; k < reads_i.size(); ++k)
    if ((old_read[k] || !forwarded(written, reads_i[k])) && external.count(reads_i[k]) == 0)
      new_reads.insert(reads_i[k]);
  for (auto it = visible.begin(); it != visible.end();) it = visible_after(*it, i) ? std::next(it) : visible.erase(it);
  std::size_t count = external.size() + new_reads.size() + visible.size();
  const Task& t = ops_[i];
  for (std::size_t a = 0; a < t.args.size(); ++a) {
    const int s = w_.arg_store[i][a];
    if (t.args[a].written && visible.count(s) == 0 && visible_after(s, i)) ++count;
  }
  return count;
}

}  // namespace tessera::detail::planning

namespace tessera::detail {

Plan make_plan(const std::vector<Task>& ops, const CanonicalWindow& window, bool everything) {
  return planning::Planner(ops, window, everything).run();
}

}  // namespace tessera::detail
