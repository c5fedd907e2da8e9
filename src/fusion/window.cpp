#include "tessera/fusion/window.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

#include "tessera/core/error.hpp"
#include "tessera/core/runtime_state.hpp"

namespace tessera::detail {

void Window::record(Task&& op) {
  // Run a full window before adding the new op, not after: by now every earlier op's result has
  // its Array handle (or has lost it), so liveness is known; the new op's inputs are held by the
  // caller for the duration of this call.
  if (static_cast<int>(ops_.size()) >= capacity_) run(false, FlushKind::WindowFull);
  if (check_.enabled()) check_.add(hash_task(op), static_cast<int>(ops_.size()));
  ops_.push_back(std::move(op));
}

void Window::flush(FlushKind kind) {
  if (kind == FlushKind::Unwinding) {
    // Leaving by an exception: only agree that every rank does; nothing recorded can be observed.
    check_.verify(kind, ops_, nullptr, std::min(check_.timeout(), kUnwindingGrace));
    return;
  }
  if (!ops_.empty())
    run(true, kind);
  else if (check_.enabled())
    check_.verify(kind, ops_, nullptr, check_.timeout());
}

void Window::run(bool everything, FlushKind kind) {
  RuntimeState& rt = runtime();
  // Before anything of the window runs: a diverged window would hang in its first exchange.
  if (check_.enabled()) check_.verify(kind, ops_, nullptr, check_.timeout());
  CanonicalWindow window = canonicalize(ops_, everything);
  auto it = cache_.find(window.signature);
  if (it == cache_.end()) {
    rt.stats().plan_cache_misses++;
    if (cache_.size() >= kMaxPlans) cache_.clear();  // a program whose windows never repeat
    it = cache_.emplace(window.signature, make_plan(ops_, window, everything)).first;
  } else {
    rt.stats().plan_cache_hits++;
  }
  const Plan& plan = it->second;
  if (plan.kept.empty() && plan.groups.size() == 1 && !everything && capacity_ < kMaxCapacity) {
    // Everything so far fuses into one kernel and no loop period was seen: grow the window
    // rather than cut the group (as Diffuse does).
    capacity_ *= 2;
    return;
  }
  // Split off the ops that stay before running; the executed ones stay alive until they ran.
  std::vector<Task> done = std::move(ops_);
  ops_.clear();
  for (int i : plan.kept) ops_.push_back(std::move(done[i]));
  execute_plan(plan, window, done);
}

void Window::execute_plan(const Plan& plan, const CanonicalWindow& window, const std::vector<Task>& ops) {
  RuntimeState& rt = runtime();
  for (const PlannedGroup& g : plan.groups) {
    Launch launch;
    launch.program = &g.program;
    launch.label = &g.label;
    if (g.task_op >= 0) launch.body = ops[g.task_op].body.get();
    launch.args.reserve(g.args.size());
    for (const PlannedArg& a : g.args)
      launch.args.push_back(Arg{window.stores[a.store], a.view, a.written, false, a.renamed});
    launch.domain = Arg{window.stores[g.domain.store], g.domain.view, false, false};
    for (const PlannedReduction& r : g.reductions)
      launch.reductions.push_back(ReductionOut{window.stores[r.store], r.finalize, r.count});
    const ExecReport report = execute(launch);
    if (rt.logging(LogTopic::Fusion))
      rt.log(LogTopic::Fusion,
             g.label + ": " + g.explain + " | halos exchanged: " + std::to_string(report.halo_stores) + " store(s), " +
                 std::to_string(report.halo_bytes) +
                 " bytes received | redistributed: " + std::to_string(report.redistributions) +
                 (report.image_bytes ? " | image: " + std::to_string(report.image_bytes) + " bytes received"
                                     : std::string()));
  }
}

namespace {

// Whether the executor may communicate for this task: a reduction over a distributed domain, or
// an operand not aligned with the launch domain (a halo or a redistribution).
bool may_communicate(const Task& t, int ranks) {
  if (ranks == 1) return false;
  if (t.body) return true;  // its constraints move data, its reduce privileges allreduce
  const Arg& key = t.args[t.key];
  if (!t.reductions.empty() && key.store->ndim() > 0) return true;  // a 0-d domain is computed whole everywhere
  const std::optional<Tiling> launch = induced(key.store->tiling(), key.view);
  for (const Arg& a : t.args) {
    if (a.store->ndim() == 0) continue;
    const std::optional<Tiling> ta = induced(a.store->tiling(), a.view);
    if (!launch || !ta || !ta->aligned(*launch)) return true;
  }
  return false;
}

}  // namespace

void submit(Task&& task) {
  RuntimeState& rt = runtime();
  if (!rt.config().fusion) {
    // Eager mode: ops are checked before one that communicates (and every `window` ops), so
    // that no exchange starts on diverged streams.
    StreamCheck& check = rt.window().check();
    if (!check.enabled()) {
      execute(task);
      return;
    }
    check.add_current(hash_task(task));
    if (may_communicate(task, rt.size()) || check.pending() >= static_cast<std::size_t>(rt.config().window))
      check.verify(FlushKind::Eager, {}, &task, check.timeout());
    execute(task);
    check.keep(task);
    return;
  }
  rt.window().record(std::move(task));
}

void flush_window(FlushKind kind) {
  RuntimeState& rt = runtime();
  rt.window().flush(kind);
}

}  // namespace tessera::detail
