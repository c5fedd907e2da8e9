#pragma once
// The op stream: operations are recorded into a window and run when it is flushed — when it is
// full, on item()/to_host()/flush(), and at Runtime teardown. With fusion off (TESSERA_FUSION=0)
// every op runs at once as its own kernel: the reference the fused path is checked against.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/core/config.hpp"
#include "tessera/fusion/divergence.hpp"
#include "tessera/fusion/plan.hpp"

namespace tessera::detail {

class Window {
 public:
  Window(const Config& config, MPI_Comm parent)
      : capacity_(config.window), max_loop_capacity_(2 * config.window), check_(config, parent) {}
  void record(Task&& op);
  void flush(FlushKind kind = FlushKind::Flush);
  bool empty() const { return ops_.empty(); }
  // A new task for an op: an executed one emptied (as Task{} but with its vectors' and label's
  // buffers), so that recording a steady loop's ops allocates nothing for their programs,
  // arguments and labels.
  Task take_task();
  StreamCheck& check() { return check_; }
  // fold_inner_product (below) on this window's ops.
  bool fold_inner_product(const Arg& w, const Arg& x, const std::shared_ptr<Store>& sum);

 private:
  void run(bool everything, FlushKind kind);
  // The loop period in the op stream (below): extends it with the window's new ops and returns
  // where iterations start in the window, if the loop is longer than half of it.
  std::vector<int> loop_heads(const CanonicalWindow& window, bool everything);
  void find_period();
  void execute_plan(Plan& plan, const CanonicalWindow& window, const std::vector<Task>& ops);

  static constexpr int kMaxCapacity = 4096;
  // How long a rank leaving by an exception waits for the others to do the same (they throw at
  // the same op when the error is the same everywhere) before it aborts the job.
  static constexpr double kUnwindingGrace = 10;
  static constexpr std::size_t kMaxPlans = 4096;
  static constexpr std::size_t kMaxFreeTasks = kMaxCapacity;
  int capacity_;
  // A loop of at most this many ops per iteration gets a window that holds one (twice the
  // configured window): longer ones (the lid-driven cavity's 50 pressure sweeps per step, a
  // multigrid V-cycle) ran 1.4-2.7 times slower on the CPU in windows grown to hold them, whose
  // plans cost more than fusing across their statements saves.
  int max_loop_capacity_;
  std::vector<Task> ops_;
  // The vector of the last executed window, emptied: the next window records into it, so that a
  // steady loop does not grow a vector of ops from nothing on every flush.
  std::vector<Task> spare_;
  std::vector<Task> free_tasks_;  // executed tasks, emptied (take_task)
  struct Hash {
    std::size_t operator()(const WindowSignature& s) const { return static_cast<std::size_t>(s.hash); }
  };
  std::unordered_map<WindowSignature, Plan, Hash> cache_;
  StreamCheck check_;
  // The op stream across windows, for loops longer than half a window (whose period a window
  // cannot see): seq_[i] numbers ops_[i] in recording order; history_ holds the stream hashes
  // (CanonicalWindow::stream_hash) of ops history_base_ .. history_base_ + size - 1, each taken
  // when the op was first planned. Once the stream repeats with a period, loop_period_ ops from
  // loop_head_ on (the op where the repetition began: the loop's first op after its setup),
  // iterations start at loop_head_ + k * loop_period_; a new op that breaks the repetition
  // forgets the period, and it is looked for again.
  static constexpr std::size_t kMaxPeriod = 2048;
  std::vector<std::int64_t> seq_;
  std::vector<std::int64_t> seq_spare_;  // run()'s copy of seq_, kept for its capacity
  std::int64_t recorded_ = 0;
  std::vector<std::uint64_t> history_;
  std::int64_t history_base_ = 0;
  std::int64_t loop_head_ = -1;
  std::int64_t loop_period_ = 0;
  std::int64_t searched_at_ = -1;  // the history's end when the period was last looked for
};

// Hands a task to the runtime: runs it now (fusion off) or records it in the window.
void submit(Task&& task);
// Runs everything recorded so far.
void flush_window(FlushKind kind = FlushKind::Flush);
// sum(w * x) as the epilogue of the task in the window that last wrote w (through w's view), where
// its body takes one (TaskBody::with_inner_product: sparse CG's vdot(p, A @ p) inside the SpMV):
// that task gets x and `sum`, a new 0-d store of w's type, as arguments, and nothing else is
// recorded. False where this does not apply, and nothing changed: fusion off, the writer has run
// or was planned already, it writes x, x changes after it, x is not separable (a matrix's diagonal)
// or has another shape. An x tiled otherwise is brought to the launch's tiles by the executor.
bool fold_inner_product(const Arg& w, const Arg& x, const std::shared_ptr<Store>& sum);
}  // namespace tessera::detail
