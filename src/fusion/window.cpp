#include "tessera/fusion/window.hpp"

#include "tessera/core/runtime_state.hpp"

namespace tessera::detail {

void Window::record(Task&& op) {
  // Run a full window before adding the new op, not after: by now every earlier op's result has
  // its Array handle (or has lost it), so liveness is known; the new op's inputs are held by the
  // caller for the duration of this call.
  if (static_cast<int>(ops_.size()) >= capacity_) run(false);
  ops_.push_back(std::move(op));
}

void Window::flush() {
  if (!ops_.empty()) run(true);
}

void Window::run(bool everything) {
  RuntimeState& rt = runtime();
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
  execute_plan(plan, window);
}

void Window::execute_plan(const Plan& plan, const CanonicalWindow& window) {
  RuntimeState& rt = runtime();
  for (const PlannedGroup& g : plan.groups) {
    Launch launch;
    launch.program = &g.program;
    launch.label = &g.label;
    launch.args.reserve(g.args.size());
    for (const PlannedArg& a : g.args) launch.args.push_back(Arg{window.stores[a.store], a.view, a.written, false});
    launch.domain = Arg{window.stores[g.domain.store], g.domain.view, false, false};
    for (const PlannedReduction& r : g.reductions)
      launch.reductions.push_back(ReductionOut{window.stores[r.store], r.finalize, r.count});
    const ExecReport report = execute(launch);
    if (rt.logging(LogTopic::Fusion))
      rt.log(LogTopic::Fusion, g.label + ": " + g.explain +
                                   " | halos exchanged: " + std::to_string(report.halo_stores) + " store(s), " +
                                   std::to_string(report.halo_bytes) +
                                   " bytes received | redistributed: " + std::to_string(report.redistributions));
  }
}

void submit(Task&& task) {
  RuntimeState& rt = runtime();
  if (!rt.config().fusion) {
    execute(task);
    return;
  }
  rt.window().record(std::move(task));
}

void flush_window() {
  RuntimeState& rt = runtime();
  rt.window().flush();
}

}  // namespace tessera::detail
