// Shape operations and diagonals. All return new arrays (DESIGN.md: no writable views through
// them). Most are ops over views, which the executor serves like any other operand: transpose
// reads a permuted view (a redistribution where the tiles differ), concatenate and roll assign
// whole inputs or two shifted parts into slices of the result (halos or redistributions of just
// those parts: no gather), diag reads a diagonal view or writes through a where(). reshape
// reorders elements across rows, which no view expresses: it runs eagerly (the window is flushed)
// as one fetch of the pieces of the source that each rank's rows of the result hold.

#include <algorithm>
#include <numeric>

#include "tessera/array/array_ref.hpp"
#include "tessera/array/store_factory.hpp"
#include "tessera/comm/exchange.hpp"
#include "tessera/core/error.hpp"
#include "tessera/fusion/program_builder.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"

namespace tessera::detail {
namespace {

int normalize_axis(const char* what, int axis, int ndim) {
  const int a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim) raise(what, ": axis ", axis, " is out of bounds for array of dimension ", ndim);
  return a;
}

// Copies `source` (any view) into `target` (same shape): one elementwise op.
void copy_into(const char* what, const ArrayRef& target, const ArrayRef& source) {
  apply(what, OpCode::Load, {Operand::of(source)}, {source.dtype()}, source.dtype(), target.dtype(), &target);
}

// Along `axis` of `a`, the elements [lo, hi).
ArrayRef part(const ArrayRef& a, int axis, std::int64_t lo, std::int64_t hi) {
  IndexSpec whole;
  whole.whole = true;
  std::vector<IndexSpec> entries(static_cast<std::size_t>(axis) + 1, whole);
  entries[axis] = IndexSpec{IndexSpec::Kind::Range, lo, hi, 1, false, false};
  return index(a, entries);
}

// The flat (row-major) range [lo, hi) of an array of `shape` as boxes in flat order: a partial
// first row, whole rows, a partial last row, recursively (at most 2 ndim - 1 boxes).
void flat_range_boxes(const Shape& shape, std::size_t first_dim, std::int64_t lo, std::int64_t hi, Box prefix,
                      std::vector<Box>& out) {
  if (lo >= hi) return;
  const int d = static_cast<int>(first_dim);
  if (first_dim + 1 == shape.size()) {
    prefix.lo[d] = lo, prefix.hi[d] = hi;
    out.push_back(prefix);
    return;
  }
  std::int64_t inner = 1;
  for (std::size_t k = first_dim + 1; k < shape.size(); ++k) inner *= shape[k];
  std::int64_t r0 = lo / inner;
  const std::int64_t r1 = hi / inner;
  auto row = [&](std::int64_t r, std::int64_t a, std::int64_t b) {
    Box p = prefix;
    p.lo[d] = r, p.hi[d] = r + 1;
    flat_range_boxes(shape, first_dim + 1, a, b, p, out);
  };
  if (r0 == r1) return row(r0, lo - r0 * inner, hi - r0 * inner);
  if (lo % inner != 0) row(r0++, lo % inner, inner);
  if (r1 > r0) {
    Box whole = prefix;
    whole.lo[d] = r0, whole.hi[d] = r1;
    for (std::size_t k = first_dim + 1; k < shape.size(); ++k) whole.lo[k] = 0, whole.hi[k] = shape[k];
    out.push_back(whole);
  }
  if (hi % inner != 0) row(r1, 0, hi % inner);
}

// `asked` with its one unknown extent (-1, as NumPy's) inferred from the array's size.
Shape inferred_shape(const ArrayRef& in, const Shape& asked) {
  const auto cannot = [&] {
    raise("reshape: cannot reshape an array of size ", in.size(), " and shape ", shape_string(in.shape()),
          " into shape ", shape_string(asked));
  };
  Shape shape = asked;
  std::int64_t known = 1;
  int unknown = -1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (unknown >= 0) raise("reshape: can only specify one unknown dimension (-1) in ", shape_string(asked));
      unknown = static_cast<int>(d);
    } else if (shape[d] < 0) {
      raise("reshape: negative extent ", shape[d], " in the new shape ", shape_string(asked));
    } else {
      known *= shape[d];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || in.size() % known != 0) cannot();
    shape[unknown] = in.size() / known;
  } else if (known != in.size()) {
    cannot();
  }
  return shape;
}

}  // namespace

ArrayRef transpose_array(const ArrayRef& a, const std::vector<int>& axes_in) {
  check_runtime(a, "transpose");
  const int nd = a.ndim();
  std::vector<int> axes = axes_in;
  if (axes.empty()) {
    for (int d = nd - 1; d >= 0; --d) axes.push_back(d);
  }
  std::string given;
  for (int x : axes_in) given += (given.empty() ? "" : ", ") + std::to_string(x);
  if (static_cast<int>(axes.size()) != nd)
    raise("transpose: axes (", given, ") don't match an array of shape ", shape_string(a.shape()));
  std::vector<bool> seen(nd, false);
  for (int& x : axes) {
    x = normalize_axis("transpose", x, nd);
    if (seen[x]) raise("transpose: repeated axis in (", given, ")");
    seen[x] = true;
  }
  View v;
  v.ndim = nd;
  v.store_ndim = a.view.store_ndim;
  v.origin = a.view.origin;
  Shape shape(nd);
  for (int d = 0; d < nd; ++d) {
    v.extent[d] = shape[d] = a.view.extent[axes[d]];
    for (int k = 0; k < kMaxDims; ++k) v.map[k][d] = a.view.map[k][axes[d]];
  }
  ArrayRef out = new_array(a.dtype(), balanced_tiling(shape, "transpose", a.dtype()), false);
  copy_into("transpose", out, ArrayRef{a.store, v});
  return out;
}

ArrayRef concatenate_arrays(const char* what, const std::vector<ArrayRef>& arrays, int axis_in) {
  if (arrays.empty()) raise(what, ": need at least one array to concatenate");
  for (const ArrayRef& a : arrays) check_runtime(a, what);
  const ArrayRef& first = arrays.front();
  const int nd = first.ndim();
  if (nd == 0) raise(what, ": zero-dimensional arrays cannot be concatenated");
  const int axis = normalize_axis(what, axis_in, nd);
  Shape shape = first.shape();
  shape[axis] = 0;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const Shape s = arrays[i].shape();
    if (static_cast<int>(s.size()) != nd)
      raise(what, ": all the input arrays must have the same number of dimensions, but array 0 has shape ",
            shape_string(first.shape()), " and array ", i, " has shape ", shape_string(s));
    for (int d = 0; d < nd; ++d)
      if (d != axis && s[d] != first.shape()[d])
        raise(what, ": the arrays must have the same shape except along axis ", axis, ", but array 0 has shape ",
              shape_string(first.shape()), " and array ", i, " has shape ", shape_string(s));
    shape[axis] += s[axis];
  }
  ArrayRef out = new_array(first.dtype(), balanced_tiling(shape, what, first.dtype()), false);
  std::int64_t at = 0;
  for (const ArrayRef& a : arrays) {
    const std::int64_t n = a.view.extent[axis];
    if (n > 0) copy_into(what, part(out, axis, at, at + n), a);
    at += n;
  }
  return out;
}

ArrayRef roll_array(const ArrayRef& a, std::int64_t shift, int axis_in) {
  check_runtime(a, "roll");
  const int axis = normalize_axis("roll", axis_in, a.ndim());
  const std::int64_t n = a.view.extent[axis];
  ArrayRef out = new_array_like(a.dtype(), a);
  if (n == 0) return out;
  const std::int64_t s = ((shift % n) + n) % n;
  // out[s:] = a[:n-s], out[:s] = a[n-s:]: two shifted reads; the second wraps around.
  copy_into("roll", part(out, axis, s, n), part(a, axis, 0, n - s));
  if (s > 0) copy_into("roll", part(out, axis, 0, s), part(a, axis, n - s, n));
  return out;
}

ArrayRef diag_array(const ArrayRef& a) {
  check_runtime(a, "diag");
  if (a.ndim() == 2) {
    View v;
    v.ndim = 1;
    v.store_ndim = a.view.store_ndim;
    v.origin = a.view.origin;
    v.extent[0] = std::min(a.view.extent[0], a.view.extent[1]);
    for (int k = 0; k < kMaxDims; ++k) v.map[k][0] = a.view.map[k][0] + a.view.map[k][1];
    ArrayRef out = new_array(a.dtype(), balanced_tiling({v.extent[0]}, "diag", a.dtype()), false);
    copy_into("diag", out, ArrayRef{a.store, v});
    return out;
  }
  if (a.ndim() != 1) raise("diag: input must be 1-D or 2-D, got shape ", shape_string(a.shape()));
  // out[i, j] = i == j ? a[j] : 0, one elementwise program over the matrix.
  const std::int64_t n = a.view.extent[0];
  ArrayRef out = new_array(a.dtype(), balanced_tiling({n, n}, "diag", a.dtype()), false);
  Task task;
  ProgramBuilder b(task);
  const DType t = a.dtype();
  const View row = broadcast_view(a, {n, n});
  const int value = b.load(b.arg(a.store, row, false), t);
  const int on_diagonal = b.binary(OpCode::Eq, DType::Int64, b.coord(1), b.coord(2));
  const int r = b.where(t, on_diagonal, value, b.constant(convert_scalar(0, t), t));
  const int out_arg = b.arg(out.store, out.view, true, true);
  b.store(out_arg, t, r);
  task.key = out_arg;
  task.label = "tessera::op[diag]";
  runtime().stats().ops++;
  submit(std::move(task));
  return out;
}

ArrayRef reshape_array(const ArrayRef& in, const Shape& asked) {
  check_runtime(in, "reshape");
  const Shape shape = inferred_shape(in, asked);
  balanced_tiling(shape, "reshape", in.dtype());  // checks the new shape
  if (shape == in.shape()) {
    ArrayRef out = new_array_like(in.dtype(), in);
    copy_into("reshape", out, in);
    return out;
  }
  RuntimeState& rt = runtime();
  const BoxView box_view(in);
  const ArrayRef& a = box_view.ref();
  flush_window();
  // Rows of the result dealt over all ranks (rank r's part is one flat range), then re-tiled
  // like any new array of that shape by an ordinary copy (local where the tiles agree).
  Tiling rows;
  rows.ndim = static_cast<int>(shape.size());
  rows.grid = 1;
  rows.cuts[0] = balanced_cuts(shape[0], rt.size());
  for (int d = 0; d < rows.ndim; ++d) rows.extent[d] = shape[d];
  ArrayRef staged = new_array(in.dtype(), rows, false);
  const Shape source_shape = a.shape();
  std::int64_t inner = 1;
  for (std::size_t d = 1; d < shape.size(); ++d) inner *= shape[d];
  const ProcessGrid& row_grid = rt.grid(1);
  constexpr std::size_t kPieces = 2 * kMaxDims - 1;
  std::vector<FetchRequest> requests(kPieces);
  const Box source_box = a.view.box();
  std::int64_t offset = 0;
  for (std::size_t j = 0; j < kPieces; ++j) {
    requests[j].store = a.store.get();
    requests[j].needed.resize(rt.size());
    requests[j].store_grid = &rt.grid(a.store->tiling().grid);
  }
  for (int r = 0; r < rt.size(); ++r) {
    const Box held = rows.tile(row_grid.coords(r));
    std::vector<Box> pieces;
    Box prefix;
    prefix.ndim = static_cast<int>(source_shape.size());
    flat_range_boxes(source_shape, 0, held.lo[0] * inner, held.hi[0] * inner, prefix, pieces);
    for (std::size_t j = 0; j < kPieces; ++j) {
      Box p = j < pieces.size() ? shifted(pieces[j], source_box.lo) : Box{prefix.ndim, {0, 0, 0}, {0, 0, 0}};
      requests[j].needed[r] = p;
      if (r != rt.rank()) continue;
      requests[j].destination = staged.store->data() + offset * size_of(in.dtype());
      requests[j].destination_layout = Layout::row_major(p);
      offset += p.volume();
    }
  }
  rt.stats().redistribution_bytes += fetch(rt.comm(), row_grid, std::move(requests), "tessera::redistribute[reshape]");
  rt.stats().redistributions++;
  staged.store->mark_written();
  ArrayRef out = new_array(in.dtype(), balanced_tiling(shape, "reshape", in.dtype()), false);
  copy_into("reshape", out, staged);
  return out;
}

}  // namespace tessera::detail
