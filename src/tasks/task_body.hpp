#pragma once
// TaskBody: what a task beyond elementwise runs instead of a program. A Task (fusion/task.hpp)
// carries its arguments as usual (stores, views, which it writes: the planner's dependences and
// the plan cache see nothing new) and, instead of a program, a body that states per argument a
// privilege and a partition constraint (tasks/constraint.hpp). The planner makes it a group of its
// own; the executor classifies and moves its arguments like any group's, then calls run() with
// where each argument's part for this rank's tile now lives.
//
//   class Scale : public TaskBody {          // y = 2 x, on the tile, with one Kokkos kernel
//     void run(const TileContext& c) const override {
//       const double* x = ...c.args[1].data...; double* y = ...c.args[0].data...;
//       Kokkos::parallel_for("scale", c.tile.volume(), KOKKOS_LAMBDA(int i) { y[i] = 2 * x[i]; });
//     }
//   };
//
// Bodies run on every rank (those with empty tiles too), in stream order with the other kernels;
// a body must not communicate (the executor does, before and after it).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/tasks/constraint.hpp"

namespace tessera::detail {

// Reduce: the argument's tile starts at 0 on every rank, each rank writes (or adds) its
// contribution to the elements its tile maps to, and the executor sums the contributions of the
// ranks that share them (the grid slice along the launch dimensions the view is stretched over:
// a matvec's partial rows, summed across the grid row).
enum class Privilege : std::uint8_t { Read, Write, ReadWrite, Reduce };
const char* name(Privilege p);

struct ArgSpec {
  Privilege privilege = Privilege::Read;
  std::shared_ptr<const Constraint> constraint;
};

// Where argument k's part for this rank's tile is. Element x (view coordinates relative to the
// tile's first element, x[d] in [-ghosts, extent[d] + ghosts)) is at
// data + (x[0] * stride[0] + x[1] * stride[1] + x[2] * stride[2]) * element size.
struct TileArg {
  char* data = nullptr;  // MemSpace; nullptr where the tile is empty
  Index3 stride{0, 0, 0};
  Index3 extent{0, 0, 0};
  std::int64_t ghosts = 0;  // bloat(w): w, 0 otherwise (and on ranks whose tile is empty)
  DType dtype = DType::Float64;
  // image(): data and extent are the owned tile of the array; the gathered entries follow in
  // `image`, in the plan's order (ImagePlan::receives).
  const char* image = nullptr;
  std::int64_t image_count = 0;
};

struct TileContext {
  // Parts of a split run (TaskBody::splits): Owned while the image's entries travel (read only
  // what the rank owns), Ghosts once they have arrived; Whole otherwise.
  enum class Phase : std::uint8_t { Whole, Owned, Ghosts };
  Box tile;                   // this rank's part of the launch domain (domain view coordinates)
  Index3 shape{1, 1, 1};      // the launch domain's extents
  std::vector<TileArg> args;  // parallel to the task's arguments
  Phase phase = Phase::Whole;
};

// A task's argument as validate() sees it.
struct ArgView {
  const Store* store = nullptr;
  View view;
};

class TaskBody {
 public:
  explicit TaskBody(std::vector<ArgSpec> specs) : specs_(std::move(specs)) {}
  virtual ~TaskBody() = default;
  TaskBody(const TaskBody&) = delete;
  TaskBody& operator=(const TaskBody&) = delete;

  const std::vector<ArgSpec>& specs() const { return specs_; }
  const Constraint& constraint(int arg) const { return *specs_[arg].constraint; }
  Privilege privilege(int arg) const { return specs_[arg].privilege; }
  bool reads(int arg) const { return privilege(arg) == Privilege::Read || privilege(arg) == Privilege::ReadWrite; }
  bool writes(int arg) const { return privilege(arg) != Privilege::Read; }

  // Runs this rank's part: once with Phase::Whole, or, if splits() and an image exchange is in
  // flight, with Phase::Owned and then Phase::Ghosts (PETSc's MatMult_MPIAIJ: the diagonal block
  // while x's ghosts travel, the off-diagonal block after).
  virtual void run(const TileContext& context) const = 0;
  virtual bool splits() const { return false; }
  // An epilogue: a body that does what this one does and also sums x[i] * w[i] over the launch
  // domain into a 0-d Reduce argument, where w is written argument `written` and x a Read align()
  // argument; both are appended to the arguments (x, then the sum). nullptr where the body cannot
  // (the default). Sparse CG's vdot(p, A @ p) runs inside the SpMV this way (fusion/window.hpp,
  // fold_inner_product).
  virtual std::shared_ptr<const TaskBody> with_inner_product(int /*written*/) const { return nullptr; }

  // Checks every argument's constraint (tessera::Error naming the task and the values).
  void validate(const std::string& task, const std::vector<ArgView>& args, int key) const;
  // Privileges and constraints, for the plan cache's and the divergence check's hashes.
  std::uint64_t signature() const;
  // "store#3 align, store#5 broadcast(along dim 0), store#7 reduce align": for the fusion log.
  std::string describe(const std::vector<ArgView>& args) const;

 private:
  std::vector<ArgSpec> specs_;
};

}  // namespace tessera::detail
