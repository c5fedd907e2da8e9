// Creation routines. Generated arrays (arange, linspace, random) are programs over the global
// element index, so every rank computes its own tile and the global array is the same for any
// number of ranks.

#include <cstring>

#include "tessera/array/array_ref.hpp"
#include "tessera/array/store_factory.hpp"
#include "tessera/core/error.hpp"
#include "tessera/fusion/program_builder.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"

namespace tessera::detail {
namespace {

template <class Body>
ArrayRef generate(const char* what, DType type, const Shape& shape, Body body) {
  ArrayRef out = new_array(type, balanced_tiling(shape, what, type), false);
  Task task;
  ProgramBuilder b(task);
  const int out_arg = b.arg(out.store, out.view, true, true);
  b.store(out_arg, type, body(b));
  task.key = out_arg;
  task.label = std::string("tessera::op[") + what + "]";
  runtime().stats().ops++;
  submit(std::move(task));
  return out;
}

}  // namespace

namespace {

// Creation routines that record no task still join the op stream's divergence check.
void note_creation(const char* what, const ArrayRef& out, std::uint64_t content) {
  if (!checking_divergence()) return;
  std::uint64_t h = hash_bytes(content, what, std::strlen(what));
  h = hash_mix(h, out.store->id() << 8 | static_cast<std::uint64_t>(out.dtype()));
  for (auto e : out.shape()) h = hash_mix(h, static_cast<std::uint64_t>(e));
  note_op(h, concat(what, ": writes array#", out.store->id(), " (", name(out.dtype()), ", shape ",
                    shape_string(out.shape()), ")"));
}

}  // namespace

ArrayRef empty_array(DType type, const Shape& shape, bool zero_fill) {
  const char* what = zero_fill ? "zeros" : "empty";
  ArrayRef out = new_array(type, balanced_tiling(shape, what, type), zero_fill);
  runtime().stats().ops++;
  note_creation(what, out, 0);
  return out;
}

ArrayRef full_array(DType type, const Shape& shape, const Operand& value) {
  ArrayRef out = new_array(type, balanced_tiling(shape, "full", type), false);
  apply("full", OpCode::Load, {value}, {type}, type, type, &out);
  return out;
}

ArrayRef arange_array(DType type, std::int64_t n) {
  if (n < 0) raise("arange(", n, "): the length must be non-negative");
  return generate("arange", type, {n}, [&](ProgramBuilder& b) { return b.cast(b.index(), DType::Int64, type); });
}

ArrayRef linspace_array(DType type, double lo, double hi, std::int64_t n) {
  if (n < 0) raise("linspace(", lo, ", ", hi, ", ", n, "): the number of samples must be non-negative");
  // As NumPy: y = i * step + lo in float64, the last sample exactly hi, then floor for integers.
  const double step = n > 1 ? (hi - lo) / static_cast<double>(n - 1) : 0.0;
  return generate("linspace", type, {n}, [&](ProgramBuilder& b) {
    const int i = b.index();
    const int x = b.cast(i, DType::Int64, DType::Float64);
    int y = b.binary(OpCode::Add, DType::Float64,
                     b.binary(OpCode::Mul, DType::Float64, x, b.constant(make_value(step), DType::Float64)),
                     b.constant(make_value(lo), DType::Float64));
    if (n > 1) {
      const int last = b.binary(OpCode::Eq, DType::Int64, i, b.constant(make_value<std::int64_t>(n - 1), DType::Int64));
      y = b.where(DType::Float64, last, b.constant(make_value(hi), DType::Float64), y);
    }
    if (is_float(type) || type == DType::Bool) return b.cast(y, DType::Float64, type);
    const int t = b.cast(y, DType::Float64, DType::Int64);  // truncates toward zero
    const int above = b.binary(OpCode::Gt, DType::Float64, b.cast(t, DType::Int64, DType::Float64), y);
    const int floored =
        b.where(DType::Int64, above,
                b.binary(OpCode::Sub, DType::Int64, t, b.constant(make_value<std::int64_t>(1), DType::Int64)), t);
    return b.cast(floored, DType::Int64, type);
  });
}

ArrayRef random_array(DType type, const Shape& shape, std::uint64_t seed) {
  if (!is_float(type))
    raise("random<", name(type), ">: random values in [0, 1) need a floating type (float or double)");
  return generate("random", type, shape, [&](ProgramBuilder& b) { return b.random(type, b.index(), seed); });
}

ArrayRef random_normal_array(DType type, const Shape& shape, std::uint64_t seed) {
  if (!is_float(type)) raise("random_normal<", name(type), ">: normal samples need a floating type (float or double)");
  // Box-Muller: z = sqrt(-2 log(1 - u1)) cos(2 pi u2), with u1 and u2 the uniforms of random()'s
  // sequence at counters 2i and 2i + 1. 1 - u1 lies in (0, 1] (u1 < 1 is a multiple of 2^-53,
  // so 1 - u1 is exact): the log is finite. Computed in float64, then cast.
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const DType f64 = DType::Float64, i64 = DType::Int64;
  return generate("random_normal", type, shape, [&](ProgramBuilder& b) {
    const int i = b.index();
    const int first = b.binary(OpCode::Add, i64, i, i);
    const int second = b.binary(OpCode::Add, i64, first, b.constant(make_value<std::int64_t>(1), i64));
    const int u1 = b.random(f64, first, seed), u2 = b.random(f64, second, seed);
    const int log = b.unary(OpCode::Log, f64, b.binary(OpCode::Sub, f64, b.constant(make_value(1.0), f64), u1));
    const int radius = b.unary(OpCode::Sqrt, f64, b.binary(OpCode::Mul, f64, b.constant(make_value(-2.0), f64), log));
    const int angle = b.binary(OpCode::Mul, f64, b.constant(make_value(kTwoPi), f64), u2);
    return b.cast(b.binary(OpCode::Mul, f64, radius, b.unary(OpCode::Cos, f64, angle)), f64, type);
  });
}

ArrayRef eye_array(DType type, std::int64_t n) {
  if (n < 0) raise("eye(", n, "): the number of rows must be non-negative");
  // Element k of the row-major n x n matrix is on the diagonal when k % (n + 1) == 0.
  return generate("eye", type, {n, n}, [&](ProgramBuilder& b) {
    const DType i64 = DType::Int64;
    const int column_offset = b.binary(OpCode::Mod, i64, b.index(), b.constant(make_value<std::int64_t>(n + 1), i64));
    const int diagonal = b.binary(OpCode::Eq, i64, column_offset, b.constant(make_value<std::int64_t>(0), i64));
    return b.cast(diagonal, DType::Bool, type);
  });
}

ArrayRef empty_like_array(const char* what, const ArrayRef& like, bool zero_fill) {
  check_runtime(like, what);
  ArrayRef out = new_array_like(like.dtype(), like, zero_fill);
  runtime().stats().ops++;
  note_creation(what, out, 0);
  return out;
}

ArrayRef full_like_array(const char* what, const ArrayRef& like, const Operand& value) {
  check_runtime(like, what);
  ArrayRef out = new_array_like(like.dtype(), like);
  apply(what, OpCode::Load, {value}, {like.dtype()}, like.dtype(), like.dtype(), &out);
  return out;
}

ArrayRef from_host_bytes(DType type, const Shape& shape, const char* data, std::size_t count) {
  Tiling tiling = balanced_tiling(shape, "from_host", type);
  std::int64_t volume = 1;
  for (auto e : shape) volume *= e;
  if (static_cast<std::int64_t>(count) != volume)
    raise("from_host: shape ", shape_string(shape), " has ", volume, " elements but the buffer holds ", count);
  ArrayRef out = new_array(type, tiling, false);
  const Box& owned = out.store->owned();
  const Layout global = Layout::row_major(out.store->full());
  const int esize = size_of(type);
  Kokkos::View<char*, Kokkos::HostSpace> tile(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::from_host"),
                                              static_cast<std::size_t>(owned.volume()) * esize);
  std::size_t at = 0;
  for_each_row(owned, [&](const Index3& first, std::int64_t length) {
    const std::size_t bytes = static_cast<std::size_t>(length) * esize;
    std::memcpy(tile.data() + at, data + static_cast<std::size_t>(global.offset(first)) * esize, bytes);
    at += bytes;
  });
  Kokkos::deep_copy(Kokkos::View<char*, MemSpace, Kokkos::MemoryUnmanaged>(out.store->data(), tile.extent(0)), tile);
  runtime().stats().ops++;
  // The whole buffer is hashed: ranks passing different data would each keep their own tile of
  // a different array.
  if (checking_divergence())
    note_creation("from_host", out, hash_bytes(0, data, count * static_cast<std::size_t>(esize)));
  return out;
}

}  // namespace tessera::detail
