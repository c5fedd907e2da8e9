// Reductions: a map-reduce task whose partial results are combined across ranks and stay on the
// device (no host synchronization until item()). Over the whole array the result is a 0-d array;
// along an axis it is an array of the other axes, tiled like them: the grid axis that cut the
// reduced one holds copies (partition/tiling.hpp), so it feeds later ops over those axes in place.

#include "tessera/array/array_ref.hpp"
#include "tessera/array/store_factory.hpp"
#include "tessera/core/error.hpp"
#include "tessera/fusion/program_builder.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"

namespace tessera::detail {
namespace {

const char* numpy_name(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Min: return "minimum";
    case ReduceKind::Max: return "maximum";
    case ReduceKind::ArgMin: return "argmin";
    default: return "argmax";
  }
}

// NumPy's errors for reductions without an identity over nothing.
void check_not_empty(const char* what, ReduceKind kind, std::int64_t reduced, const Shape& shape) {
  if (reduced != 0 || kind == ReduceKind::Sum || kind == ReduceKind::Prod) return;
  if (is_arg(kind))
    raise(what, ": attempt to get ", numpy_name(kind), " of an empty sequence (shape ", shape_string(shape), ")");
  raise(what, ": zero-size array to reduction operation ", numpy_name(kind), " which has no identity (shape ",
        shape_string(shape), ")");
}

// The tiling of a reduction's result: the input's, without the reduced dimension (or with it of
// extent 1 and not cut). The grid axis that cut it then cuts nothing: the result's tiles repeat
// along it, one copy per rank of the reduction's slice.
Tiling reduced_tiling(const ArrayRef& a, int axis, bool keepdims) {
  const std::optional<Tiling> in = induced(a.store->tiling(), a.view);
  if (!in) raise("internal: a reduction over a view that induces no tiling");
  Tiling t = *in;
  if (keepdims) {
    t.cuts[axis] = nullptr;
    t.extent[axis] = 1;
    t.offset[axis] = 0;
    t.step[axis] = 1;
    return t;
  }
  return dropped(t, axis);
}

// The (n, length) view of a 1-D view of n elements: element (i, j) is element i, for every j.
View along_bins(const View& v, std::int64_t length) {
  View out = v;
  out.ndim = 2;
  out.extent = Index3{v.extent[0], length, 1};
  for (int k = 0; k < kMaxDims; ++k) out.map[k][1] = 0;
  return out;
}

// A full inner product of two operands of its type may run as the epilogue of the task that wrote
// one of them (sparse CG's vdot(p, A @ p) inside the SpMV: fusion/window.hpp).
bool folds_into_writer(const ReduceSpec& spec, const ArrayRef& a, const ArrayRef& b, const ArrayRef& out) {
  if (spec.axis || spec.kind != ReduceKind::Sum || spec.map != ReduceMap::Identity || spec.finalize != Finalize::None ||
      spec.result != spec.compute || a.dtype() != spec.compute || b.dtype() != spec.compute)
    return false;
  const Arg x{a.store, a.view}, y{b.store, b.view};
  return fold_inner_product(y, x, out.store) || fold_inner_product(x, y, out.store);
}
}  // namespace

ArrayRef reduce(const ReduceSpec& spec, const ArrayRef& a, const ArrayRef* second) {
  const char* what = spec.what;
  check_runtime(a, what);
  if (second) {
    check_runtime(*second, what);
    if (second->shape() != a.shape())
      raise(what, ": shape mismatch between operands of shapes ", shape_string(a.shape()), " and ",
            shape_string(second->shape()));
  }
  const int nd = a.ndim();
  int axis = -1;
  if (spec.axis) {
    axis = *spec.axis < 0 ? *spec.axis + nd : *spec.axis;
    if (axis < 0 || axis >= nd)
      raise(what, ": axis ", *spec.axis, " is out of bounds for array of dimension ", nd, " (shape ",
            shape_string(a.shape()), ")");
  }
  check_not_empty(what, spec.kind, axis >= 0 ? a.view.extent[axis] : a.size(), a.shape());
  // Along the only axis of a 1-D array (without keepdims) is the whole array: a 0-d result.
  const bool along = axis >= 0 && (nd > 1 || spec.keepdims);
  ArrayRef out = along ? new_array(spec.result, reduced_tiling(a, axis, spec.keepdims), false)
                       : new_array(spec.result, Tiling{}, false);
  if (second && folds_into_writer(spec, a, *second, out)) {
    runtime().stats().ops++;
    return out;
  }
  Task task;
  ProgramBuilder b(task);
  const int arg = b.arg(a.store, a.view, false);
  int r = b.cast(b.load(arg, a.dtype()), a.dtype(), spec.compute);
  if (second) {
    const int arg2 = b.arg(second->store, second->view, false);
    r = b.binary(OpCode::Mul, spec.compute, r, b.cast(b.load(arg2, second->dtype()), second->dtype(), spec.compute));
  }
  if (spec.map == ReduceMap::Square) r = b.binary(OpCode::Mul, spec.compute, r, r);
  DType reduced_type = spec.compute;
  if (spec.map == ReduceMap::Nonzero) {
    r = b.cast(b.cast(r, spec.compute, DType::Bool), DType::Bool, DType::Int64);
    reduced_type = DType::Int64;
  }
  const int padded_axis = 3 - nd + axis;
  const int index = !is_arg(spec.kind) ? -1 : along ? b.coord(padded_axis) : b.index();
  b.reduce(spec.kind, is_float(reduced_type), reduced_type, r, index);
  if (along) task.program.reduce_dim = padded_axis;
  task.key = arg;
  const double count = static_cast<double>(along ? a.view.extent[axis] : a.size());
  task.reductions.push_back(ReductionOut{out.store, spec.finalize, count});
  if (is_arg(spec.kind)) out.store->set_known_bounds({0, static_cast<std::int64_t>(count) - 1});  // indices
  task.label = std::string("tessera::reduce[") + what + "]";
  runtime().stats().ops++;
  submit(std::move(task));
  return out;
}

ArrayRef bincount_reduce(const ArrayRef& x, const ArrayRef* weights, std::int64_t length) {
  // One reduction over (n, length), nothing of that size stored: x[i] (and weights[i]) broadcast
  // along the bins, compared with the bin's coordinate, summed along the points.
  const std::int64_t n = x.size();
  const ArrayRef column{x.store, along_bins(x.view, length)};
  const DType result = weights ? DType::Float64 : DType::Int64;
  ArrayRef out = new_array(result, reduced_tiling(column, 0, false), false);
  Task task;
  ProgramBuilder b(task);
  const int arg = b.arg(x.store, column.view, false);
  const int value = b.cast(b.load(arg, x.dtype()), x.dtype(), DType::Int64);
  const int hit = b.binary(OpCode::Eq, DType::Int64, value, b.coord(2));
  int r = b.cast(hit, DType::Bool, DType::Int64);
  if (weights) {
    const View w = along_bins(weights->view, length);
    const int weight = b.cast(b.load(b.arg(weights->store, w, false), weights->dtype()), weights->dtype(), result);
    r = b.where(result, hit, weight, b.constant(make_value(0.0), result));
  }
  b.reduce(ReduceKind::Sum, weights != nullptr, result, r);
  task.program.reduce_dim = 1;
  task.key = arg;
  task.reductions.push_back(ReductionOut{out.store, Finalize::None, static_cast<double>(n)});
  task.label = "tessera::reduce[bincount]";
  runtime().stats().ops++;
  submit(std::move(task));
  return out;
}

}  // namespace tessera::detail
