#pragma once
// The reference: a serial NumPy-semantics emulator (host arrays with shapes; views as affine maps
// into shared bases: slices with steps, integer indices, new axes, composed), with NumPy's
// broadcasting and promotion rules (NEP 50 weak C++ scalars), integer wraparound, true division,
// bool or/and, NaN-propagating maximum/minimum, Python's remainder, bitwise ops on bools and
// integers, signed zeros as NumPy gives them (arctan2 and % tell them apart), reductions over
// everything or along an axis (argmin/argmax: first occurrence, NaN first), the shape
// operations transpose, roll, concatenate/hstack/vstack and reshape, and float64 products
// (matmul of 1-D and 2-D arrays, the SpMV by the program's sparse matrix).
//
// It also tracks, per element, a bound on how far any correct implementation may differ (0 =
// bit-exact: the value only went through correctly rounded operations that cannot be
// contracted); a step whose outcome could flip within that bound (a comparison, a where()
// condition, a float->int cast), or that would be undefined (integer overflow beyond 2^40, a
// float cast to an integer out of range, NaN or inf not introduced deliberately), is rejected:
// Ctx::reject says why. The generator keeps only steps that the reference accepts.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fuzz/program.hpp"

namespace fuzz {

constexpr double kMargin = 4.0;                // decisions must be safe by this multiple of the error bound
constexpr double kBudget64 = 1e-13;            // per-element error bound allowed, relative to max(1, |v|)
constexpr double kBudget32 = 1e-6;             // (a tenth of the comparison tolerance)
constexpr double kMaxFloat = 1e6;              // larger float results are rejected
constexpr std::int64_t kMaxInt64 = 1LL << 40;  // larger int64 results are rejected (int32 may wrap)

struct Base {
  DT t = DT::F64;
  Shape shape;
  std::vector<EV> v;
};

// A view of a base, as NumPy's basic indexing makes them: the base index of its first element
// and, per axis, its extent and its stride in base elements (0 for a new axis). Boxes, steps,
// integer indices (dropped axes) and new axes are all such maps, and views of views compose.
struct RSlot {
  std::shared_ptr<Base> base;
  std::int64_t origin = 0;
  Shape extent;
  std::vector<std::int64_t> stride;
  Shape shape() const { return extent; }
  int ndim() const { return static_cast<int>(extent.size()); }
  std::vector<std::int64_t> flat() const;  // the base index of each element, row-major
};
RSlot whole(std::shared_ptr<Base> base);

struct RState {
  std::vector<std::optional<RSlot>> slots = std::vector<std::optional<RSlot>>(kSlots);
  const Csr* csr = nullptr;  // the program's sparse matrix, if it has one
  RState clone() const {
    RState out;
    out.csr = csr;
    std::unordered_map<const Base*, std::shared_ptr<Base>> map;
    for (int k = 0; k < kSlots; ++k) {
      if (!slots[k]) continue;
      auto& b = map[slots[k]->base.get()];
      if (!b) b = std::make_shared<Base>(*slots[k]->base);
      out.slots[k] = *slots[k];
      out.slots[k]->base = b;
    }
    return out;
  }
};

// A materialized value: an array (0-d when shape is empty) or a weak C++ scalar.
struct RArr {
  DT t = DT::F64;
  Shape shape;
  std::vector<EV> v;
  bool weak = false;
  bool zero_d() const { return shape.empty(); }
};

struct Ctx {
  std::string reject;  // first reason the step is not acceptable
  std::int64_t ops = 0;
  void fail(const std::string& why) {
    if (reject.empty()) reject = why;
  }
  bool ok() const { return reject.empty(); }
};

// A checkpoint: what to_host()/item() returned (or the reference's values).
struct Snap {
  int step = -1;
  DT t = DT::F64;
  Shape shape;
  std::vector<double> f;
  std::vector<std::int64_t> i;
  std::string error;  // an exception thrown by tessera
};

// Scalar semantics, with error bounds (reference_scalar.cpp).
std::int64_t wrap_to(DT t, std::int64_t x);
double round_to(DT t, double x);
void check_value(DT t, EV& r, bool nan_in, Ctx& c);
EV cast(const EV& v, DT from, DT to, Ctx& c);
EV binop(Op op, DT t, const EV& a, const EV& b, Ctx& c);
EV unop(Op op, DT t, const EV& a, Ctx& c);
// x is a multiple of 2^-20 small enough that sums of such values are exact in float64.
bool dyadic20(double x);

// Views and broadcasting (reference_view.cpp).
std::size_t volume(const Shape& s);
// The view e (a Leaf: a handle and its index entries) in `out`; false (c says why) if invalid.
bool resolve(const Expr& e, const RState& st, RSlot& out, Ctx& c);
RArr materialize(const RSlot& s);
// NumPy's broadcast shape of the arrays among xs (weak scalars take no part); false if none.
bool broadcast_shape(std::initializer_list<const RArr*> xs, Shape& out, Ctx& c);
// For each element of `to` (row-major), the index of the element of `from` it reads.
std::vector<std::size_t> broadcast_index(const Shape& from, const Shape& to);
// Writes `src` (cast to the target's type, broadcast to its shape after dropping leading axes of
// extent 1 beyond the target's, as NumPy's setitem does) into the view `dst`.
void write_view(const RSlot& dst, const RArr& src, Ctx& c);
// Rejects a base holding a float whose error bound exceeds the budget.
void check_budget(const Base& b, Ctx& c);

// Reductions (reference_reduce.cpp): e.op of a, or vdot(a, *b), over everything or along e.axis.
RArr reduce(const Expr& e, const RArr& a, const RArr* b, Ctx& c);
// A float64 sum of terms in an order the implementation chooses, with the bound of a sum's
// (reference_reduce.cpp): the inner products of matmul and SpMV.
EV sum_any_order(const std::vector<EV>& terms, Ctx& c);
// NumPy's bincount of x (1-D bool or integers) with minlength e.ival, weighted by *w if given
// (reference_reduce.cpp); rejected where the length would pass kMaxBins.
constexpr std::int64_t kMaxBins = 64;
RArr bincount(const Expr& e, const RArr& x, const RArr* w, Ctx& c);
// Shape operations (reference_shapes.cpp): e.op of the evaluated kids.
RArr shape_op(const Expr& e, const std::vector<RArr>& kids, Ctx& c);
// Products (reference_products.cpp): matmul of kids[0] and kids[1], or the SpMV of kids[0] by csr.
RArr product(const Expr& e, const std::vector<RArr>& kids, const Csr* csr, Ctx& c);

// Expressions and steps (reference.cpp).
RArr eval(const Expr& e, const RState& st, Ctx& c);
void apply_step(RState& st, const Step& s, int index, Ctx& c, std::vector<Snap>* snaps);
// Runs a whole program on the reference; false (with the reason) if some step is not acceptable.
// notes: per step, the type and shape of the handle it binds or writes.
bool run_reference(const Program& p, std::vector<Snap>& snaps, std::string* why = nullptr,
                   std::vector<std::string>* notes = nullptr);

}  // namespace fuzz
