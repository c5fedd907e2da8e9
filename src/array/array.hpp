#pragma once
// Array<T>: a handle to a distributed array (or a view of one). Copying the handle shares the
// storage, as Kokkos::View does; assign() and the compound operators write values.
//
//   auto a = ts::zeros<double>({n, m});
//   auto interior = a(ts::slice(1, -1), ts::slice(1, -1));   // a view: no copy
//   interior.assign(1.0);                                     // writes into a
//   a += 2.0 * a;                                             // NumPy semantics, in place
//   mask &= a > 0.0;                                          // also -= *= /= %= |= ^=
//   double total = ts::sum(a).item();                         // the only host synchronization
//
// T is bool, int32_t, int64_t, float or double; arrays have 1 to 3 dimensions, and reductions
// give 0-d arrays that stay on the device and can feed later operations as scalars. Compound
// operators follow NumPy's same_kind rule (int_array *= 0.5 is an error); &= |= ^= take bool and
// integer arrays only.

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/array/array_ref.hpp"
#include "tessera/core/error.hpp"

namespace tessera {

// ts::end stands for the extent of a dimension: ts::slice(2, ts::end).
struct End {};
inline constexpr End end{};

// A range [start, stop) of one axis taking every step-th element; negative bounds count from the
// end. ts::all is the whole axis.
struct Slice {
  std::int64_t start = 0;
  std::int64_t stop = 0;
  std::int64_t step = 1;
  bool stop_is_end = true;
  bool whole = true;
};
inline constexpr Slice all{};
constexpr Slice slice(std::int64_t start, std::int64_t stop, std::int64_t step = 1) {
  return Slice{start, stop, step, false, false};
}
constexpr Slice slice(std::int64_t start, End, std::int64_t step = 1) { return Slice{start, 0, step, true, false}; }

// ts::newaxis inserts an axis of extent 1, as NumPy's None: x(ts::all, ts::newaxis) is x[:, None].
struct NewAxis {};
inline constexpr NewAxis newaxis{};

// One entry of an index expression a(e0, e1, ...): a slice, an integer (negative from the end; the
// axis is dropped) or ts::newaxis.
class IndexEntry {
 public:
  constexpr IndexEntry(const Slice& s)
      : spec_{detail::IndexSpec::Kind::Range, s.start, s.stop, s.step, s.stop_is_end, s.whole} {}
  constexpr IndexEntry(NewAxis) : spec_{detail::IndexSpec::Kind::NewAxis} {}
  template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  constexpr IndexEntry(I i) : spec_{detail::IndexSpec::Kind::Integer, static_cast<std::int64_t>(i)} {}
  const detail::IndexSpec& spec() const { return spec_; }

 private:
  detail::IndexSpec spec_;
};

template <class T>
class Array;

namespace detail {

template <class X>
struct is_array : std::false_type {};
template <class T>
struct is_array<Array<T>> : std::true_type {};
template <class X>
inline constexpr bool is_array_v = is_array<X>::value;
template <class X>
inline constexpr bool is_operand_v = is_array_v<X> || (std::is_arithmetic_v<X> && !std::is_same_v<X, char>);

template <class X>
Operand to_operand(const X& x) {
  if constexpr (is_array_v<X>)
    return Operand::of(x.impl());
  else
    return Operand::of_scalar(x);
}

template <class X>
constexpr DType strong_dtype() {
  if constexpr (is_array_v<X>)
    return dtype_v<typename X::value_type>;
  else
    return default_dtype(scalar_kind<X>());
}

// The type NumPy computes `a op b` in: arrays promote, scalars adopt the array's type (NEP 50).
template <class A, class B>
constexpr DType binary_dtype() {
  if constexpr (is_array_v<A> && is_array_v<B>)
    return promote(strong_dtype<A>(), strong_dtype<B>());
  else if constexpr (is_array_v<A>)
    return promote_weak(strong_dtype<A>(), scalar_kind<B>());
  else if constexpr (is_array_v<B>)
    return promote_weak(strong_dtype<B>(), scalar_kind<A>());
  else
    return promote(strong_dtype<A>(), strong_dtype<B>());
}

// The type `a op b` computes in (and returns) when its operands promote to t: true division and
// arctan2 of integers compute in a floating type, % of booleans in int32 (NumPy: int8).
constexpr DType compute_dtype(OpCode op, DType t) {
  if (op == OpCode::Div) return divide_result(t);
  if (op == OpCode::Atan2) return float_result(t);
  if (op == OpCode::Mod) return bool_as_integer(t);
  return t;
}

template <OpCode op, class A, class B>
using binary_result_t = Array<cpp_type_t<compute_dtype(op, binary_dtype<A, B>())>>;

// & | ^ ~ take bool and integer operands only: NumPy raises TypeError for floating ones, and the
// types are static here, so it is a compile-time error.
template <class A, class B>
constexpr void require_bitwise() {
  static_assert(!is_float(binary_dtype<A, B>()),
                "tessera: & | ^ ~ (and &= |= ^=) take bool or integer operands; NumPy raises TypeError for floating "
                "ones (a float scalar makes the operation floating too): use astype<int64_t>() or a comparison");
}

// NumPy's same_kind rule for in-place operators: `int_array += 0.5` is an error.
inline void check_in_place(const char* what, DType result, DType target) {
  if (static_cast<int>(kind_of(result)) > static_cast<int>(kind_of(target)))
    raise(what, ": the result type ", name(result), " cannot be cast to the array's type ", name(target),
          " in place (same_kind casting)");
}

inline OpCode arithmetic_op(const char* what, OpCode op, DType t) {
  if (t != DType::Bool) return op;
  if (op == OpCode::Add) return OpCode::Or;  // NumPy: True + True == True
  if (op == OpCode::Mul) return OpCode::And;
  if (op == OpCode::Max || op == OpCode::Min) return op;  // np.maximum/minimum have bool loops: or/and
  if (op == OpCode::BitAnd || op == OpCode::BitOr || op == OpCode::BitXor) return op;  // logical on bools
  raise(what, ": not supported for bool arrays (NumPy raises too); use astype<int32_t>() first");
}

template <class A, class B>
ArrayRef arithmetic(const char* what, OpCode op, const A& a, const B& b, const ArrayRef* target = nullptr) {
  constexpr DType t = binary_dtype<A, B>();
  const DType compute = compute_dtype(op, t);
  OpCode code = arithmetic_op(what, op, compute);
  if constexpr (!is_array_v<B> && std::is_arithmetic_v<B>) {
    // A kernel cannot raise, so only a scalar exponent is checked (as NumPy: ValueError).
    if (op == OpCode::Pow && (compute == DType::Int32 || compute == DType::Int64) && b < B(0))
      raise(what, ": integers to negative integer powers are not allowed (exponent ", +b, " for ", name(compute),
            "), as in NumPy; use a floating type");
  }
  if (target) check_runtime(*target, what);  // before reading its dtype: it may be empty
  DType result = target ? target->dtype() : compute;
  if (target) check_in_place(what, compute, result);
  return apply(what, code, {to_operand(a), to_operand(b)}, {compute, compute}, compute, result, target);
}

}  // namespace detail

template <class T>
class Array {
  static_assert(is_element_type_v<T>, "tessera::Array<T>: T must be bool, int32_t, int64_t, float or double");

 public:
  using value_type = T;

  Array() = default;
  explicit Array(detail::ArrayRef ref) : ref_(std::move(ref)) { hold(); }
  Array(const Array& other) : ref_(other.ref_) { hold(); }
  Array(Array&& other) noexcept : ref_(std::move(other.ref_)) { other.ref_ = {}; }
  Array& operator=(const Array& other) {
    if (this != &other) {
      release();
      ref_ = other.ref_;
      hold();
    }
    return *this;
  }
  Array& operator=(Array&& other) noexcept {
    if (this != &other) {
      release();
      ref_ = std::move(other.ref_);
      other.ref_ = {};
    }
    return *this;
  }
  ~Array() { release(); }

  Shape shape() const { return ref_.valid() ? ref_.shape() : Shape{}; }
  std::int64_t size() const { return ref_.valid() ? ref_.size() : 0; }
  int ndim() const { return ref_.valid() ? ref_.ndim() : 0; }

  // Views sharing storage, as NumPy's basic indexing: slices (with steps), integers (the axis is
  // dropped) and ts::newaxis, in any combination; axes not given are taken whole.
  //   a(ts::slice(0, ts::end, 2))   a(ts::all, 3)   a(-1)   x(ts::all, ts::newaxis)   A(3, -1) (0-d)
  template <class... E>
  Array operator()(const E&... entries) const {
    static_assert(sizeof...(E) >= 1 && sizeof...(E) <= 6, "tessera: an index has 1 to 6 entries");
    return Array(detail::index(ref_, {IndexEntry(entries).spec()...}));
  }

  // Writes values (cast to T) into this array or view. The right-hand side may read overlapping
  // views of the same storage: it is evaluated as if before the write, as in NumPy.
  template <class U>
  void assign(const Array<U>& source) {
    detail::assign(ref_, detail::Operand::of(source.impl()));
  }
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>
  void assign(S value) {
    detail::assign(ref_, detail::Operand::of_scalar(value));
  }

  template <class B, class = std::enable_if_t<detail::is_operand_v<B>>>
  Array& operator+=(const B& b) {
    detail::arithmetic("add", detail::OpCode::Add, *this, b, &ref_);
    return *this;
  }
  template <class B, class = std::enable_if_t<detail::is_operand_v<B>>>
  Array& operator-=(const B& b) {
    detail::arithmetic("subtract", detail::OpCode::Sub, *this, b, &ref_);
    return *this;
  }
  template <class B, class = std::enable_if_t<detail::is_operand_v<B>>>
  Array& operator*=(const B& b) {
    detail::arithmetic("multiply", detail::OpCode::Mul, *this, b, &ref_);
    return *this;
  }
  template <class B, class = std::enable_if_t<detail::is_operand_v<B>>>
  Array& operator/=(const B& b) {
    detail::arithmetic("divide", detail::OpCode::Div, *this, b, &ref_);
    return *this;
  }
  template <class B, class = std::enable_if_t<detail::is_operand_v<B>>>
  Array& operator%=(const B& b) {
    detail::arithmetic("remainder", detail::OpCode::Mod, *this, b, &ref_);
    return *this;
  }
  template <class B, class = std::enable_if_t<detail::is_operand_v<B>>>
  Array& operator&=(const B& b) {
    detail::require_bitwise<Array, B>();
    detail::arithmetic("bitwise_and", detail::OpCode::BitAnd, *this, b, &ref_);
    return *this;
  }
  template <class B, class = std::enable_if_t<detail::is_operand_v<B>>>
  Array& operator|=(const B& b) {
    detail::require_bitwise<Array, B>();
    detail::arithmetic("bitwise_or", detail::OpCode::BitOr, *this, b, &ref_);
    return *this;
  }
  template <class B, class = std::enable_if_t<detail::is_operand_v<B>>>
  Array& operator^=(const B& b) {
    detail::require_bitwise<Array, B>();
    detail::arithmetic("bitwise_xor", detail::OpCode::BitXor, *this, b, &ref_);
    return *this;
  }

  // The value of a one-element array (0-d or of size 1); synchronizes.
  T item() const {
    if (ref_.valid() && ref_.size() != 1)
      detail::raise("item: the array of shape ", detail::shape_string(ref_.shape()), " has ", ref_.size(),
                    " elements; item() needs exactly one");
    return to_host().at(0);
  }

  // The whole array, row-major, on every rank; synchronizes.
  std::vector<T> to_host() const {
    std::vector<char> bytes = detail::gather_bytes(ref_);
    std::vector<T> out(bytes.size() / sizeof(T));
    for (std::size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        out[i] = bytes[i] != 0;  // any byte of an empty<bool>() array reads as a bool, never UB
      } else {
        T v;
        std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
        out[i] = v;
      }
    }
    return out;
  }

  template <class U>
  Array<U> astype() const {
    detail::check_runtime(ref_, "astype");
    return Array<U>(detail::apply("astype", detail::OpCode::Load, {detail::Operand::of(ref_)},
                                  std::vector<DType>{dtype_v<T>}, dtype_v<T>, dtype_v<U>));
  }

  const detail::ArrayRef& impl() const { return ref_; }

 private:
  // User handles are counted apart from the runtime's references: a store with none left and no
  // later reader in the op window is a temporary that fusion never allocates.
  void hold() {
    if (ref_.store) ref_.store->add_user_ref();
  }
  void release() {
    if (ref_.store) ref_.store->drop_user_ref();
  }
  detail::ArrayRef ref_;
};

}  // namespace tessera
