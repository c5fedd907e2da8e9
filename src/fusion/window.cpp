#include "tessera/fusion/window.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

#include "tessera/core/error.hpp"
#include "tessera/fusion/runtime_state.hpp"

namespace tessera::detail {

namespace {

// An executed task as Task{} has it, keeping the buffers of its code, constants, arguments and
// label. Its parts go in the order a Task is destroyed (the body first, the program last).
Task emptied(Task&& t) {
  Task fresh;
  t.body.reset();
  fresh.label = std::move(t.label);
  fresh.label.clear();
  t.reductions.clear();
  fresh.args = std::move(t.args);
  fresh.args.clear();
  fresh.program.constants = std::move(t.program.constants);
  fresh.program.constants.clear();
  fresh.program.code = std::move(t.program.code);
  fresh.program.code.clear();
  return fresh;
}

}  // namespace

Task Window::take_task() {
  if (free_tasks_.empty()) return Task{};
  Task t = std::move(free_tasks_.back());
  free_tasks_.pop_back();
  return t;
}

void Window::record(Task&& op) {
  // Run a full window before adding the new op, not after: by now every earlier op's result has
  // its Array handle (or has lost it), so liveness is known; the new op's inputs are held by the
  // caller for the duration of this call.
  if (static_cast<int>(ops_.size()) >= capacity_) run(false, FlushKind::WindowFull);
  // One rank has no other stream to diverge from: its ops need no hash (the check at the flush
  // still runs, and agrees).
  if (check_.enabled() && runtime().size() > 1) check_.add(hash_task(op), static_cast<int>(ops_.size()));
  ops_.push_back(std::move(op));
  seq_.push_back(recorded_++);
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
  std::vector<int> heads = loop_heads(window, everything);
  if (!everything && loop_period_ > capacity_ && loop_period_ <= max_loop_capacity_) {
    // An iteration longer than the window: its statements never share a window, so their
    // results are stored while their handles still live (a shallow-water step of about 120 ops
    // in windows of 64). Grow until one holds an iteration; the cut then falls where they start.
    while (capacity_ < loop_period_) capacity_ *= 2;
    return;
  }
  if (!heads.empty()) set_loop_heads(window, std::move(heads));
  auto it = cache_.find(window.signature);
  if (it == cache_.end()) {
    rt.stats().plan_cache_misses++;
    if (cache_.size() >= kMaxPlans) cache_.clear();  // a program whose windows never repeat
    it = cache_.emplace(window.signature, make_plan(ops_, window, everything)).first;
  } else {
    rt.stats().plan_cache_hits++;
  }
  Plan& plan = it->second;
  if (plan.kept.empty() && plan.groups.size() == 1 && !everything && capacity_ < kMaxCapacity) {
    // Everything so far fuses into one kernel and no loop period was seen: grow the window
    // rather than cut the group (as Diffuse does).
    capacity_ *= 2;
    return;
  }
  // Split off the ops that stay before running; the executed ones stay alive until they ran.
  std::vector<Task> done;
  done.swap(spare_);  // empty, with an earlier window's capacity
  done.swap(ops_);
  std::vector<std::int64_t>& seq = seq_spare_;  // keeps its capacity, as seq_ does
  seq.clear();
  seq.swap(seq_);
  for (int i : plan.kept) {
    ops_.push_back(std::move(done[i]));
    seq_.push_back(seq[i]);
  }
  execute_plan(plan, window, done);
  for (Task& t : done)
    if (t.program.code.capacity() > 0 && free_tasks_.size() < kMaxFreeTasks)
      free_tasks_.push_back(emptied(std::move(t)));
  done.clear();
  if (done.capacity() > spare_.capacity()) spare_.swap(done);
}

std::vector<int> Window::loop_heads(const CanonicalWindow& window, bool everything) {
  // The window's ops are in recording order; those not yet in the history follow the kept ones.
  const std::int64_t end = history_base_ + static_cast<std::int64_t>(history_.size());
  for (std::size_t i = 0; i < seq_.size(); ++i) {
    if (seq_[i] < end) continue;
    const std::int64_t x = history_base_ + static_cast<std::int64_t>(history_.size());
    history_.push_back(window.stream_hash[i]);
    if (loop_period_ > 0 && x >= loop_head_ + loop_period_ &&
        history_[x - history_base_] != history_[x - loop_period_ - history_base_])
      loop_period_ = 0, loop_head_ = -1;  // the loop ended (or it was no loop)
  }
  if (history_.size() > 4 * kMaxPeriod) {  // keep two of the longest periods looked for
    const std::size_t drop = history_.size() - 2 * kMaxPeriod;
    history_.erase(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(drop));
    history_base_ += static_cast<std::int64_t>(drop);
  }
  if (loop_period_ == 0) find_period();
  const std::int64_t n = static_cast<std::int64_t>(seq_.size());
  std::vector<int> heads;
  if (everything || loop_period_ == 0 || 2 * loop_period_ <= n) return heads;  // the planner sees it
  for (std::int64_t i = 1; i < n; ++i)
    if (seq_[i] >= loop_head_ && (seq_[i] - loop_head_) % loop_period_ == 0) heads.push_back(static_cast<int>(i));
  return heads;
}

// The shortest period L with which the history ends repeating (h[k] == h[k - L]) over at least
// two periods and at least a window's worth of ops (a few equal ops in a row, such as the
// boundary strips of H, U and V, are no loop), and the op where that repetition began. Looked for
// again only once the history has grown by a window since the last search.
void Window::find_period() {
  const std::int64_t size = static_cast<std::int64_t>(history_.size());
  const std::int64_t end = history_base_ + size;
  if (searched_at_ >= 0 && end - searched_at_ < capacity_) return;
  searched_at_ = end;
  const std::vector<std::uint64_t>& h = history_;
  for (std::int64_t L = 1; 2 * L <= size && L <= static_cast<std::int64_t>(kMaxPeriod); ++L) {
    std::int64_t p = size;  // h[k] == h[k - L] for every k >= p
    while (p - 1 >= L && h[p - 1] == h[p - 1 - L]) --p;
    const std::int64_t begin = p - L;  // the repetition begins here
    if (size - begin < 2 * L || size - begin < capacity_) continue;
    loop_period_ = L;
    loop_head_ = history_base_ + begin;
    return;
  }
}

namespace {

// Small groups run together (execute_batch): consecutive groups of at most
// Config::batch_elements elements each (boundary strips, corners, the coarse levels of a
// multigrid cycle, also over one domain and renaming a buffer), for which a launch costs more than
// their work; the batch runs them in program order.
bool batchable(const PlannedGroup& g, std::int64_t batch_elements) {
  return g.task_op < 0 && g.reductions.empty() && g.domain.view.volume() <= batch_elements;
}

// Groups of any size that touch nothing another writes also run together (execute_batch's
// independent batches: the parts spread over the blocks of one launch, in no order): the four
// updates of a multigrid prolongation (u's even and odd rows and columns: step-2 views that never
// meet), a restriction beside the zeroing of the coarse correction. A group that renames a buffer
// stays out (the parts after it would read the fresh buffer: an order).
bool spreadable(const PlannedGroup& g) {
  if (g.task_op >= 0 || !g.reductions.empty()) return false;
  return std::none_of(g.args.begin(), g.args.end(), [](const PlannedArg& a) { return a.renamed; });
}
// Whether neither group writes an element that the other reads or writes (may_meet: false alarms
// keep groups apart, never the reverse).
bool independent(const PlannedGroup& a, const PlannedGroup& b) {
  for (const PlannedArg& x : a.args)
    for (const PlannedArg& y : b.args)
      if (x.store == y.store && (x.written || y.written) && may_meet(x.view, y.view)) return false;
  return true;
}

// The plan's groups as runs: consecutive small groups (at least two) in order; else consecutive
// groups independent of each other (at least two) in any order; else one group. Batching off
// (batch_elements 0): every group on its own.
std::vector<BatchRun> batch_runs(const Plan& plan, std::int64_t batch_elements) {
  const int n = static_cast<int>(plan.groups.size());
  std::vector<BatchRun> runs;
  for (int i = 0; i < n;) {
    int small = i, spread = i;
    while (small < n && batchable(plan.groups[small], batch_elements)) ++small;
    if (small - i < 2 && batch_elements > 0)
      while (spread < n && spreadable(plan.groups[spread]) &&
             std::all_of(plan.groups.begin() + i, plan.groups.begin() + spread,
                         [&](const PlannedGroup& g) { return independent(g, plan.groups[spread]); }))
        ++spread;
    if (small - i >= 2)
      runs.push_back({i, small, false});
    else if (spread - i >= 2)
      runs.push_back({i, spread, true});
    else
      runs.push_back({i, i + 1, false});
    i = runs.back().end;
  }
  return runs;
}

}  // namespace

void Window::execute_plan(Plan& plan, const CanonicalWindow& window, const std::vector<Task>& ops) {
  RuntimeState& rt = runtime();
  const auto launch_of = [&](const PlannedGroup& g) {
    Launch launch;
    launch.program = &g.program;
    launch.label = &g.label;
    if (g.task_op >= 0) launch.body = ops[g.task_op].body.get();
    launch.args.reserve(g.args.size());
    for (const PlannedArg& a : g.args)
      launch.args.emplace_back(window.stores[a.store], a.view, a.written, false, a.renamed);
    launch.domain = Arg{window.stores[g.domain.store], g.domain.view, false, false};
    for (const PlannedReduction& r : g.reductions)
      launch.reductions.push_back(ReductionOut{window.stores[r.store], r.finalize, r.count});
    return launch;
  };
  // A store that nothing outside the executed ops holds (no Array handle, no op left in the
  // window: its only references are theirs and the canonical window's) is dead once the last
  // kernel touching it has been enqueued; its buffers go back to the pool then, not when the whole
  // window has run. A window holding many iterations of a loop (CG's reduction results, two per
  // iteration) then needs the buffers of about one, whatever its length: the pool warmed by a few
  // iterations serves any later window. The next user of a buffer is ordered after the kernel on
  // the one stream (core/memory_pool.hpp).
  const std::size_t nstores = window.stores.size();
  std::vector<int> last_group(nstores, -1);
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    for (const PlannedArg& a : plan.groups[g].args) last_group[a.store] = static_cast<int>(g);
    for (const PlannedReduction& r : plan.groups[g].reductions) last_group[r.store] = static_cast<int>(g);
    last_group[plan.groups[g].domain.store] = static_cast<int>(g);  // geometry only, but kept whole
  }
  std::vector<long> references(nstores, 1);       // window.stores' own
  for (std::size_t i = 0; i < ops.size(); ++i) {  // the kept ops were moved from: no arguments left
    for (std::size_t a = 0; a < ops[i].args.size(); ++a) ++references[window.arg_store[i][a]];
    for (std::size_t r = 0; r < ops[i].reductions.size(); ++r) ++references[window.reduction_store[i][r]];
  }
  std::vector<std::vector<int>> dead_after(plan.groups.size());
  for (std::size_t s = 0; s < nstores; ++s)
    if (last_group[s] >= 0 && window.stores[s].use_count() == references[s]) dead_after[last_group[s]].push_back(s);
  if (plan.runs.empty() && !plan.groups.empty()) plan.runs = batch_runs(plan, rt.config().batch_elements);
  for (const BatchRun& run : plan.runs) {
    const std::size_t i = run.first, j = run.end;
    std::vector<ExecReport> reports;
    if (j - i >= 2) {
      std::vector<Launch> batch;
      for (std::size_t k = i; k < j; ++k) batch.push_back(launch_of(plan.groups[k]));
      // The group after a batch in order, where it renames a buffer: the batch copies its frame.
      const bool renames = !run.independent && j < plan.groups.size() &&
                           std::any_of(plan.groups[j].args.begin(), plan.groups[j].args.end(),
                                       [](const PlannedArg& a) { return a.renamed; });
      const BatchOrder order = run.independent ? BatchOrder::Independent : BatchOrder::InOrder;
      if (renames) {
        const Launch next = launch_of(plan.groups[j]);
        reports = execute_batch(batch, &next, order);
      } else {
        reports = execute_batch(batch, nullptr, order);
      }
    } else {
      reports.push_back(execute(launch_of(plan.groups[i])));
    }
    // The launches' copies of the store pointers are gone: a count above `references` now means
    // that something took the store during execution, which then stays.
    for (std::size_t k = i; k < j; ++k)
      for (int s : dead_after[k])
        if (window.stores[s].use_count() == references[s]) window.stores[s]->discard();
    for (std::size_t k = i; k < j && rt.logging(LogTopic::Fusion); ++k) {
      const PlannedGroup& g = plan.groups[k];
      const ExecReport& report = reports[k - i];
      rt.log(LogTopic::Fusion,
             g.label + ": " + g.explain + " | halos exchanged: " + std::to_string(report.halo_stores) + " store(s), " +
                 std::to_string(report.halo_bytes) +
                 " bytes received | redistributed: " + std::to_string(report.redistributions) +
                 (report.image_bytes ? " | image: " + std::to_string(report.image_bytes) + " bytes received"
                                     : std::string()) +
                 (report.batched ? std::string(" | batched: one kernel with the ") +
                                       (run.independent ? "independent" : "small") + " groups beside it"
                                 : std::string()));
    }
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

bool Window::fold_inner_product(const Arg& w, const Arg& x, const std::shared_ptr<Store>& sum) {
  if (w.store == x.store) return false;  // sum(w * w) does not split over the parts of w
  const std::int64_t planned = history_base_ + static_cast<std::int64_t>(history_.size());
  for (int j = static_cast<int>(ops_.size()) - 1; j >= 0; --j) {
    Task& t = ops_[j];
    int written = -1;
    for (std::size_t a = 0; a < t.args.size(); ++a) {
      if (!t.args[a].written) continue;
      if (t.args[a].store == x.store) return false;  // x then is not what the sum reads
      if (t.args[a].store == w.store) written = static_cast<int>(a);
    }
    if (written < 0) continue;
    // A planned op's hash is in the loop history: it stays as it was.
    if (!t.body || t.args[written].view != w.view || seq_[j] < planned) return false;
    std::shared_ptr<const TaskBody> body = t.body->with_inner_product(written);
    if (!body) return false;
    // x is an align() argument: the executor brings it to the launch's tiles where it is tiled
    // otherwise, as the reduction's kernel would have.
    const Arg& key = t.args[t.key];
    if (x.view.ndim != key.view.ndim || x.view.extent != key.view.extent || !x.view.separable()) return false;
    View over;  // the 0-d sum, stretched over the launch domain: each rank's tile adds to it
    over.ndim = key.view.ndim;
    over.extent = key.view.extent;
    t.args.push_back(Arg{x.store, x.view, false, false});
    t.args.push_back(Arg{sum, over, true, true});
    std::vector<ArgView> views;
    for (const Arg& a : t.args) views.push_back({a.store.get(), a.view});
    body->validate(t.label, views, t.key);
    t.body = std::move(body);
    t.label.insert(t.label.size() - 1, "+vdot");  // tessera::task[spmv+vdot]
    return true;
  }
  return false;
}

bool fold_inner_product(const Arg& w, const Arg& x, const std::shared_ptr<Store>& sum) {
  RuntimeState& rt = runtime();
  return rt.config().fusion && rt.window().fold_inner_product(w, x, sum);
}

void submit(Task&& task) {
  RuntimeState& rt = runtime();
  for (const Arg& a : task.args)
    if (a.written) a.store->forget_bounds();  // the values it knew bounds for are overwritten
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
