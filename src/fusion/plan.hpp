#pragma once
// Plan: what the planner decided for one window, in terms of canonical store numbers (stores
// renamed in order of first use), so that it can be cached and replayed on the next window with
// the same signature: a steady loop pays for planning once.

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/fusion/task.hpp"

namespace tessera::detail {

struct PlannedArg {
  int store = 0;  // canonical store number
  View view;
  bool written = false;
  bool renamed = false;  // see Arg::renamed
};

struct PlannedReduction {
  int store = 0;
  Finalize finalize = Finalize::None;
  double count = 1;
};

// One kernel: a fused group (or a materialized scalar op).
struct PlannedGroup {
  Program program;
  std::vector<PlannedArg> args;
  PlannedArg domain;  // the launch domain: geometry only, never accessed
  std::vector<PlannedReduction> reductions;
  std::string label;    // tessera::fused[...]
  std::string explain;  // one line for TESSERA_LOG=fusion
  // A task with partition constraints (tasks/task_body.hpp): the window op whose body runs, taken
  // from the window being executed (a cached plan replays another window's ops); -1: the program.
  int task_op = -1;
};

// Groups launched together (fusion/window.cpp, batch_runs): [first, end) as one batch, in
// program order (small groups) or in any order (independent groups), or one group on its own.
struct BatchRun {
  int first = 0;
  int end = 0;
  bool independent = false;
};

struct Plan {
  std::vector<PlannedGroup> groups;
  std::vector<int> kept;  // ops that stay in the window, in order (the rest are executed)
  // How the groups launch: computed at the plan's first execution and replayed with it (the
  // independence test compares every pair of a run's arguments: not a per-window cost).
  std::vector<BatchRun> runs;
};

// The canonical description of a window: equal signatures get equal plans.
struct WindowSignature {
  std::vector<std::uint64_t> words;
  std::uint64_t hash = 0;
  friend bool operator==(const WindowSignature& a, const WindowSignature& b) { return a.words == b.words; }
};

// Per op, a list of ints (canonical store numbers), all in one vector: op i's are
// values[start[i], start[i + 1]).
class PerOp {
 public:
  struct List {
    const int* first;
    const int* last;
    const int& operator[](std::size_t k) const { return first[k]; }
    const int* begin() const { return first; }
    const int* end() const { return last; }
    const int& front() const { return *first; }
    std::size_t size() const { return static_cast<std::size_t>(last - first); }
    bool empty() const { return first == last; }
  };
  void reserve(std::size_t ops, std::size_t values) {
    start_.reserve(ops + 1);
    values_.reserve(values);
  }
  void next_op() {  // before op i's values; once more after the last op's
    if (start_.empty())
      start_.push_back(0);
    else
      start_.push_back(static_cast<std::uint32_t>(values_.size()));
  }
  void add(int v) { values_.push_back(v); }
  List operator[](std::size_t i) const { return {values_.data() + start_[i], values_.data() + start_[i + 1]}; }

 private:
  std::vector<int> values_;
  std::vector<std::uint32_t> start_;
};

// The window's ops with their stores numbered in order of first use.
struct CanonicalWindow {
  std::vector<std::shared_ptr<Store>> stores;  // canonical number -> store
  PerOp arg_store;                             // op -> arg -> canonical number
  PerOp reduction_store;                       // op -> reduction -> canonical number
  std::vector<std::uint64_t> op_hash;          // per op, independent of which stores it touches
  // op_hash without what depends on when the op is planned (whether its stores have Array handles
  // yet): the same op of a loop has the same stream hash in every iteration (Window's loop period).
  std::vector<std::uint64_t> stream_hash;
  // Where iterations of the program's loop start in this window (positions > 0), found by the
  // Window from the op stream across windows when the loop is longer than half the window (the
  // planner cannot see its period in the window then); part of the signature. Empty otherwise.
  std::vector<int> loop_heads;
  WindowSignature signature;
};

// Fills each task's stream_hash the first time it sees the task.
CanonicalWindow canonicalize(std::vector<Task>& ops, bool everything);
// Adds the loop heads to a canonical window and its signature.
void set_loop_heads(CanonicalWindow& window, std::vector<int> heads);

// Plans the window. `everything`: execute all ops (a flush); otherwise (the window is full) leave
// the last group in the window so that windows start where the program's loop does.
Plan make_plan(const std::vector<Task>& ops, const CanonicalWindow& window, bool everything);

}  // namespace tessera::detail
