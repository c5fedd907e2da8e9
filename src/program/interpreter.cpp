#include "tessera/program/interpreter.hpp"

#include <Kokkos_NumericTraits.hpp>
#include <algorithm>
#include <limits>

#include "tessera/core/error.hpp"
#include "tessera/program/element_ops.hpp"
#include "tessera/program/reduce_ops.hpp"

namespace tessera::detail {
namespace {

// Host: a block of 64 elements per instruction amortizes decoding. Device: one element per thread.
constexpr int kLanes = kDeviceIsHost ? 64 : 1;

template <class F>
KOKKOS_FORCEINLINE_FUNCTION void by_type(DType t, F&& f) {
  switch (t) {
    case DType::Bool: f(bool{}); break;
    case DType::Int32: f(std::int32_t{}); break;
    case DType::Int64: f(std::int64_t{}); break;
    case DType::Float32: f(float{}); break;
    default: f(double{}); break;
  }
}

// The integer and bool types only: bitwise instructions are never emitted for floating types.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void by_integral_type(DType t, F&& f) {
  switch (t) {
    case DType::Bool: f(bool{}); break;
    case DType::Int32: f(std::int32_t{}); break;
    default: f(std::int64_t{}); break;
  }
}

// C++ conversion, except that anything converts to bool as "is nonzero" (NumPy's astype(bool)).
template <class T, class S>
KOKKOS_FORCEINLINE_FUNCTION T convert(S v) {
  if constexpr (std::is_same_v<T, bool>)
    return v != S(0);
  else
    return static_cast<T>(v);
}

// Where a block's reduction instructions put their values. Full reductions (and a row reduced
// along its last dimension) fold every lane into one accumulator per slot; reductions along an
// outer dimension keep one accumulator per lane (the lanes are different outputs).
struct OneAccumulator {
  Accumulators& acc;
  KOKKOS_INLINE_FUNCTION Value& value(int k, int) const { return acc.slot[k].v; }
  KOKKOS_INLINE_FUNCTION Value& index(int k, int) const { return acc.slot[k].index; }
};
// A row's sums in kRowLanes lanes (row_lanes): column j0 + l folds into lane (j0 + l) %
// kRowLanes, or lane 0 from `tail` (the first column after the last full group) on.
struct RowLanes {
  Accumulators lane[kRowLanes];
  std::int64_t j0 = 0, tail = 0;
  KOKKOS_INLINE_FUNCTION int lane_of(int l) const {
    const std::int64_t j = j0 + l;
    return j >= tail ? 0 : static_cast<int>(j % kRowLanes);
  }
  KOKKOS_INLINE_FUNCTION Value& value(int k, int l) { return lane[lane_of(l)].slot[k].v; }
  KOKKOS_INLINE_FUNCTION Value& index(int k, int l) { return lane[lane_of(l)].slot[k].index; }
};
template <int Lanes>
struct LaneAccumulators {
  Value v[kMaxReductions][Lanes];
  Value i[kMaxReductions][Lanes];
  KOKKOS_INLINE_FUNCTION Value& value(int k, int l) { return v[k][l]; }
  KOKKOS_INLINE_FUNCTION Value& index(int k, int l) { return i[k][l]; }
};

template <int Lanes>
struct Interpreter {
  using value_type = Accumulators;

  Kokkos::View<const Instr*, MemSpace> code;
  Kokkos::View<const Value*, MemSpace> constants;
  Accessor args[kMaxArgs];
  Domain domain;
  std::int64_t blocks_per_row;
  int ninstr;
  int nreduce;
  ReduceSlot slots[kMaxReductions];
  // Reductions along reduce_dim (>= 0): output e of slot k is along[2 k count + e] (its index,
  // for arg kinds, along[(2 k + 1) count + e]); e is row-major over the other dimensions.
  int reduce_dim = -1;
  Value* along = nullptr;
  std::int64_t count = 0;
  NestedReduction nested;  // Program::nested
  int epilogue = -1;       // Program::epilogue: code[epilogue, ninstr) runs once per row (reduce_dim 2)
  bool row_lanes = false;  // reduce_dim 2 with row_lanes(program) lanes (RowLanes)
  int sweep = -1;          // Program::sweep: code[sweep, ninstr) runs at every element after the epilogue
  int row_slots = 0;

  KOKKOS_INLINE_FUNCTION void init(Accumulators& acc) const { init_accumulators(acc, slots, nreduce); }
  KOKKOS_INLINE_FUNCTION void join(Accumulators& dst, const Accumulators& src) const {
    join_accumulators(dst, src, slots, nreduce);
  }
#ifdef TESSERA_KOKKOS_VOLATILE_JOIN
  KOKKOS_INLINE_FUNCTION void join(volatile Accumulators& dst, const volatile Accumulators& src) const {
    join_accumulators(dst, src, slots, nreduce);
  }
#endif

  // Elementwise programs and full reductions: one item per block of a row.
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item) const {
    Accumulators unused;
    run(item, unused);
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item, Accumulators& acc) const { run(item, acc); }
  KOKKOS_INLINE_FUNCTION void run(std::int64_t item, Accumulators& acc) const {
    const std::int64_t row = item / blocks_per_row;
    const std::int64_t j0 = (item % blocks_per_row) * Lanes;
    OneAccumulator sink{acc};
    block(row / domain.n[1], row % domain.n[1], j0, sink);
  }

  // Reductions along a dimension: one item per output (a row reduced along its last dimension)
  // or per block of outputs along the last dimension (reduced along an outer one); the item loops
  // over the reduced dimension in order.
  struct Along {};
  KOKKOS_INLINE_FUNCTION void operator()(Along, std::int64_t item) const {
    const std::int64_t n0 = domain.n[0], n1 = domain.n[1], n2 = domain.n[2];
    if (reduce_dim == 2) {
      Accumulators acc;
      init(acc);
      OneAccumulator sink{acc};
      const int body_end = epilogue >= 0 ? epilogue : ninstr;
      if (row_lanes) {
        RowLanes lanes;
        for (int l = 0; l < kRowLanes; ++l) init(lanes.lane[l]);
        lanes.tail = n2 - n2 % kRowLanes;
        for (std::int64_t j0 = 0; j0 < n2; j0 += Lanes) {
          lanes.j0 = j0;
          code_range(item / n1, item % n1, j0, static_cast<int>(n2 - j0 < Lanes ? n2 - j0 : Lanes), lanes, 0, body_end,
                     nullptr);
        }
        for (int l = 0; l < kRowLanes; ++l) join(acc, lanes.lane[l]);
      } else {
        for (std::int64_t j0 = 0; j0 < n2; j0 += Lanes) {
          const int len = static_cast<int>(n2 - j0 < Lanes ? n2 - j0 : Lanes);
          code_range(item / n1, item % n1, j0, len, sink, 0, body_end, nullptr);
        }
      }
      if (epilogue >= 0) {  // the reductions' results are the epilogue's, not outputs
        code_range(item / n1, item % n1, 0, 1, sink, epilogue, ninstr, nullptr);
        return;
      }
      for (int k = 0; k < nreduce; ++k) {
        along[2 * k * count + item] = acc.slot[k].v;
        along[(2 * k + 1) * count + item] = acc.slot[k].index;
      }
      return;
    }
    const std::int64_t outer = item / blocks_per_row, j0 = (item % blocks_per_row) * Lanes;
    const int len = static_cast<int>(n2 - j0 < Lanes ? n2 - j0 : Lanes);
    LaneAccumulators<Lanes> acc;
    const int outputs = nreduce - row_slots;
    for (int k = 0; k < outputs; ++k)
      for (int l = 0; l < len; ++l) reduce_identity(acc.v[k][l], acc.i[k][l], slots[k]);
    if (sweep >= 0) {
      // Each row folded whole into the row slots, then its epilogue and the sweep over this item's
      // lanes (reduce_dim 1); the epilogue reads the row slots' values at lane 0.
      for (std::int64_t i1 = 0; i1 < n1; ++i1) {
        Accumulators row;
        init(row);
        OneAccumulator sink{row};
        for (std::int64_t j = 0; j < n2; j += Lanes)
          code_range(outer, i1, j, static_cast<int>(n2 - j < Lanes ? n2 - j : Lanes), sink, 0, epilogue, nullptr);
        for (int k = outputs; k < nreduce; ++k) acc.v[k][0] = row.slot[k].v, acc.i[k][0] = row.slot[k].index;
        code_range(outer, i1, j0, len, acc, epilogue, ninstr, nullptr);
      }
    } else if (reduce_dim == 1) {
      for (std::int64_t i1 = 0; i1 < n1; ++i1) block(outer, i1, j0, acc);
    } else {
      for (std::int64_t i0 = 0; i0 < n0; ++i0) block(i0, outer, j0, acc);
    }
    for (int k = 0; k < outputs; ++k)
      for (int l = 0; l < len; ++l) {
        along[2 * k * count + outer * n2 + j0 + l] = acc.v[k][l];
        along[(2 * k + 1) * count + outer * n2 + j0 + l] = acc.i[k][l];
      }
  }

  template <class T>
  KOKKOS_INLINE_FUNCTION T* element_ptr(int arg, std::int64_t i0, std::int64_t i1, std::int64_t j) const {
    const Accessor& a = args[arg];
    return reinterpret_cast<T*>(a.ptr) + (a.origin + i0 * a.stride[0] + i1 * a.stride[1] + j * a.stride[2]);
  }

  // A nested reduction (Program::nested): one item per output, the element `e` of the dimension
  // that neither reduction reduces. For each position along the outer reduction's dimension, the
  // inner code folds the inner dimension in order (a block of lanes at a time when it is the
  // last dimension, else element by element), then the outer code runs once on its result.
  struct Nested {};
  KOKKOS_INLINE_FUNCTION void operator()(Nested, std::int64_t e) const {
    const int inner_dim = nested.dim, kept = 3 - inner_dim - reduce_dim;
    const ReduceSlot inner_slot{nested.kind, nested.is_float};
    Accumulators acc;
    init(acc);
    OneAccumulator sink{acc};
    std::int64_t x[3] = {0, 0, 0};
    x[kept] = e;
    for (std::int64_t j = 0; j < domain.n[reduce_dim]; ++j) {
      x[reduce_dim] = j;
      Accumulators::Slot inner;
      reduce_identity(inner.v, inner.index, inner_slot);
      const std::int64_t n = domain.n[inner_dim];
      if (inner_dim == 2) {
        for (std::int64_t l = 0; l < n; l += Lanes)
          code_range(x[0], x[1], l, static_cast<int>(n - l < Lanes ? n - l : Lanes), sink, 0, nested.end, &inner);
      } else {
        for (std::int64_t l = 0; l < n; ++l) {
          x[inner_dim] = l;
          code_range(x[0], x[1], x[2], 1, sink, 0, nested.end, &inner);
        }
      }
      x[inner_dim] = 0;
      code_range(x[0], x[1], x[2], 1, sink, nested.end, ninstr, &inner);
    }
    for (int k = 0; k < nreduce; ++k) {
      along[2 * k * count + e] = acc.slot[k].v;
      along[(2 * k + 1) * count + e] = acc.slot[k].index;
    }
  }

  // Runs the program on the lanes j0 .. j0 + Lanes - 1 (those inside the row) of row (i0, i1).
  template <class Sink>
  KOKKOS_INLINE_FUNCTION void block(std::int64_t i0, std::int64_t i1, std::int64_t j0, Sink& sink) const {
    const int len = static_cast<int>(domain.n[2] - j0 < Lanes ? domain.n[2] - j0 : Lanes);
    code_range(i0, i1, j0, len, sink, 0, ninstr, nullptr);
  }

  // Instructions [pc0, pc1) on `len` lanes from column j0 of row (i0, i1); `inner`: a nested
  // reduction's accumulator.
  template <class Sink>
  KOKKOS_INLINE_FUNCTION void code_range(std::int64_t i0, std::int64_t i1, std::int64_t j0, int len, Sink& sink,
                                         int pc0, int pc1, Accumulators::Slot* inner) const {
    Value reg[kMaxRegisters][Lanes];

    for (int pc = pc0; pc < pc1; ++pc) {
      const Instr in = code(pc);
      Value* d = reg[in.dst];
      // A field that is no register (a Load's argument, a Const's index into the constants) may
      // lie past the register file, where not even a pointer may be formed.
      const auto operand = [&](int r) -> const Value* { return r < kMaxRegisters ? reg[r] : nullptr; };
      const Value* x = operand(in.a);
      const Value* y = operand(in.b);
      const Value* z = operand(in.c);
      switch (in.op) {
        case OpCode::Load:
          by_type(in.type, [&](auto tag) {
            using T = decltype(tag);
            const std::int64_t s2 = args[in.a].stride[2];
            const T* p = element_ptr<T>(in.a, i0, i1, j0);
            for (int l = 0; l < len; ++l) as<T>(d[l]) = p[l * s2];
          });
          break;
        case OpCode::Store:
          by_type(in.type, [&](auto tag) {
            using T = decltype(tag);
            const std::int64_t s2 = args[in.a].stride[2];
            T* p = element_ptr<T>(in.a, i0, i1, j0);
            for (int l = 0; l < len; ++l) p[l * s2] = as<T>(y[l]);
          });
          break;
        case OpCode::Const: {
          const Value c = constants(in.a);
          for (int l = 0; l < len; ++l) d[l] = c;
          break;
        }
        case OpCode::Index: {
          std::int64_t base = (domain.global_origin[0] + i0) * domain.global_stride[0] +
                              (domain.global_origin[1] + i1) * domain.global_stride[1] +
                              (domain.global_origin[2] + j0) * domain.global_stride[2];
          for (int l = 0; l < len; ++l) d[l].i64 = base + l * domain.global_stride[2];
          break;
        }
        case OpCode::Coord: {
          const std::int64_t base = domain.global_origin[in.a] + (in.a == 0 ? i0 : in.a == 1 ? i1 : j0);
          const std::int64_t step = in.a == 2 ? 1 : 0;
          for (int l = 0; l < len; ++l) d[l].i64 = base + l * step;
          break;
        }
        case OpCode::Random: {
          const std::uint64_t seed = static_cast<std::uint64_t>(constants(in.b).i64);
          if (in.type == DType::Float32)
            for (int l = 0; l < len; ++l) d[l].f32 = element::uniform<float>(seed, x[l].i64);
          else
            for (int l = 0; l < len; ++l) d[l].f64 = element::uniform<double>(seed, x[l].i64);
          break;
        }
        case OpCode::Cast:
          by_type(in.from, [&](auto from_tag) {
            using S = decltype(from_tag);
            by_type(in.type, [&](auto to_tag) {
              using T = decltype(to_tag);
              for (int l = 0; l < len; ++l) as<T>(d[l]) = convert<T>(as<S>(x[l]));
            });
          });
          break;
#define TESSERA_UNARY(OP, EXPR)             \
  case OpCode::OP:                          \
    by_type(in.type, [&](auto tag) {        \
      using T = decltype(tag);              \
      for (int l = 0; l < len; ++l) {       \
        const T v = as<T>(x[l]);            \
        as<T>(d[l]) = static_cast<T>(EXPR); \
      }                                     \
    });                                     \
    break;
          TESSERA_UNARY(Neg, element::neg(v))
          TESSERA_UNARY(Abs, element::abs(v))
          TESSERA_UNARY(Not, !v)
          TESSERA_UNARY(Sign, element::sign(v))
          TESSERA_UNARY(Square, element::square(v))
        case OpCode::BitNot:
          by_integral_type(in.type, [&](auto tag) {
            using T = decltype(tag);
            for (int l = 0; l < len; ++l) as<T>(d[l]) = element::bit_not(as<T>(x[l]));
          });
          break;
#define TESSERA_PREDICATE(OP, FN)                             \
  case OpCode::OP:                                            \
    by_type(in.type, [&](auto tag) {                          \
      using T = decltype(tag);                                \
      for (int l = 0; l < len; ++l) d[l].b = FN(as<T>(x[l])); \
    });                                                       \
    break;
          TESSERA_PREDICATE(IsNan, element::is_nan)
          TESSERA_PREDICATE(IsFinite, element::is_finite)
#define TESSERA_FLOAT_UNARY(OP, FN)                                               \
  case OpCode::OP:                                                                \
    if (in.type == DType::Float32)                                                \
      for (int l = 0; l < len; ++l) d[l].f32 = TESSERA_KOKKOS_MATH::FN(x[l].f32); \
    else                                                                          \
      for (int l = 0; l < len; ++l) d[l].f64 = TESSERA_KOKKOS_MATH::FN(x[l].f64); \
    break;
          TESSERA_FLOAT_UNARY(Sqrt, sqrt)
          TESSERA_FLOAT_UNARY(Exp, exp)
          TESSERA_FLOAT_UNARY(Log, log)
          TESSERA_FLOAT_UNARY(Sin, sin)
          TESSERA_FLOAT_UNARY(Cos, cos)
          TESSERA_FLOAT_UNARY(Tanh, tanh)
          TESSERA_FLOAT_UNARY(Erf, erf)
          TESSERA_FLOAT_UNARY(Tan, tan)
          TESSERA_FLOAT_UNARY(Floor, floor)
          TESSERA_FLOAT_UNARY(Ceil, ceil)
#define TESSERA_BINARY(OP, EXPR)            \
  case OpCode::OP:                          \
    by_type(in.type, [&](auto tag) {        \
      using T = decltype(tag);              \
      for (int l = 0; l < len; ++l) {       \
        const T u = as<T>(x[l]);            \
        const T v = as<T>(y[l]);            \
        as<T>(d[l]) = static_cast<T>(EXPR); \
      }                                     \
    });                                     \
    break;
          TESSERA_BINARY(Add, element::wrap_add(u, v))
          TESSERA_BINARY(Sub, element::wrap_sub(u, v))
          TESSERA_BINARY(Mul, element::wrap_mul(u, v))
          TESSERA_BINARY(Div, element::divide(u, v))
          TESSERA_BINARY(Pow, element::power(u, v))
          TESSERA_BINARY(Max, element::maximum(u, v))
          TESSERA_BINARY(Min, element::minimum(u, v))
          TESSERA_BINARY(And, u && v)
          TESSERA_BINARY(Or, u || v)
          TESSERA_BINARY(Mod, element::remainder(u, v))
        case OpCode::Atan2:
          if (in.type == DType::Float32)
            for (int l = 0; l < len; ++l) d[l].f32 = TESSERA_KOKKOS_MATH::atan2(x[l].f32, y[l].f32);
          else
            for (int l = 0; l < len; ++l) d[l].f64 = TESSERA_KOKKOS_MATH::atan2(x[l].f64, y[l].f64);
          break;
#define TESSERA_BITWISE(OP, OPERATOR)                                                               \
  case OpCode::OP:                                                                                  \
    by_integral_type(in.type, [&](auto tag) {                                                       \
      using T = decltype(tag);                                                                      \
      for (int l = 0; l < len; ++l) as<T>(d[l]) = static_cast<T>(as<T>(x[l]) OPERATOR as<T>(y[l])); \
    });                                                                                             \
    break;
          TESSERA_BITWISE(BitAnd, &)
          TESSERA_BITWISE(BitOr, |)
          TESSERA_BITWISE(BitXor, ^)
#define TESSERA_COMPARE(OP, EXPR)     \
  case OpCode::OP:                    \
    by_type(in.type, [&](auto tag) {  \
      using T = decltype(tag);        \
      for (int l = 0; l < len; ++l) { \
        const T u = as<T>(x[l]);      \
        const T v = as<T>(y[l]);      \
        d[l].b = (EXPR);              \
      }                               \
    });                               \
    break;
          TESSERA_COMPARE(Eq, u == v)
          TESSERA_COMPARE(Ne, u != v)
          TESSERA_COMPARE(Lt, u < v)
          TESSERA_COMPARE(Le, u <= v)
          TESSERA_COMPARE(Gt, u > v)
          TESSERA_COMPARE(Ge, u >= v)
        case OpCode::Where:
          for (int l = 0; l < len; ++l) d[l] = x[l].b ? y[l] : z[l];
          break;
        case OpCode::Reduce:
        case OpCode::ReduceArg: {
          const ReduceSlot s = slots[in.dst];
          const int k = in.dst;
          const bool with_index = in.op == OpCode::ReduceArg;
          by_type(in.type, [&](auto tag) {
            using T = decltype(tag);
            for (int l = 0; l < len; ++l) {
              const std::int64_t index = with_index ? y[l].i64 : 0;
              if (s.is_float)
                fold(s, sink.value(k, l).f64, sink.index(k, l).i64, static_cast<double>(as<T>(x[l])), index);
              else
                fold(s, sink.value(k, l).i64, sink.index(k, l).i64, static_cast<std::int64_t>(as<T>(x[l])), index);
            }
          });
          break;
        }
        case OpCode::NestedReduce: {
          const ReduceSlot s{nested.kind, nested.is_float};
          by_type(in.type, [&](auto tag) {
            using T = decltype(tag);
            for (int l = 0; l < len; ++l) {
              const std::int64_t index = is_arg(s.kind) ? y[l].i64 : 0;
              if (s.is_float)
                fold(s, inner->v.f64, inner->index.i64, static_cast<double>(as<T>(x[l])), index);
              else
                fold(s, inner->v.i64, inner->index.i64, static_cast<std::int64_t>(as<T>(x[l])), index);
            }
          });
          break;
        }
        case OpCode::ReduceResult: {
          const Value v = finalize_value(slots[in.a], sink.value(in.a, 0), sink.index(in.a, 0),
                                         static_cast<Finalize>(in.b), constants(in.c).f64, in.type);
          for (int l = 0; l < len; ++l) d[l] = v;
          break;
        }
        case OpCode::NestedResult: {
          const Value v = finalize_value({nested.kind, nested.is_float}, inner->v, inner->index, nested.finalize,
                                         nested.count, in.type);
          for (int l = 0; l < len; ++l) d[l] = v;
          break;
        }
      }
    }
  }
};

}  // namespace

namespace {
struct CombinePartials {
  PartialsView into, from;
  int nreduce;
  ReduceSlot slots[kMaxReductions];
  KOKKOS_INLINE_FUNCTION void operator()(int) const { join_accumulators(into(), from(), slots, nreduce); }
};
}  // namespace

void combine_partials(const Program& program, const PartialsView& into, const PartialsView& from) {
  CombinePartials f{into, from, 0, {}};
  f.nreduce = reduce_slots(program, f.slots);
  Kokkos::parallel_for("tessera::reduce[combine]", Kokkos::RangePolicy<ExecSpace>(0, 1), f);
}

void interpret(const std::string& label, const Program& program, const ProgramImage& image,
               const std::vector<Accessor>& args, const Domain& domain, const ReductionTarget& target) {
  if (args.size() > static_cast<std::size_t>(kMaxArgs))
    raise("internal: ", label, " has ", args.size(), " arguments, more than ", kMaxArgs);
  Interpreter<kLanes> f;
  f.code = image.code;
  f.constants = image.constants;
  std::copy(args.begin(), args.end(), f.args);
  f.domain = domain;
  f.blocks_per_row = (domain.n[2] + kLanes - 1) / kLanes;
  f.ninstr = static_cast<int>(program.code.size());
  f.nreduce = reduce_slots(program, f.slots);
  f.reduce_dim = f.nreduce > 0 ? program.reduce_dim : -1;
  f.row_lanes = f.reduce_dim == 2 && row_lanes(program) > 1;
  // Light weight: the functor (arguments included, < 4 KiB) goes in the kernel parameters. Heavier
  // launches use constant memory, for which Kokkos makes the host wait for the previous kernel.
  f.nested = program.nested;
  f.epilogue = program.epilogue;
  f.sweep = program.sweep;
  f.row_slots = program.row_slots;
  if (f.epilogue >= 0 && f.reduce_dim != (f.sweep >= 0 ? 1 : 2))
    raise("internal: ", label, " has an epilogue but does not reduce along the last dimension");
  if (f.sweep >= 0 && (f.row_slots <= 0 || f.row_slots >= f.nreduce || domain.n[0] != 1))
    raise("internal: ", label, " sweeps ", domain.n[0], " planes with ", f.row_slots, " of ", f.nreduce,
          " slots along rows");
  if (f.nested.dim >= 0) {
    if (target.count != domain.n[3 - f.nested.dim - program.reduce_dim])
      raise("internal: ", label, " nests reductions into ", target.count, " outputs over a tile of ",
            domain.n[3 - f.nested.dim - program.reduce_dim]);
    using Nested = typename Interpreter<kLanes>::Nested;
    f.along = target.along;
    f.count = target.count;
    Kokkos::parallel_for(label,
                         Kokkos::Experimental::require(
                             Kokkos::RangePolicy<ExecSpace, Nested, Kokkos::IndexType<std::int64_t>>(0, target.count),
                             Kokkos::Experimental::WorkItemProperty::HintLightWeight),
                         f);
    return;
  }
  if (f.reduce_dim >= 0) {
    using Along = typename Interpreter<kLanes>::Along;
    f.along = target.along;
    f.count = target.count;
    const std::int64_t items =
        f.reduce_dim == 2 ? domain.n[0] * domain.n[1] : domain.n[1 - f.reduce_dim] * f.blocks_per_row;
    Kokkos::parallel_for(
        label,
        Kokkos::Experimental::require(Kokkos::RangePolicy<ExecSpace, Along, Kokkos::IndexType<std::int64_t>>(0, items),
                                      Kokkos::Experimental::WorkItemProperty::HintLightWeight),
        f);
    return;
  }
  const std::int64_t items = domain.n[0] * domain.n[1] * f.blocks_per_row;
  const auto policy =
      Kokkos::Experimental::require(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, items),
                                    Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  if (f.nreduce == 0)
    Kokkos::parallel_for(label, policy, f);
  else
    Kokkos::parallel_reduce(label, policy, f, target.partials);
}

bool interpreter_spreads(const Program& program) {
  return program.reduce_kinds.empty() || program.reduce_dim < 0 || program.reduce_dim == 2 || program.nested.dim >= 0;
}

int row_lanes(const Program& program) {
  if (program.reduce_kinds.empty()) return 1;
  for (ReduceKind kind : program.reduce_kinds)
    if (kind != ReduceKind::Sum) return 1;
  return kRowLanes;
}

namespace {
// KernelShape::tile_of for the arguments in `eligible`: each is the first eligible argument of its
// store, strides and plane shifted by a few rows and columns (origin difference rows * stride[1] +
// columns: unique where a row is longer than twice the largest column shift and a plane longer
// than twice the largest such difference, so no shift of another plane looks like one).
void tile_views(const std::vector<Accessor>& args, std::uint64_t eligible, KernelShape& shape) {
  for (std::size_t a = 0; a < args.size(); ++a) {
    const Accessor& x = args[a];
    const std::int64_t reach = kMaxTileRowShift * x.stride[1] + kMaxColumnShift;
    // (A tile's offsets in its plane are 32-bit integers in the kernel.)
    if (!(eligible >> a & 1) || x.stride[1] <= 2 * kMaxColumnShift || x.stride[0] <= 2 * reach ||
        x.stride[0] > std::numeric_limits<std::int32_t>::max() / 2)
      continue;
    for (std::size_t b = 0; b < a; ++b) {
      const Accessor& y = args[b];
      if (!(eligible >> b & 1) || shape.tile_of[b] != 0 || y.ptr != x.ptr || y.stride[0] != x.stride[0] ||
          y.stride[1] != x.stride[1])
        continue;
      const std::int64_t shift = x.origin - y.origin, pitch = x.stride[1];
      // The nearest whole number of rows; the rest is the column shift.
      const std::int64_t rows = (shift >= 0 ? shift + pitch / 2 : shift - pitch / 2) / pitch;
      const std::int64_t columns = shift - rows * pitch;
      if (rows < -kMaxTileRowShift || rows > kMaxTileRowShift || columns < -kMaxColumnShift ||
          columns > kMaxColumnShift)
        continue;
      shape.tile_of[a] = static_cast<std::uint8_t>(b + 1);
      shape.tile_rows[a] = static_cast<std::int8_t>(rows);
      shape.tile_columns[a] = static_cast<std::int8_t>(columns);
      break;
    }
  }
}
}  // namespace

KernelShape kernel_shape(const Program& program, const std::vector<Accessor>& args, const Domain& domain) {
  KernelShape shape;
  shape.flat = domain.n[0] * domain.n[1] == 1;
  // Outputs along dimension 0 (the third of a nested reduction's dimensions), more than one.
  const bool nested_rows = program.nested.dim >= 0 && program.nested.dim + program.reduce_dim == 3 && domain.n[0] > 1;
  for (std::size_t a = 0; a < args.size(); ++a) {
    const Accessor& x = args[a];
    const bool scalar = x.origin == 0 && x.stride[0] == 0 && x.stride[1] == 0 && x.stride[2] == 0;
    if (scalar)
      shape.scalar |= std::uint64_t(1) << a;
    else if (x.stride[2] == 1)
      shape.unit |= std::uint64_t(1) << a;
    if (nested_rows && !scalar && x.stride[0] == 0) shape.invariant |= std::uint64_t(1) << a;
    if (shape.unit >> a & 1)
      for (std::size_t b = 0; b < a; ++b) {
        const Accessor& y = args[b];
        const std::int64_t shift = x.origin - y.origin;
        if ((shape.unit >> b & 1) && shape.column_of[b] == 0 && y.ptr == x.ptr && y.stride[0] == x.stride[0] &&
            y.stride[1] == x.stride[1] && shift >= -kMaxColumnShift && shift <= kMaxColumnShift) {
          shape.column_of[a] = static_cast<std::uint8_t>(b + 1);
          shape.column_shift[a] = static_cast<std::int8_t>(shift);
          break;
        }
      }
    if (shape.flat || scalar) continue;
    for (std::size_t b = 0; b < a; ++b)
      if (shape.same_rows[b] == 0 && !(shape.scalar >> b & 1) && args[b].stride[0] == x.stride[0] &&
          args[b].stride[1] == x.stride[1]) {
        shape.same_rows[a] = static_cast<std::uint8_t>(b + 1);
        break;
      }
  }
  const bool sweep =
      program.sweep >= 0 || (!program.reduce_kinds.empty() && program.reduce_dim == 1 && program.nested.dim < 0 &&
                             domain.n[0] == 1 && domain.n[2] >= 1 && domain.n[2] <= kMaxSweepColumns);
  if (sweep) shape.sweep_columns = domain.n[2];
  if (sweep || (!program.reduce_kinds.empty() && program.reduce_dim == 2 && program.nested.dim < 0))
    for (std::size_t a = 0; a < args.size(); ++a)
      if (!(shape.scalar >> a & 1) && args[a].stride[0] == 0 && args[a].stride[1] == 0)
        shape.row_invariant |= std::uint64_t(1) << a;
  if (program.nested.dim >= 0) {
    const std::int64_t extent = domain.n[program.nested.dim];
    if (extent >= 1 && extent <= kMaxFixedNestedExtent) shape.nested_extent = extent;
  }
  if (shape.flat) return shape;
  // Nothing the program stores may be carried, nor any view of a store it writes: a carried load
  // is read one row early, before that row's stores. (Bit masks, not containers: this runs at
  // every launch.)
  std::uint64_t stored = 0;
  for (const Instr& in : program.code)
    if (in.op == OpCode::Store) stored |= std::uint64_t(1) << in.a;
  std::uint64_t carriable = 0;
  for (std::size_t a = 0; a < args.size(); ++a) {
    if ((shape.scalar >> a & 1) || args[a].stride[1] == 0) continue;
    bool written = false;
    for (std::size_t s = 0; s < args.size() && !written; ++s) written = (stored >> s & 1) && args[s].ptr == args[a].ptr;
    if (!written) carriable |= std::uint64_t(1) << a;
  }
  std::uint64_t loaded = 0;
  for (const Instr& in : program.code)
    if (in.op == OpCode::Load && !(shape.scalar >> in.a & 1)) loaded |= std::uint64_t(1) << in.a;
  // Pairs of views `along` apart (a row: stride[1]; a plane: stride[0]) into shape.row_carry;
  // returns how many of the program's loaded arguments are paired.
  const auto pair = [&](int along) {
    std::fill(std::begin(shape.row_carry), std::end(shape.row_carry), std::uint8_t(0));
    int paired = 0;
    for (std::size_t a = 0; a < args.size(); ++a) {
      const Accessor& x = args[a];
      if (!(carriable >> a & 1) || x.stride[along] == 0) continue;
      for (std::size_t b = 0; b < args.size(); ++b) {
        const Accessor& y = args[b];
        if (b != a && (carriable >> b & 1) && y.ptr == x.ptr && y.origin == x.origin + x.stride[along] &&
            y.stride[0] == x.stride[0] && y.stride[1] == x.stride[1] && y.stride[2] == x.stride[2]) {
          shape.row_carry[a] = static_cast<std::uint8_t>(b + 1);
          paired += loaded >> a & 1;
          break;
        }
      }
    }
    return paired;
  };
  // Whether pairs a row apart are worth carrying depends on what the kernel would carry (values
  // computed from them, or only loads): the JIT decides (jit/carry_plan.cpp, worth_carrying). The
  // plane-marching kernel, where it applies, was faster than rows for the 27-point stencil
  // (0.77-0.80 against 0.84-0.85 ms/iter at 512^3, docs/JIT.md "Planes marched"); it needs most
  // loads paired a plane apart.
  int loads = 0;
  for (std::uint64_t rest = loaded; rest != 0; rest &= rest - 1) ++loads;
  // A tile's rows idle where a plane has fewer (jit/codegen.cpp, generate_march).
  const bool may_march = program.reduce_kinds.empty() && loads >= kMinMarchLoads && domain.n[0] >= kMinMarchPlanes &&
                         domain.n[1] >= kMarchRows;
  if (may_march && 3 * pair(0) >= 2 * loads) {
    shape.march_planes = true;
    tile_views(args, carriable & shape.unit, shape);
    return shape;
  }
  pair(1);
  return shape;
}

}  // namespace tessera::detail
