#pragma once
// Divergence detection (docs/RELIABILITY.md): every rank runs the same op stream, and a rank that
// does not would hang (or cross-match) the next exchange; the check finds the first op that
// differs and ends the job with every rank's report instead.

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tessera/core/config.hpp"
#include "tessera/fusion/task.hpp"

namespace tessera::detail {

// Why the op stream is flushed. The divergence check compares it too: one rank at item() while
// another is still recording ops is a divergence.
enum class FlushKind : std::uint8_t { WindowFull, Flush, Teardown, Unwinding, Eager };

// Divergence detection (docs/RELIABILITY.md). Every op is folded into a running hash when it is
// recorded; before anything of a flushed window runs, the ranks compare (hash, op count, flush
// kind) in one two-word MPI_Allreduce on a private communicator. On a mismatch they find the
// first op that differs, every rank reports its own, and the job is aborted: a diverged job
// would otherwise hang in (or cross-match) its next exchange. A watchdog thread aborts a rank
// that waits in a check longer than TESSERA_COMM_TIMEOUT.
class StreamCheck {
 public:
  StreamCheck(const Config& config, MPI_Comm parent);
  ~StreamCheck();
  StreamCheck(const StreamCheck&) = delete;
  StreamCheck& operator=(const StreamCheck&) = delete;

  bool enabled() const { return enabled_; }
  // An op recorded in the window at index `task`.
  void add(std::uint64_t hash, int task);
  // An op that records no task (creation from host data, empty/zeros): described now.
  void add(std::uint64_t hash, std::string description);
  // An op run eagerly (TESSERA_FUSION=0): `current` in verify() until keep() records what
  // describes it, after it ran, for the next check.
  void add_current(std::uint64_t hash);
  void keep(const Task& ran);
  std::size_t pending() const { return pending_.size(); }
  // Returns only when every rank has the same stream; otherwise reports and aborts the job.
  void verify(FlushKind kind, const std::vector<Task>& window, const Task* current, double timeout_s);
  double timeout() const { return timeout_s_; }
  MPI_Comm comm() const { return comm_; }

 private:
  enum class Source : std::uint8_t { Window, Current, Kept, Described };
  struct Pending {
    std::uint64_t hash;
    Source source;
    int index;  // in the window or in kept_
    std::string description;
  };
  [[noreturn]] void report(FlushKind kind, const std::vector<Task>& window, const Task* current);
  void watchdog_arm(FlushKind kind, std::int64_t count, double timeout_s);
  void watch();

  bool enabled_ = true;
  double timeout_s_ = 300;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::uint64_t running_ = 0;  // hash of every op so far
  std::int64_t checked_ = 0;   // ops covered by the last successful check
  std::vector<Pending> pending_;
  // What describes an eager op that ran since the last check (not the Task: its stores would stay
  // allocated until the check).
  struct OpRecord {
    struct Operand {
      std::uint64_t id;
      DType dtype;
      Index3 shape;
      View view;
      bool written;
    };
    std::string label;
    std::vector<Operand> operands;
    std::vector<std::pair<Value, DType>> constants;  // in program order; Int64 seeds of random
    std::vector<bool> is_seed;
    std::vector<std::pair<ReduceKind, Operand>> reductions;
  };
  static OpRecord record_of(const Task& t);
  static std::string describe(const OpRecord& r);
  std::vector<OpRecord> kept_;

  // The watchdog: started at the first check, stopped by the destructor.
  std::thread watchdog_;
  std::mutex watch_mutex_;
  std::condition_variable watch_wake_;
  bool stop_ = false;
  std::atomic<std::int64_t> deadline_ns_{0};  // steady clock; 0 while not in a check
  std::atomic<int> waiting_kind_{0};
  std::atomic<std::int64_t> waiting_at_{0};
  std::atomic<double> waiting_timeout_{0};
};

// Ops that record no task (creation from host data, empty/zeros) join the divergence check
// through note_op; build the description only if checking_divergence().
bool checking_divergence();
void note_op(std::uint64_t hash, std::string description);

// The divergence hash of one task, and helpers for note_op callers.
std::uint64_t hash_task(const Task& t);
std::uint64_t hash_mix(std::uint64_t h, std::uint64_t x);
std::uint64_t hash_bytes(std::uint64_t h, const void* data, std::size_t bytes);

}  // namespace tessera::detail
