#pragma once
// Partition constraints: what part of an argument a task needs on each rank, in Legate's
// vocabulary. A task beyond elementwise (a product, an SpMV, a kernel of the user's own) states one
// per argument instead of a program; the executor satisfies them with the machinery every fused
// group uses (aligned reads in place, halo exchanges, redistributions), then runs the task's body
// on the rank's tile (tasks/task_body.hpp).
//
//   align()         the argument's view has the launch domain's shape: each rank reads (or writes)
//                   the part over its own tile, moved there if it is tiled otherwise
//   broadcast(d)    the view is stretched along launch dimensions d: each rank reads the projection
//                   of its tile, so the data is replicated along the grid axes that cut d
//                   (x of a matvec along A's rows; SUMMA's panels along grid rows and columns)
//   bloat(w)        align, and w more cells on every side of the tile: a halo of width w, read as
//                   ghost cells (a stencil in a kernel of the user's own)
//   image(plan)     the entries of a 1-D array that this rank's column indices reference, gathered
//                   into a buffer of their own once per launch (an SpMV's x; tasks/image.hpp)
//
// Each constraint explains itself: validate() raises tessera::Error naming the task, the
// constraint and the values, and to_string() is what the fusion log prints.

#include <cstdint>
#include <memory>
#include <string>

#include "tessera/data/store.hpp"

namespace tessera::detail {

struct ImagePlan;

class Constraint {
 public:
  enum class Kind : std::uint8_t { Align, Broadcast, Bloat, Image };
  virtual ~Constraint() = default;
  virtual Kind kind() const = 0;
  // Raises tessera::Error if argument `index` of `task` (`view` of `store`) cannot satisfy the
  // constraint over a launch domain of `domain`'s shape. Metadata only: the same on every rank.
  virtual void validate(const std::string& task, int index, const Store& store, const View& view,
                        const View& domain) const = 0;
  virtual std::string to_string() const = 0;
  // The kind and parameters, for the plan cache's and the divergence check's hashes.
  virtual std::uint64_t signature() const { return static_cast<std::uint64_t>(kind()); }
  // What the executor does beyond aligning the view (0 / nullptr: nothing).
  virtual std::int64_t bloat() const { return 0; }
  virtual const ImagePlan* image() const { return nullptr; }
};

std::shared_ptr<const Constraint> align();
// `dims`: a bit per launch dimension along which the view is stretched.
std::shared_ptr<const Constraint> broadcast(unsigned dims);
std::shared_ptr<const Constraint> bloat(std::int64_t width);
std::shared_ptr<const Constraint> image(std::shared_ptr<const ImagePlan> plan);

}  // namespace tessera::detail
