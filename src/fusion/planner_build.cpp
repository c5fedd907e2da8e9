// The window planner, part three: one fused program per group (its arguments, loads, registers)
// and the fusion log's line for it (fusion/planner_impl.hpp).

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "tessera/core/error.hpp"
#include "tessera/fusion/planner_impl.hpp"

namespace tessera::detail::planning {

int Planner::emit(Builder& b, int i, const Group* group, const View* through) {
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

PlannedGroup Planner::build_group(const Group& group) {
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
    b.g.domain = {w_.arg_store[anchor_[group.ops[group.epilogue]]][epilogue_key.key], compose(op_key, *b.lift), false};
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
  explain << " | shifted reads (halo or redistribution): " << shifted << " | bytes read " << read_bytes << ", written "
          << write_bytes << " (global)";
  b.g.explain = explain.str();
  return std::move(b.g);
}

bool Planner::could_join(const Group& g, int i) const {
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

std::string Planner::fused_label(const std::vector<int>& group) const {
  constexpr std::size_t kShown = 6;
  std::string label = "tessera::fused[";
  for (std::size_t k = 0; k < std::min(kShown, group.size()); ++k)
    label += (k ? "," : "") + short_name(ops_[group[k]].label);
  if (group.size() > kShown) label += ",...+" + std::to_string(group.size() - kShown);
  return label + "]";
}

PlannedGroup Planner::build_task(const Group& group) {
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

PlannedGroup Planner::build_scalar(int i) {
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

void Planner::split_sweep(Builder& b, int start, int rows) {
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
    if (in.op == OpCode::Reduce || in.op == OpCode::ReduceArg) in.dst = static_cast<std::uint16_t>(renumbered(in.dst));
    if (in.op == OpCode::ReduceResult) in.a = static_cast<std::uint16_t>(renumbered(in.a));
  }
  std::rotate(p.reduce_kinds.begin(), p.reduce_kinds.begin() + rows, p.reduce_kinds.end());
  std::vector<bool> is_float;
  for (int k = 0; k < total; ++k) is_float.push_back(p.reduce_float[(k + rows) % total]);
  p.reduce_float = std::move(is_float);
  p.row_slots = rows;
}

void Planner::finish(Builder& b, int first_index) {
  const int anchor = anchor_.empty() ? first_index : anchor_[first_index];
  const Task& t = ops_[anchor];
  b.g.domain = {w_.arg_store[anchor][t.key], t.args[t.key].view, false};
  allocate_registers(b.g.program);
}

void Planner::allocate_registers(Program& p) {
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
    std::uint16_t* fields[3];  // where the sources are named: renamed below, after the destination
    const int k = register_source_fields(p, in, fields);
    int mapped[3];
    for (int j = 0; j < k; ++j) src[j] = *fields[j], mapped[j] = phys[src[j]];
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
    for (int j = 0; j < k; ++j) *fields[j] = static_cast<std::uint16_t>(mapped[j]);
  }
  p.registers = used;
  if (used > kMaxRegisters) raise("internal: fused program needs ", used, " registers, more than ", kMaxRegisters);
}

}  // namespace tessera::detail::planning
