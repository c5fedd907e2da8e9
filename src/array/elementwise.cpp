// Elementwise operations, assignment and copies: each becomes one task (load, cast, op, cast,
// store) handed to the executor.

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tessera/array/array_ref.hpp"
#include "tessera/array/store_factory.hpp"
#include "tessera/core/error.hpp"
#include "tessera/fusion/program_builder.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"

namespace tessera::detail {
namespace {

// NumPy 2 (NEP 50) raises OverflowError for a Python int that the array's integer type cannot hold.
void check_scalar_fits(const char* what, const Operand& o, DType to) {
  if (o.is_array || o.scalar_type != DType::Int64 || to != DType::Int32) return;
  const std::int64_t v = o.scalar.i64;
  if (v < INT32_MIN || v > INT32_MAX)
    raise(what, ": the C++ integer ", v,
          " is out of bounds for int32 (NumPy raises OverflowError); use an int64 array");
}

Value scalar_as(const Operand& o, DType to) {
  switch (o.scalar_type) {
    case DType::Bool: return convert_scalar(o.scalar.b, to);
    case DType::Int64: return convert_scalar(o.scalar.i64, to);
    default: return convert_scalar(o.scalar.f64, to);
  }
}

// The operands of one op, as the caller passed them (a braced list or a vector): no copy.
struct Operands {
  const Operand* first;
  std::size_t count;
  const Operand* begin() const { return first; }
  const Operand* end() const { return first + count; }
  std::size_t size() const { return count; }
  const Operand& operator[](std::size_t i) const { return first[i]; }
};

// NumPy semantics for `target op= f(views of target)`: the right-hand side reads the values from
// before the write. A view of the target's store other than the target's own is copied first if
// it can meet the written elements (may_meet: their bounding boxes intersect and no step keeps
// them apart); a disjoint one (a reflective boundary `h(all, 0).assign(h(all, 1))`, the odd
// columns read into the even ones) is read in place.
std::vector<Operand> without_overlap(Operands operands, const ArrayRef& target, std::vector<UserRef>& held) {
  std::vector<Operand> out(operands.begin(), operands.end());
  for (Operand& o : out) {
    if (o.is_array && o.array.store == target.store && o.array.view != target.view &&
        may_meet(o.array.view, target.view)) {
      ArrayRef copy = apply("copy", OpCode::Load, {o}, {o.array.dtype()}, o.array.dtype(), o.array.dtype());
      held.emplace_back(copy.store);
      o = Operand::of(copy);
    }
  }
  return out;
}

// Whether the view has exactly this shape (no Shape built).
bool has_shape(const View& v, const std::int64_t* extent, int ndim) {
  if (v.ndim != ndim) return false;
  for (int d = 0; d < ndim; ++d)
    if (v.extent[d] != extent[d]) return false;
  return true;
}

// A shape of at most kMaxDims dimensions, held in place.
struct Extents {
  int ndim = 0;
  Index3 extent{0, 0, 0};
  Shape shape() const { return Shape(extent.begin(), extent.begin() + ndim); }
};

Extents extents_of(const Shape& s) {
  if (s.size() > static_cast<std::size_t>(kMaxDims)) raise("internal: a result of ", s.size(), " dimensions");
  Extents e;
  e.ndim = static_cast<int>(s.size());
  for (int d = 0; d < e.ndim; ++d) e.extent[d] = s[d];
  return e;
}

// The shape an elementwise operation computes: its operands' shapes broadcast together (NumPy's
// rules), which a target must already have. The common case (every array operand of the
// target's, or of the first operand's, shape) builds no list of shapes.
Shape broadcast_result(const char* what, Operands operands, const ArrayRef* target);

Extents result_shape(const char* what, Operands operands, const ArrayRef* target) {
  const View* first = target ? &target->view : nullptr;
  for (const Operand& o : operands)
    if (!first && o.is_array) first = &o.array.view;
  if (first) {
    bool same = true;
    for (const Operand& o : operands)
      if (o.is_array && !has_shape(o.array.view, first->extent.data(), first->ndim)) same = false;
    if (same) {
      Extents e;
      e.ndim = first->ndim;
      for (int d = 0; d < e.ndim; ++d) e.extent[d] = first->extent[d];
      return e;
    }
  }
  return extents_of(broadcast_result(what, operands, target));
}

Shape broadcast_result(const char* what, Operands operands, const ArrayRef* target) {
  std::vector<Shape> shapes;
  for (const Operand& o : operands)
    if (o.is_array) shapes.push_back(o.array.shape());
  if (!target) {
    if (shapes.empty()) raise("internal: ", what, " has no array operand");
    return broadcast_shapes(what, shapes);
  }
  const Shape out = target->shape();
  for (const Shape& s : shapes) {
    bool fits = s.size() <= out.size();
    for (std::size_t d = 0; d < s.size() && fits; ++d) {
      const std::int64_t o = out[out.size() - s.size() + d];
      fits = s[d] == o || s[d] == 1;
    }
    if (!fits)
      raise(what, ": cannot write a value of shape ", shape_string(s), " into an array of shape ", shape_string(out),
            " (the shapes do not broadcast to it)");
  }
  return out;
}

// The store a new result lives in: aligned with the first operand that has the result's shape
// unstretched (key-partition inheritance), else dealt over the grid like a new array.
ArrayRef new_result(const char* what, DType type, const Extents& shape, Operands operands) {
  if (shape.ndim == 0) return new_array(type, Tiling{}, false);
  for (const Operand& o : operands)
    if (o.is_array && o.array.store->ndim() > 0 && has_shape(o.array.view, shape.extent.data(), shape.ndim))
      return new_array_like(type, o.array);
  return new_array(type, balanced_tiling(shape.shape(), what, type), false);
}

}  // namespace

namespace {

ArrayRef apply_to(const char* what, OpCode op, Operands operands_in, const DType* cast_to, DType op_type, DType result,
                  const ArrayRef* target) {
  RuntimeState& rt = runtime();
  for (const Operand& o : operands_in)
    if (o.is_array) check_runtime(o.array, what);
  if (target) check_runtime(*target, what);
  const Extents shape = result_shape(what, operands_in, target);
  for (std::size_t i = 0; i < operands_in.size(); ++i) check_scalar_fits(what, operands_in[i], cast_to[i]);
  std::vector<UserRef> held;
  std::vector<Operand> copied;  // only where an operand is another view of the target's store
  bool overlap = false;
  for (const Operand& o : operands_in)
    overlap = overlap || (target && o.is_array && o.array.store == target->store && o.array.view != target->view);
  if (overlap) copied = without_overlap(operands_in, *target, held);
  const Operands operands = overlap ? Operands{copied.data(), copied.size()} : operands_in;
  ArrayRef out = target ? *target : new_result(what, result, shape, operands);

  Task task = rt.window().take_task();  // an executed op's buffers, emptied
  // Room for the loads, casts, the op, a cast and the store; the operands and the result.
  task.program.code.reserve(2 * operands.size() + 3);
  task.args.reserve(operands.size() + 1);
  ProgramBuilder b(task);
  int regs_small[4];
  std::vector<int> regs_large;
  int* regs = regs_small;
  if (operands.size() > 4) {
    regs_large.resize(operands.size());
    regs = regs_large.data();
  }
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const Operand& o = operands[i];
    if (o.is_array) {
      // Each operand is read through its view broadcast to the result's shape (stride 0 along the
      // stretched axes: never copied); 0-d stores are replicated and read as they are, and so are
      // views of the result's shape (nothing to broadcast).
      const bool as_is = o.array.store->ndim() == 0 || has_shape(o.array.view, shape.extent.data(), shape.ndim);
      const View view = as_is ? o.array.view : broadcast_view(o.array, shape.extent.data(), shape.ndim);
      int arg = b.arg(o.array.store, view, false);
      regs[i] = b.cast(b.load(arg, o.array.dtype()), o.array.dtype(), cast_to[i]);
    } else {
      regs[i] = b.constant(scalar_as(o, cast_to[i]), cast_to[i]);
    }
  }
  int r = regs[0];
  DType produced = cast_to[0];
  if (op == OpCode::Where) {
    r = b.where(op_type, regs[0], regs[1], regs[2]);
    produced = op_type;
  } else if (op != OpCode::Load) {
    r = operands.size() == 1 ? b.unary(op, op_type, regs[0]) : b.binary(op, op_type, regs[0], regs[1]);
    produced = yields_bool(op) ? DType::Bool : op_type;
  }
  r = b.cast(r, produced, out.dtype());
  const int out_arg = b.arg(out.store, out.view, true, target == nullptr);
  b.store(out_arg, out.dtype(), r);
  task.key = out_arg;
  static constexpr char kPrefix[] = "tessera::op[";
  const std::size_t what_length = std::strlen(what);
  task.label.reserve(sizeof kPrefix + what_length);  // the prefix, `what` and ']'
  task.label.append(kPrefix, sizeof kPrefix - 1).append(what, what_length).push_back(']');
  rt.stats().ops++;
  submit(std::move(task));
  return out;
}

}  // namespace

ArrayRef apply(const char* what, OpCode op, const std::vector<Operand>& operands, const std::vector<DType>& cast_to,
               DType op_type, DType result, const ArrayRef* target) {
  if (cast_to.size() < operands.size()) raise("internal: ", what, " has fewer cast types than operands");
  return apply_to(what, op, Operands{operands.data(), operands.size()}, cast_to.data(), op_type, result, target);
}

ArrayRef apply(const char* what, OpCode op, std::initializer_list<Operand> operands,
               std::initializer_list<DType> cast_to, DType op_type, DType result, const ArrayRef* target) {
  if (cast_to.size() < operands.size()) raise("internal: ", what, " has fewer cast types than operands");
  return apply_to(what, op, Operands{operands.begin(), operands.size()}, cast_to.begin(), op_type, result, target);
}

void assign(const ArrayRef& target, const Operand& source) {
  // Before reading dtypes: either side may be an empty (default-constructed) array.
  check_runtime(target, "assign");
  if (source.is_array) check_runtime(source.array, "assign");
  if (source.is_array && source.array.store == target.store && source.array.view == target.view) return;
  const DType from = source.is_array ? source.array.dtype() : target.dtype();
  // NumPy's `a[...] = b` first drops b's leading axes of length 1 beyond a's dimensions (a (1, 3)
  // value fits a (3,) array); compound assignment does not.
  Operand value = source;
  if (source.is_array && source.array.ndim() > target.ndim()) {
    const Shape s = source.array.shape();
    const std::size_t extra = s.size() - static_cast<std::size_t>(target.ndim());
    if (std::all_of(s.begin(), s.begin() + extra, [](std::int64_t n) { return n == 1; })) {
      IndexSpec first;
      first.kind = IndexSpec::Kind::Integer;
      value = Operand::of(index(source.array, std::vector<IndexSpec>(extra, first)));
    }
  }
  apply("assign", OpCode::Load, {value}, {from}, from, target.dtype(), &target);
}

}  // namespace tessera::detail
