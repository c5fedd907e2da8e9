// Reductions to 0-d arrays: a map-reduce task whose partial result is combined across ranks by an
// allreduce and stays on the device (no host synchronization until item()).

#include "tessera/array/array_ref.hpp"
#include "tessera/array/store_factory.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/runtime_state.hpp"
#include "tessera/fusion/program_builder.hpp"
#include "tessera/fusion/window.hpp"

namespace tessera::detail {

ArrayRef reduce(const char* what, ReduceKind kind, const ArrayRef& a, const ArrayRef* second, DType compute,
                DType result, Finalize finalize, bool square) {
  check_runtime(a, what);
  if (second) {
    check_runtime(*second, what);
    if (second->shape() != a.shape())
      raise(what, ": shape mismatch between operands of shapes ", shape_string(a.shape()), " and ",
            shape_string(second->shape()));
  }
  if (a.size() == 0 && (kind == ReduceKind::Min || kind == ReduceKind::Max))
    raise(what, ": zero-size array of shape ", shape_string(a.shape()), " has no ", what, " (no identity)");
  ArrayRef out = new_array(result, Tiling{}, false);
  Task task;
  ProgramBuilder b(task);
  const int arg = b.arg(a.store, a.view, false);
  int r = b.cast(b.load(arg, a.dtype()), a.dtype(), compute);
  if (second) {
    const int arg2 = b.arg(second->store, second->view, false);
    r = b.binary(OpCode::Mul, compute, r, b.cast(b.load(arg2, second->dtype()), second->dtype(), compute));
  }
  if (square) r = b.binary(OpCode::Mul, compute, r, r);
  b.reduce(kind, is_float(compute), compute, r);
  task.key = arg;
  task.reductions.push_back(ReductionOut{out.store, finalize, static_cast<double>(a.size())});
  task.label = std::string("tessera::reduce[") + what + "]";
  runtime().stats().ops++;
  submit(std::move(task));
  return out;
}

}  // namespace tessera::detail
