// Dense products as tasks with partition constraints (tasks/): the matrix stays where it is.
//   matvec (n,k)@(k,): over A's tiling; x broadcast along dimension 0 (each rank reads its columns'
//     part), y a reduce privilege (each rank's GEMV of its tile is summed across the grid row);
//   vecmat (k,)@(k,m): the same with the roles of the dimensions swapped;
//   gemm (n,k)@(k,m): SUMMA. C is tiled over the 2-D grid; the product runs in panels of k, one
//     task each, over the domain (n, m, panel): the panel of A broadcast along the grid's columns,
//     the panel of B along its rows (a redistribution each: every rank receives A[its rows, panel]
//     and B[panel, its columns]), and one GEMM per rank accumulating into its tile of C.

#include <algorithm>

#include "tessera/array/store_factory.hpp"
#include "tessera/core/error.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"
#include "tessera/linalg/blas.hpp"
#include "tessera/linalg/matmul.hpp"
#include "tessera/program/program.hpp"

namespace tessera::detail {
namespace {

// A SUMMA step's panel of k: as wide as kPanelBytes of A's and B's panels allow (the buffers a
// step receives), and never narrower than kMinPanel. Each panel is one task through the window;
// k-means' centroid update (16 x 2e6) @ (2e6 x 8) was 1,954 tasks of 1,024 per iteration when
// the width was fixed, 0.5 s of the host's time per iteration on the H200 (the planner's cost
// grows with the chain of accumulating tasks), against 44 ms unfused; now it is 3 tasks.
constexpr std::int64_t kMinPanel = 1024;
constexpr std::int64_t kPanelBytes = std::int64_t(128) << 20;
std::int64_t panel_width(std::int64_t n, std::int64_t m, DType t) {
  return std::max(kMinPanel, kPanelBytes / (std::max<std::int64_t>(1, n + m) * size_of(t)));
}

class MatvecBody final : public TaskBody {
 public:
  // `transposed`: y = A^T x (vecmat), reducing over launch dimension 0 instead of 1.
  MatvecBody(DType type, bool transposed)
      : TaskBody({{Privilege::Reduce, align()},
                  {Privilege::Read, align()},
                  {Privilege::Read, broadcast(transposed ? 1u << 1 : 1u << 0)}}),
        type_(type),
        transposed_(transposed) {}
  void run(const TileContext& c) const override {
    if (c.tile.empty()) return;  // the reduce privilege's tile starts at 0
    const TileArg &y = c.args[0], &a = c.args[1], &x = c.args[2];
    const int along = transposed_ ? 0 : 1;  // x's dimension, y's the other
    gemv(type_, transposed_, c.tile.extent(0), c.tile.extent(1), {a.data, a.stride[0], a.stride[1]}, x.data,
         x.stride[along], 0.0, y.data, y.stride[1 - along]);
  }

 private:
  DType type_;
  bool transposed_;
};

class GemmPanelBody final : public TaskBody {
 public:
  GemmPanelBody(DType type, bool first)
      : TaskBody({{first ? Privilege::Write : Privilege::ReadWrite, align()},
                  {Privilege::Read, broadcast(1u << 1)},
                  {Privilege::Read, broadcast(1u << 0)}}),
        type_(type),
        first_(first) {}
  void run(const TileContext& c) const override {
    if (c.tile.empty()) return;
    const TileArg &out = c.args[0], &a = c.args[1], &b = c.args[2];
    gemm(type_, c.tile.extent(0), c.tile.extent(1), c.tile.extent(2), {a.data, a.stride[0], a.stride[2]},
         {b.data, b.stride[2], b.stride[1]}, first_ ? 0.0 : 1.0, out.data, out.stride[0], out.stride[1]);
  }

 private:
  DType type_;
  bool first_;
};

void submit_task(const char* label, std::vector<Arg> args, int key, std::shared_ptr<const TaskBody> body) {
  Task task;
  task.label = label;
  task.args = std::move(args);
  task.key = key;
  std::vector<ArgView> views;
  for (const Arg& a : task.args) views.push_back({a.store.get(), a.view});
  body->validate(task.label, views, key);
  task.body = std::move(body);
  runtime().stats().ops++;
  submit(std::move(task));
}

// `a` as an operand BLAS can take: of type t, a matrix with one unit stride (and no stretched
// axis). Anything else is copied first, by an elementwise op aligned with it.
ArrayRef blas_operand(const ArrayRef& a, DType t) {
  const View& v = a.view;
  bool ok = a.dtype() == t && !v.stretched();
  if (ok && v.ndim == 2) {
    const int last = v.store_ndim - 1;
    ok = (v.moved_by(1) == last && v.map[last][1] == 1) || (v.moved_by(0) == last && v.map[last][0] == 1);
  }
  if (ok) return a;
  return apply("astype", OpCode::Load, {Operand::of(a)}, {a.dtype()}, a.dtype(), t);
}

// A view of `a` (of its view's store) over a launch domain of `extent`: a's view dimension d moves
// along launch dimension to[d]; launch dimensions no entry of `to` names are stretched.
View over(const ArrayRef& a, const Index3& extent, int ndim, const std::vector<int>& to, const Index3& origin_shift) {
  View v;
  v.ndim = ndim;
  v.store_ndim = a.view.store_ndim;
  v.extent = extent;
  v.origin = a.view.origin;
  for (int k = 0; k < kMaxDims; ++k) {
    for (std::size_t d = 0; d < to.size(); ++d) v.map[k][to[d]] = a.view.map[k][d];
    for (std::size_t d = 0; d < to.size(); ++d) v.origin[k] += a.view.map[k][d] * origin_shift[d];
  }
  return v;
}

// y = A x, or y = A^T x (x @ A).
ArrayRef matvec(const ArrayRef& a, const ArrayRef& x, DType t, bool transposed) {
  const std::optional<Tiling> launch = induced(a.store->tiling(), a.view);
  if (!launch) raise("internal: matmul over a view that induces no tiling");
  const int reduced = transposed ? 0 : 1;
  ArrayRef y = new_array(t, dropped(*launch, reduced), false);
  const Index3 extent = a.view.extent;
  const View yv = over(y, extent, 2, {1 - reduced}, {0, 0, 0});
  const View xv = over(x, extent, 2, {reduced}, {0, 0, 0});
  submit_task(transposed ? "tessera::task[vecmat]" : "tessera::task[matvec]",
              {Arg{y.store, yv, true, true}, Arg{a.store, a.view, false, false}, Arg{x.store, xv, false, false}}, 1,
              std::make_shared<const MatvecBody>(t, transposed));
  return y;
}

// y = A x as a reduction program, sum(A * x[newaxis, :], 1) in one op: each row folded by the
// reduction kernel, x read as a broadcast operand, the partial sums of a grid row allreduced
// where the columns are cut; elementwise work on y fuses into the kernel as its epilogue
// (docs/FUSION.md, "Epilogues"), and a vecmat reading that work as the rows' sweep
// (docs/FUSION.md, "Sweeps").
ArrayRef generated_matvec(const ArrayRef& a, const ArrayRef& x, DType t) {
  const ArrayRef stretched{x.store, broadcast_view(x, a.shape())};
  return reduce(ReduceSpec{"matmul", ReduceKind::Sum, t, t, Finalize::None, ReduceMap::Identity, 1, false}, a,
                &stretched);
}

// y = x A (x @ A) as a reduction program, sum(A * x[:, newaxis], 0) in one op.
ArrayRef generated_vecmat(const ArrayRef& x, const ArrayRef& a, DType t) {
  const ArrayRef stretched{x.store, over(x, a.view.extent, 2, {0}, {0, 0, 0})};
  return reduce(ReduceSpec{"matmul", ReduceKind::Sum, t, t, Finalize::None, ReduceMap::Identity, 0, false}, a,
                &stretched);
}

// TESSERA_MATVEC=auto: products of a vector with a matrix of at most kMaxSweepColumns columns
// (logistic regression's 10^7 x 32) are reduction programs, which fuse with the work around them
// into one pass over the matrix (docs/LINALG.md); wider ones call BLAS, whose GEMV was faster on
// the H200 than the generated rows' fold with its separate elementwise kernel (Jacobi).
bool generated_product(const Shape& matrix) {
  const std::string& mode = runtime().config().matvec;
  return mode == "generated" || (mode == "auto" && matrix[1] <= kMaxSweepColumns);
}

// C = A B in SUMMA panels of k: the balanced cuts of k over the larger grid dimension (each panel
// then mostly lies in one rank's columns of A and one rank's rows of B), split to panel_width.
ArrayRef gemm_panels(const ArrayRef& a, const ArrayRef& b, DType t) {
  const std::int64_t n = a.view.extent[0], k = a.view.extent[1], m = b.view.extent[1];
  ArrayRef c = new_array(t, balanced_tiling({n, m}, "matmul", t), k == 0);
  if (k == 0) return c;  // zeros, as NumPy
  const ProcessGrid& grid = runtime().grid(2);
  const auto cuts = balanced_cuts(k, std::max(grid.dim(0), grid.dim(1)));
  const std::int64_t panel = panel_width(n, m, t);
  bool first = true;
  for (int p = 0; p < cuts->parts; ++p) {
    for (std::int64_t k0 = cuts->points[p]; k0 < cuts->points[p + 1]; k0 += panel) {
      const std::int64_t w = std::min(panel, cuts->points[p + 1] - k0);
      const Index3 extent{n, m, w};
      const View cv = over(c, extent, 3, {0, 1}, {0, 0, 0});
      const View av = over(a, extent, 3, {0, 2}, {0, k0, 0});
      const View bv = over(b, extent, 3, {2, 1}, {k0, 0, 0});
      submit_task("tessera::task[gemm]",
                  {Arg{c.store, cv, true, first}, Arg{a.store, av, false, false}, Arg{b.store, bv, false, false}}, 0,
                  std::make_shared<const GemmPanelBody>(t, first));
      first = false;
    }
  }
  return c;
}

}  // namespace

ArrayRef matmul_arrays(const char* what, const ArrayRef& a_in, const ArrayRef& b_in, DType t) {
  check_runtime(a_in, what);
  check_runtime(b_in, what);
  const int na = a_in.ndim(), nb = b_in.ndim();
  const Shape sa = a_in.shape(), sb = b_in.shape();
  const bool dot = std::string(what) == "dot";
  if (na == 0 || nb == 0)
    raise(what, ": matmul does not take 0-d operands (use * for a product by a scalar), got shapes ", shape_string(sa),
          " and ", shape_string(sb));
  if (na > 2 || nb > 2)
    raise(what, ": operands of 1 or 2 dimensions only (batched products of 3-D arrays are not supported), got shapes ",
          shape_string(sa), " and ", shape_string(sb),
          dot ? "; for the full inner product of two arrays of one shape (part one's dot) use ts::vdot" : "");
  const std::int64_t ka = sa[na - 1], kb = sb[0];
  if (ka != kb) {
    if (dot)
      raise("dot: shapes ", shape_string(sa), " and ", shape_string(sb), " not aligned: ", ka, " (dim ", na - 1,
            ") != ", kb, " (dim 0)");
    raise(
        "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
        "(n?,k),(k,m?)->(n?,m?) (size ",
        kb, " is different from ", ka, "): shapes ", shape_string(sa), " and ", shape_string(sb));
  }
  if (na == 1 && nb == 1)
    return reduce(ReduceSpec{what, ReduceKind::Sum, t, t, Finalize::None, ReduceMap::Identity, std::nullopt, false},
                  a_in, &b_in);
  if (!is_float(t))
    raise(what, ": products of ", name(t), " matrices are not supported (tessera's products call BLAS: float32 and ",
          "float64); convert the operands with astype<double>() first");
  if (na == 2 && nb == 1 && generated_product(sa)) return generated_matvec(a_in, b_in, t);
  if (na == 1 && nb == 2 && generated_product(sb)) return generated_vecmat(a_in, b_in, t);
  // An operand copy is an intermediate no Array<T> holds: a window that fills up before the
  // product task that reads it is recorded must not drop it as a dead temporary.
  const ArrayRef a = blas_operand(a_in, t);
  const UserRef hold_a(a.store);
  const ArrayRef b = blas_operand(b_in, t);
  const UserRef hold_b(b.store);
  if (na == 2 && nb == 1) return matvec(a, b, t, false);
  if (na == 1) return matvec(b, a, t, true);
  return gemm_panels(a, b, t);
}

}  // namespace tessera::detail
