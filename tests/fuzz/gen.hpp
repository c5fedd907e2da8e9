#pragma once
// The generator's parts, shared by generator*.cpp (generator.hpp is the interface): Gen proposes
// steps for the reference state it is given; the caller keeps those the reference accepts.
//   generator_views.cpp   launch-domain shapes and the index expressions that view an array as a
//                         shape (boxes, steps, integers, new axes, broadcastable parts);
//   generator_exprs.cpp   expressions: literals, 0-d operands, unary / binary / where, axis
//                         reductions and shape operations;
//   generator_idioms.cpp  the idioms of real programs (stencils, sweeps, centering, k-means ...);
//   generator_products.cpp  matmul and SpMV nodes, and the steps that use their results;
//   generator.cpp         the steps, loops and whole programs.

#include <optional>
#include <string>
#include <vector>

#include "fuzz/reference.hpp"
#include "fuzz/rng.hpp"

namespace fuzz {

extern const std::vector<double> kFloatLits;

// A small random sparse matrix for a program's SpMV nodes (generator_products.cpp).
Csr random_csr(Rng& r);

struct Gen {
  Rng& r;
  const RState& st;

  // The handles (generator.cpp).
  bool live(int k) const { return st.slots[k].has_value(); }
  Shape shape_of(int k) const { return st.slots[k]->shape(); }
  DT type_of_slot(int k) const { return st.slots[k]->base->t; }
  std::vector<int> arrays() const;   // live handles of 1 to 3 dimensions
  std::vector<int> scalars() const;  // live 0-d handles
  int live_count() const;
  int pick_dst();
  // What the reference makes of an expression: accepted, its type, its shape.
  bool ok(const Expr& e) const;
  DT type(const Expr& e) const;
  Shape shape(const Expr& e) const;

  // Views (generator_views.cpp).
  static Sl sl(std::int64_t start, std::int64_t stop, std::int64_t step = 1);
  static Sl sl_end(std::int64_t start, std::int64_t step = 1);
  static Sl index(std::int64_t i);
  static Sl new_axis();
  Expr leaf_box(int k, const Shape& off, const Shape& len);
  // A random array and a launch-domain shape it can be viewed as: its own shape shrunk by 0, 1
  // or 2 in some dimensions, or halved along one (for a step), without one axis (an integer
  // index) or with a new axis of extent 1.
  int domain(Shape& S);
  // Index entries on handle k that give shape S (plain: a box of k's rank, as shifted views
  // are), or nullopt if none can.
  std::optional<Expr> view_as(int k, const Shape& S, bool plain);
  bool view_as_exists(int k, const Shape& S) const;
  // The ways index entries can take handle k's axes to S: per entry 'm' (the next axis kept, as a
  // slice), 'i' (dropped by an integer index) or 'n' (a new axis).
  std::vector<std::string> ways(int k, const Shape& S) const;
  // A view of shape S of some array (often the anchor: shifted views of one array need halos;
  // other arrays, steps and integer indices need redistribution), sometimes of a shape that
  // only broadcasts to S (unless exact); a 0-d view of an array if nothing can give S.
  Expr leaf_for(const Shape& S, int anchor, bool exact = false);
  // A shape that broadcasts to S: leading axes dropped, some axes of extent 1.
  Shape broadcast_part(const Shape& S);

  // Expressions (generator_exprs.cpp).
  Expr int_literal();
  Expr float_literal() { return float_lit(r.pick(kFloatLits)); }
  Expr literal_for(DT t);
  Expr scalar_operand();  // a 0-d operand: a named 0-d array, a 0-d view, a reduction
  Expr gen_unary(const Shape& S, int depth, int anchor);
  Expr gen_binary(const Shape& S, int depth, int anchor);
  Expr gen_where(const Shape& S, int depth, int anchor);
  Expr gen_axis_reduction(const Shape& S, int depth, int anchor);
  Expr gen_shape_op(const Shape& S, int depth, int anchor);
  // An expression whose shape broadcasts to S (mostly is S; 0-d when every operand is).
  Expr gen(const Shape& S, int depth, int anchor);
  // An expression of shape S exactly (a view if the attempt gives another shape).
  Expr gen_exact(const Shape& S, int depth, int anchor);

  // Products (generator_products.cpp).
  bool viewable(const Shape& S) const;  // some array can be viewed as S
  // An operand of shape S exactly: a view, or a temporary computed before the product.
  Expr product_operand(const Shape& S, int depth, int anchor);
  // A float64 product of shape S exactly (0-d: an inner product; 1-D: matvec, vecmat or SpMV;
  // 2-D: GEMM), or a view of shape S if none can be made.
  Expr gen_product(const Shape& S, int depth, int anchor);
  std::vector<Step> product();

  // Steps (generator.cpp).
  Step create();
  Step bind();
  Step bind_scalar();
  Step view();
  Step write(SK kind);
  std::vector<Step> propose();
  void perturb(Expr& e);
  std::vector<Step> loop();

  // Idioms (generator_idioms.cpp); each returns no steps where the state has no array for it.
  std::vector<Step> pattern();
  std::vector<Step> stencil();
  std::vector<Step> jacobi();
  std::vector<Step> center();
  std::vector<Step> nearest_centroid();
  std::vector<Step> boundary();
  std::vector<Step> red_black();
  std::vector<Step> restrict_and_prolong();
  std::vector<Step> periodic_stencil();
  std::vector<Step> outer_product();
  std::vector<Step> symmetrize();
  std::vector<Step> half_steps();
  std::vector<Step> histogram();
};

}  // namespace fuzz
