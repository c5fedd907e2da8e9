#pragma once
// Task: what the executor runs — a program, the deduplicated stores it touches (each through one
// view) and the launch domain. An eager op is a task of one op; a fused group is a task of many.
// The executor does not know which. A task beyond elementwise (a product, an SpMV, a kernel of the
// user's own) carries a body with partition constraints instead of a program (tasks/task_body.hpp):
// the planner gives it a group of its own, the executor runs it like any group.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tessera/data/store.hpp"
#include "tessera/program/interpreter.hpp"
#include "tessera/program/program.hpp"
#include "tessera/tasks/task_body.hpp"

namespace tessera::detail {

struct Arg {
  Arg() = default;
  // Members initialized from the values: value-initializing an Arg first zeroes its 128-byte view
  // (a `rep stos` on x86, measurable per op on the host path).
  Arg(std::shared_ptr<Store> s, const View& v, bool w = false, bool c = false, bool r = false)
      : store(std::move(s)), view(v), written(w), created(c), renamed(r) {}
  std::shared_ptr<Store> store;
  View view;  // the elements of the store the program sees (partition/view.hpp)
  bool written = false;
  bool created = false;  // the op that wrote it also created the store (fusion: may be a temporary)
  // Buffer renaming (written only): the kernel writes a fresh buffer that becomes the store's
  // storage afterwards, so that its reads of the store through shifted views still see the old
  // values; the part of the store the kernel does not write (the frame) is copied over.
  bool renamed = false;
};

// Accumulator slot k of the program becomes the 0-d store `out` after the allreduce.
struct ReductionOut {
  std::shared_ptr<Store> out;
  Finalize finalize = Finalize::None;
  double count = 1;  // Mean: number of elements reduced
};

struct Task {
  Program program;
  std::vector<Arg> args;
  int key = 0;  // the argument whose view is the launch domain
  std::vector<ReductionOut> reductions;
  std::string label;
  std::shared_ptr<const TaskBody> body;  // instead of `program` (empty then)
  // The op's hash in the op stream (CanonicalWindow::stream_hash), taken when a window first
  // canonicalizes it (0: not yet). A task does not change once planned (Window::fold_inner_product
  // leaves those alone), and an op the planner keeps for the next window is canonicalized again
  // there: about three times on average in a shallow-water step.
  std::uint64_t stream_hash = 0;
};

// What the executor runs. The domain is a view used for its geometry only (never read or
// written), so a fused group whose key operand is an elided temporary still has a domain.
struct Launch {
  const Program* program = nullptr;
  std::vector<Arg> args;
  Arg domain;
  std::vector<ReductionOut> reductions;
  const std::string* label = nullptr;
  const TaskBody* body = nullptr;  // runs on the tile instead of the program (tasks/task_body.hpp)
};

// What an execution moved, for logs.
struct ExecReport {
  int halo_stores = 0;
  std::int64_t halo_bytes = 0;
  int redistributions = 0;
  bool batched = false;          // ran in a kernel with other launches
  std::int64_t image_bytes = 0;  // received by image() constraints
};

ExecReport execute(const Launch& launch);
// Launches as batches: runs of those that need no reduction, and in order no halo or
// redistribution either, go as one kernel each (as many as their parameters need); the others on
// their own.
// InOrder: small launches (boundary strips, coarse multigrid levels), each seeing what the ones
// before it wrote (renamed buffers adopted inside). `next`, the launch that follows them (if
// known): the frames it renames are copied at the end of the last batch where that saves a copy
// launch.
// Independent: launches of any size that touch nothing another writes and rename no buffer
// (fusion/window.cpp, batch_runs), run in any order, each over blocks of its own; what they read
// from other ranks (halos, redistributed operands) is fetched for all of them before the kernel.
std::vector<ExecReport> execute_batch(const std::vector<Launch>& launches, const Launch* next = nullptr,
                                      BatchOrder order = BatchOrder::InOrder);
inline ExecReport execute(const Task& task) {
  return execute(Launch{&task.program, task.args, task.args[task.key], task.reductions, &task.label, task.body.get()});
}

}  // namespace tessera::detail
