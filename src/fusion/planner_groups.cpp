// The window planner, part two: ops into groups by the fusion rules (nested reductions, epilogues,
// sweeps among them), the cut of the window and the ops it defers (fusion/planner_impl.hpp).

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "tessera/core/error.hpp"
#include "tessera/fusion/planner_impl.hpp"

namespace tessera::detail::planning {

std::string Planner::outer_reduction(int i, int inner) const {
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

std::optional<std::vector<int>> Planner::nested_siblings(int i, int inner) const {
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

std::string Planner::nested_reduction(int i, const Group& group, const std::set<ViewKey>& external) const {
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

std::string Planner::epilogue_refusal(int i, const Group& group, const std::vector<ViewKey>& reads_i,
                                      const std::vector<char>& reduced, const std::set<int>& body,
                                      const std::set<int>& body_written, const Tiling& body_domain,
                                      bool starting) const {
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

std::string Planner::sweep_refusal(int i, const Group& group, const std::vector<ViewKey>& reads_i,
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

void Planner::form_groups() {
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
        not_epilogue = epilogue_refusal(i, current, reads_i, reduced, body_stores, body_written, body_domain, starting);
        if (not_epilogue.empty()) {
          epilogue_reads = reads_reduced;
          if (starting) {
            current.epilogue = static_cast<int>(current.ops.size());
            domain = tiling;
          }
        } else if (!starting) {
          close("op " + std::to_string(i) + " (" + short_name(t.label) + ") cannot join the epilogue: " + not_epilogue);
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
          msg << "rule 3 (anti-dependence): op " << i << " (" << short_name(t.label) << ") recomputes op " << loader[k]
              << ", which reads store#" << w_.stores[r.store]->id() << " through " << r.view
              << ", written in the group after it through " << views.front();
          why = msg.str();
        } else if (wo != write_ops.end() && loader[k] < wo->second.second) {
          msg << "rule 2 (true dependence): op " << i << " (" << short_name(t.label) << ") recomputes op " << loader[k]
              << ", which reads store#" << w_.stores[r.store]->id() << " between two writes in the group";
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

void Planner::choose_cut() {
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

bool Planner::feeds_only_kept(int i) const {
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

void Planner::find_deferred() {
  deferred_.assign(n_, false);
  for (int i = std::min(cut_, n_) - 1; i >= 0; --i) {
    if (!floating_[i]) continue;
    for (int r : readers_[written_store(i)])
      if (r >= cut_ || deferred_[r]) deferred_[i] = true;
  }
}

bool Planner::must_materialize(int i) const {
  if (deferred(i)) return false;
  const int out = written_store(i);
  if (w_.stores[out]->user_refs() > 0) return true;
  for (int r : readers_[out])
    if (r >= cut_) return true;
  return false;
}

int Planner::written_store(int i) const {
  const Task& t = ops_[i];
  for (std::size_t a = 0; a < t.args.size(); ++a)
    if (t.args[a].written) return w_.arg_store[i][a];
  return -1;
}

bool Planner::live_after(int store, const std::vector<int>& group) const {
  if (w_.stores[store]->user_refs() > 0 || !created_[store]) return true;
  for (int r : readers_[store]) {
    if (floating_[r] ? live_after(written_store(r), group) : !std::binary_search(group.begin(), group.end(), r))
      return true;
  }
  return false;
}

}  // namespace tessera::detail::planning
