// The SpMV task, y = A x: y aligned with the matrix's rows, x under an image() constraint (the
// entries its rows reference off-rank, gathered into a ghost buffer). The body splits as
// MatMult_MPIAIJ: the owned block while the image travels, the ghost block once it has arrived.
// And diag(A), a task that copies each rank's diagonal into its tile.

#include "tessera/array/store_factory.hpp"
#include "tessera/core/context.hpp"
#include "tessera/core/error.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"
#include "tessera/sparse/csr.hpp"
#include "tessera/sparse/csr_data.hpp"
#ifdef KOKKOS_ENABLE_CUDA
#include "tessera/sparse/cusparse_spmv.hpp"
#endif

namespace tessera::detail {
namespace {

// What an SpMV adds to sum(p * y) (the inner-product epilogue): p's tile and the 0-d sum, or
// nothing (p null).
template <class T>
struct DotEpilogue {
  const T* p = nullptr;
  std::int64_t p_stride = 1;
  T* sum = nullptr;  // MemSpace
};

// y[i] (+)= g[i], g[i] the sum over row i of block b of val * x[col], over b's stored rows (all
// rows, or the compressed block's rows with entries): a thread per row, on every backend; CUDA
// builds can run the owned block through cuSPARSE instead (TESSERA_SPMV; docs/LINALG.md says which
// was faster). With an epilogue, sum(p[i] * g[i]) over the rows is written to `dot.sum`: the
// owned and the ghost block's parts of y add up, so their inner products with p do too.
// Ptr, Index: the widths of b's row pointers and column indices.
template <class T, class Ptr, class Index>
struct RowProduct {
  Kokkos::View<std::int64_t*, MemSpace> rows;
  Kokkos::View<Ptr*, MemSpace> ptr;
  Kokkos::View<Index*, MemSpace> col;
  const T* val;
  const T* x;
  T* y;
  bool compressed, accumulate;
  // Stored row r: writes y and returns its g; `i` is its local row.
  KOKKOS_INLINE_FUNCTION T operator()(std::int64_t r, std::int64_t& i) const {
    i = compressed ? rows(r) : r;
    T g = 0;
    for (Ptr k = ptr(r); k < ptr(r + 1); ++k) g += val[k] * x[col(k)];
    y[i] = accumulate ? y[i] + g : g;
    return g;
  }
};

template <class T, class Ptr, class Index>
void block_product(const CsrBlock& b, const Kokkos::View<Ptr*, MemSpace>& ptr,
                   const Kokkos::View<Index*, MemSpace>& col, const T* x, T* y, bool accumulate,
                   const DotEpilogue<T>& dot, const char* label) {
  const RowProduct<T, Ptr, Index> row{b.rows, ptr, col,          reinterpret_cast<const T*>(b.val.data()),
                                      x,      y,   b.compressed, accumulate};
  const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>> policy(0, b.stored_rows());
  if (!dot.p) {
    Kokkos::parallel_for(
        label, policy, KOKKOS_LAMBDA(std::int64_t r) {
          std::int64_t i;
          row(r, i);
        });
    return;
  }
  const T* p = dot.p;
  const std::int64_t stride = dot.p_stride;
  Kokkos::parallel_reduce(
      label, policy,
      KOKKOS_LAMBDA(std::int64_t r, T & sum) {
        std::int64_t i;
        const T g = row(r, i);
        sum += p[i * stride] * g;
      },
      Kokkos::View<T, MemSpace, Kokkos::MemoryUnmanaged>(dot.sum));
}

template <class T, class Ptr>
void block_product(const CsrBlock& b, const Kokkos::View<Ptr*, MemSpace>& ptr, const T* x, T* y, bool accumulate,
                   const DotEpilogue<T>& dot, const char* label) {
  if (b.width == IndexWidth::Int32)
    block_product(b, ptr, b.col32, x, y, accumulate, dot, label);
  else
    block_product(b, ptr, b.col64, x, y, accumulate, dot, label);
}

// Returns whether a kernel ran (and wrote dot.sum).
template <class T>
bool block_product(const CsrBlock& b, const T* x, T* y, bool accumulate, const DotEpilogue<T>& dot, const char* label) {
  if (b.stored_rows() <= 0) return false;
  if (b.row_width == IndexWidth::Int32)
    block_product(b, b.ptr32, x, y, accumulate, dot, label);
  else
    block_product(b, b.ptr64, x, y, accumulate, dot, label);
  return true;
}

// *sum += *part, both in MemSpace (a free function: nvcc rejects a device lambda in a private
// member function).
template <class T>
void add_to(T* sum, const T* part) {
  Kokkos::parallel_for(
      "tessera::spmv[ghost dot]", Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(int) { *sum += *part; });
}

template <class T>
void copy_diagonal(const Kokkos::View<char*, MemSpace>& diagonal, std::int64_t rows, T* out) {
  if (rows == 0) return;
  const T* d = reinterpret_cast<const T*>(diagonal.data());
  Kokkos::parallel_for(
      "tessera::csr[diagonal]", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, rows),
      KOKKOS_LAMBDA(std::int64_t i) { out[i] = d[i]; });
}

// Arguments: y (written), x (under the image) and, with the inner-product epilogue, p (aligned
// with y) and sum(p * y) (0-d, reduced across the ranks by the executor).
class SpmvBody final : public TaskBody {
 public:
  SpmvBody(std::shared_ptr<const CsrData> a, bool dot)
      : TaskBody(dot ? std::vector<ArgSpec>{{Privilege::Write, align()},
                                            {Privilege::Read, image(a->image)},
                                            {Privilege::Read, align()},
                                            {Privilege::Reduce, align()}}
                     : std::vector<ArgSpec>{{Privilege::Write, align()}, {Privilege::Read, image(a->image)}}),
        a_(std::move(a)),
        dot_(dot) {}
  bool splits() const override { return true; }
  void run(const TileContext& c) const override {
    if (a_->type == DType::Float32)
      run_typed<float>(c);
    else
      run_typed<double>(c);
  }
  std::shared_ptr<const TaskBody> with_inner_product(int written) const override {
    if (dot_ || written != 0) return nullptr;
    return std::make_shared<const SpmvBody>(a_, true);
  }

 private:
  template <class T>
  void run_typed(const TileContext& c) const {
    T* y = reinterpret_cast<T*>(c.args[0].data);
    const TileArg& x = c.args[1];
    DotEpilogue<T> dot;
    if (dot_)
      dot = {reinterpret_cast<const T*>(c.args[2].data), c.args[2].stride[0], reinterpret_cast<T*>(c.args[3].data)};
    using Phase = TileContext::Phase;
    if (c.phase != Phase::Ghosts) {
      // x.data is null where this rank holds no columns: the rows' zeros are still written.
      const T* owned_x = reinterpret_cast<const T*>(x.data);
      bool done = false;
#ifdef KOKKOS_ENABLE_CUDA
      done =
          !dot_ && runtime().config().spmv == "cusparse" && cusparse_spmv(a_->type, a_->owned, x.extent[0], owned_x, y);
#endif
      // The sum starts at 0 (the executor zeroes a Reduce argument): a block without rows leaves it so.
      if (!done) block_product(a_->owned, owned_x, y, false, dot, "tessera::spmv[owned]");
    }
    if (c.phase != Phase::Owned) add_ghost_block(x, y, dot);
  }

  // The ghost block's part; its share of the inner product is added to the owned block's.
  template <class T>
  void add_ghost_block(const TileArg& x, T* y, const DotEpilogue<T>& dot) const {
    const T* image = reinterpret_cast<const T*>(x.image);
    if (!dot.p) {
      block_product(a_->ghost, image, y, true, dot, "tessera::spmv[ghosts]");
      return;
    }
    Kokkos::View<char*, MemSpace> scratch = allocate(sizeof(T), "tessera::spmv[ghost dot]", false);
    T* part = reinterpret_cast<T*>(scratch.data());
    if (block_product(a_->ghost, image, y, true, DotEpilogue<T>{dot.p, dot.p_stride, part}, "tessera::spmv[ghosts]"))
      add_to(dot.sum, part);
    recycle(std::move(scratch));
  }

  std::shared_ptr<const CsrData> a_;
  bool dot_;
};

class DiagonalBody final : public TaskBody {
 public:
  explicit DiagonalBody(std::shared_ptr<const CsrData> a) : TaskBody({{Privilege::Write, align()}}), a_(std::move(a)) {}
  void run(const TileContext& c) const override {
    if (a_->type == DType::Float32)
      copy_diagonal(a_->diagonal, a_->local_rows, reinterpret_cast<float*>(c.args[0].data));
    else
      copy_diagonal(a_->diagonal, a_->local_rows, reinterpret_cast<double*>(c.args[0].data));
  }

 private:
  std::shared_ptr<const CsrData> a_;
};

void submit_task(std::string label, std::vector<Arg> args, std::shared_ptr<const TaskBody> body) {
  Task task;
  task.label = std::move(label);
  task.args = std::move(args);
  std::vector<ArgView> views;
  for (const Arg& a : task.args) views.push_back({a.store.get(), a.view});
  body->validate(task.label, views, 0);
  task.body = std::move(body);
  runtime().stats().ops++;
  submit(std::move(task));
}

}  // namespace

ArrayRef csr_matvec(const std::shared_ptr<const CsrData>& a, const ArrayRef& x_in) {
  check_runtime(x_in, "matmul");
  if (x_in.ndim() != 1 || x_in.shape()[0] != a->cols)
    raise("matmul: shapes ", shape_string({a->rows, a->cols}), " and ", shape_string(x_in.shape()),
          " not aligned: the sparse matrix has ", a->cols, " columns, so x needs shape ", shape_string({a->cols}));
  // The image was computed against x's balanced tiling: another tiling (a view, a result tiled
  // like something else) is copied into it first.
  ArrayRef x = x_in;
  const std::optional<Tiling> t = induced(x.store->tiling(), x.view);
  if (!t || !t->matches(a->col_tiling)) {
    x = new_array(a->type, a->col_tiling, false);
    assign(x, Operand::of(x_in));
  }
  ArrayRef y = new_array(a->type, a->row_tiling, false);
  submit_task("tessera::task[spmv]", {Arg{y.store, y.view, true, true}, Arg{x.store, x.view, false, false}},
              std::make_shared<const SpmvBody>(a, false));
  return y;
}

ArrayRef csr_diagonal(const std::shared_ptr<const CsrData>& a) {
  ArrayRef d = new_array(a->type, a->row_tiling, false);
  submit_task("tessera::task[csr_diagonal]", {Arg{d.store, d.view, true, true}},
              std::make_shared<const DiagonalBody>(a));
  if (a->cols >= a->rows) return d;
  // A tall matrix's diagonal ends at its last column.
  IndexSpec first;
  first.stop = a->cols;
  ArrayRef out = new_array(a->type, balanced_tiling({a->cols}, "diag", a->type), false);
  assign(out, Operand::of(index(d, {first})));
  return out;
}

}  // namespace tessera::detail
