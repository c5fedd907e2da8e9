#include "tessera/fusion/reduction_finish.hpp"

#include "tessera/core/error.hpp"
#include "tessera/core/profiling.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/program/reduce_ops.hpp"

namespace tessera::detail {
namespace {

bool allreducible(ReduceKind kind, bool is_float) {
  return !is_arg(kind) && !(is_float && (kind == ReduceKind::Min || kind == ReduceKind::Max));
}

void combine_across(Communicator& comm, const Program& program, Value* partials, std::int64_t count) {
  RuntimeState& rt = runtime();
  for (int k = 0; k < output_slots(program); ++k) {
    const ReduceSlot s{program.reduce_kinds[k], program.reduce_float[k]};
    Value* slot = partials + 2 * static_cast<std::int64_t>(k) * count;
    ScopedRegion region(std::string("tessera::allreduce[") + name(s.kind) + "]");
    rt.stats().allreduces++;
    if (allreducible(s.kind, s.is_float)) {
      comm.allreduce(slot, static_cast<int>(count), s.is_float ? DType::Float64 : DType::Int64, s.kind);
      continue;
    }
    const int ranks = comm.size();
    const std::size_t bytes = static_cast<std::size_t>(2 * count) * sizeof(Value);
    Kokkos::View<char*, MemSpace> buffer = allocate(bytes * ranks, "tessera::partials", false);
    comm.allgather_device(slot, buffer.data(), bytes);
    const Value* gathered = reinterpret_cast<const Value*>(buffer.data());
    Kokkos::parallel_for(
        "tessera::reduce[fold]", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, count),
        KOKKOS_LAMBDA(std::int64_t e) {
          Value v, index;
          reduce_identity(v, index, s);
          for (int r = 0; r < ranks; ++r)
            fold_value(s, v, index, gathered[2 * r * count + e], gathered[(2 * r + 1) * count + e]);
          slot[e] = v;
          slot[count + e] = index;
        });
    recycle(std::move(buffer));
  }
}

// Writes output e (row-major over the store's owned box) of one slot into the store.
void finalize_slot(const ReductionOut& r, ReduceSlot s, const Value* values, std::int64_t count) {
  Store& out = *r.out;
  const Box owned = out.owned();
  if (owned.volume() != count)
    raise("internal: a reduction computed ", count, " outputs for a result tile of ", owned.volume());
  const Layout layout = out.layout();
  const Finalize fin = r.finalize;
  const double n = r.count;
  const DType out_type = out.dtype();
  const int ndim = owned.ndim;
  char* base = out.data();
  // Where the owned box is one contiguous run of the buffer (a result without ghost cells, any
  // 1-D one), output e is at first + e: no divisions per output, which for 10^7 outputs (k-means'
  // assignment) cost more than the values' own traffic.
  bool contiguous = true;
  std::int64_t run = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    contiguous = contiguous && layout.stride[d] == run;
    run *= owned.hi[d] - owned.lo[d];
  }
  const std::int64_t first = layout.offset(owned.lo);
  Kokkos::parallel_for(
      "tessera::reduce[finalize]", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, count),
      KOKKOS_LAMBDA(std::int64_t e) {
        const Value v = values[e], index = values[count + e];
        // Position of output e in the store's buffer.
        std::int64_t at = first + e;
        if (!contiguous) {
          at = 0;
          std::int64_t rest = e;
          for (int d = ndim - 1; d >= 0; --d) {
            const std::int64_t extent = owned.hi[d] - owned.lo[d];
            at += (owned.lo[d] + rest % extent - layout.frame.lo[d]) * layout.stride[d];
            rest /= extent;
          }
        }
        const Value r = finalize_value(s, v, index, fin, n, out_type);
        switch (out_type) {
          case DType::Bool: reinterpret_cast<bool*>(base)[at] = r.b; break;
          case DType::Int32: reinterpret_cast<std::int32_t*>(base)[at] = r.i32; break;
          case DType::Int64: reinterpret_cast<std::int64_t*>(base)[at] = r.i64; break;
          case DType::Float32: reinterpret_cast<float*>(base)[at] = r.f32; break;
          default: reinterpret_cast<double*>(base)[at] = r.f64; break;
        }
      });
  out.mark_written();
}

// The partials of a rank whose tile is a copy that does not count become identities.
void reset_to_identity(const Program& program, Value* partials, std::int64_t count) {
  for (int k = 0; k < output_slots(program); ++k) {
    const ReduceSlot s{program.reduce_kinds[k], program.reduce_float[k]};
    Value* slot = partials + 2 * static_cast<std::int64_t>(k) * count;
    Kokkos::parallel_for(
        "tessera::reduce[identity]", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, count),
        KOKKOS_LAMBDA(std::int64_t e) { reduce_identity(slot[e], slot[count + e], s); });
  }
}

}  // namespace

void finish_reductions(const Launch& launch, Value* partials, std::int64_t count, Communicator* across, bool counted) {
  const Program& program = *launch.program;
  if (across && !counted) reset_to_identity(program, partials, count);
  if (across) combine_across(*across, program, partials, count);
  for (std::size_t k = 0; k < launch.reductions.size(); ++k)
    finalize_slot(launch.reductions[k], {program.reduce_kinds[k], program.reduce_float[k]},
                  partials + 2 * static_cast<std::int64_t>(k) * count, count);
}

}  // namespace tessera::detail
