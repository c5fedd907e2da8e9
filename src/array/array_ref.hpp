#pragma once
// The untyped array layer under Array<T>: a store and a view of it, and the operations that build
// tasks from them. Array<T> adds static types; everything here works on DType values, so each
// operation is compiled once rather than once per element type.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/data/store.hpp"
#include "tessera/fusion/task.hpp"
#include "tessera/program/program.hpp"

namespace tessera {

using Shape = std::vector<std::int64_t>;

namespace detail {

struct ArrayRef {
  std::shared_ptr<Store> store;
  View view;  // which elements of the store (partition/view.hpp)

  bool valid() const { return store != nullptr; }
  DType dtype() const { return store->dtype(); }
  int ndim() const { return view.ndim; }
  Shape shape() const;
  std::int64_t size() const;
};

// An operand of an elementwise operation: an array or a C++ scalar (kept in its own type until
// the operation decides the type it computes in).
struct Operand {
  ArrayRef array;
  bool is_array = false;
  Value scalar{};
  DType scalar_type = DType::Float64;

  // An empty (default-constructed) array is accepted here and rejected by the operation that uses it.
  static Operand of(const ArrayRef& a) { return Operand{a, true, {}, a.valid() ? a.dtype() : DType::Float64}; }
  template <class S>
  static Operand of_scalar(S x) {
    Operand o;
    if constexpr (std::is_same_v<S, bool>)
      o.scalar = make_value<bool>(x), o.scalar_type = DType::Bool;
    else if constexpr (std::is_integral_v<S>)
      o.scalar = make_value<std::int64_t>(x), o.scalar_type = DType::Int64;
    else
      o.scalar = make_value<double>(static_cast<double>(x)), o.scalar_type = DType::Float64;
    return o;
  }
};

std::string shape_string(const Shape& s);

// Creation.
ArrayRef empty_array(DType type, const Shape& shape, bool zero_fill);
ArrayRef full_array(DType type, const Shape& shape, const Operand& value);
ArrayRef arange_array(DType type, std::int64_t n);
ArrayRef linspace_array(DType type, double lo, double hi, std::int64_t n);
ArrayRef random_array(DType type, const Shape& shape, std::uint64_t seed);
ArrayRef random_normal_array(DType type, const Shape& shape, std::uint64_t seed);
ArrayRef eye_array(DType type, std::int64_t n);
// Arrays of like's shape and dtype, aligned with like's view.
ArrayRef empty_like_array(const char* what, const ArrayRef& like, bool zero_fill);
ArrayRef full_like_array(const char* what, const ArrayRef& like, const Operand& value);
ArrayRef from_host_bytes(DType type, const Shape& shape, const char* data, std::size_t count);

// Elementwise: each operand is cast to cast_to[i], `op` runs on type op_type (for comparisons the
// operands' type; the result is bool), and the result is written to `target` (cast to its type)
// or to a new array of type `result` aligned with the first array operand.
ArrayRef apply(const char* what, OpCode op, const std::vector<Operand>& operands, const std::vector<DType>& cast_to,
               DType op_type, DType result, const ArrayRef* target = nullptr);
// The same for braced lists, the usual call: no vectors are built for an op.
ArrayRef apply(const char* what, OpCode op, std::initializer_list<Operand> operands,
               std::initializer_list<DType> cast_to, DType op_type, DType result, const ArrayRef* target = nullptr);

// Views and copies. One entry of an index expression: a range (start, stop, step), an integer
// (drops the axis) or a new axis of extent 1.
struct IndexSpec {
  enum class Kind : std::uint8_t { Range, Integer, NewAxis };
  Kind kind = Kind::Range;
  std::int64_t start = 0, stop = 0, step = 1;
  bool stop_is_end = false, whole = false;
};
ArrayRef index(const ArrayRef& a, const std::vector<IndexSpec>& entries);
void assign(const ArrayRef& target, const Operand& source);

// NumPy's broadcasting: the shape operands of these shapes combine to (shapes aligned at the
// right, axes of length 1 or missing stretch); tessera::Error naming the shapes otherwise.
Shape broadcast_shapes(const char* what, const std::vector<Shape>& shapes);
// The view of `a` seen as an array of `shape` (a broadcast result shape of a's shape).
View broadcast_view(const ArrayRef& a, const Shape& shape);
View broadcast_view(const ArrayRef& a, const std::int64_t* shape, int ndim);  // the same, building no Shape

// Reductions. The reduced value is the element cast to `compute` (times `second`'s for dot),
// mapped (squared for norm, 0/1 for count_nonzero); over the whole array (a 0-d result) or along
// one axis (negative counts from the end; keepdims keeps it with extent 1).
enum class ReduceMap : std::uint8_t { Identity, Square, Nonzero };
struct ReduceSpec {
  const char* what;
  ReduceKind kind;
  DType compute, result;
  Finalize finalize = Finalize::None;
  ReduceMap map = ReduceMap::Identity;
  std::optional<int> axis;
  bool keepdims = false;
};
ArrayRef reduce(const ReduceSpec& spec, const ArrayRef& a, const ArrayRef* second = nullptr);
// bincount's counts (int64) or weighted sums (float64) of a 1-D x of values in [0, length): one
// reduction along the points of x broadcast against the bins (array/bincount.hpp).
ArrayRef bincount_reduce(const ArrayRef& x, const ArrayRef* weights, std::int64_t length);

// The same elements as a box view: `a` itself when its view is a box (or a 0-d store), else a
// copy of the view into an array of its own, kept from being a temporary (a user reference) for
// this object's lifetime. Gathers and checkpoints read boxes.
class BoxView {
 public:
  explicit BoxView(const ArrayRef& a);
  ~BoxView();
  BoxView(const BoxView&) = delete;
  BoxView& operator=(const BoxView&) = delete;
  const ArrayRef& ref() const { return ref_; }

 private:
  ArrayRef ref_;
  bool copied_ = false;
};

// Host interop.
std::vector<char> gather_bytes(const ArrayRef& a);  // row-major, every rank
void check_runtime(const ArrayRef& a, const char* what);

}  // namespace detail
}  // namespace tessera
