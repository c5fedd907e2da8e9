#pragma once
// View: which elements of a store an array handle or an operand sees, as an affine map from view
// coordinates to store coordinates:
//
//   store index k of view element x  =  origin[k] + sum_d map[k][d] * x[d]
//
//   a(ts::slice(1, -1))            1-D over 1-D: origin {1}, map {{1}}        (a box: the identity map)
//   a(ts::slice(0, ts::end, 2))    origin {0}, map {{2}}                      (a step)
//   A(ts::all, 3)                  1-D over 2-D: origin {0, 3}, map {{1}, {0}} (store dimension 1 fixed)
//   x(ts::all, ts::newaxis)        2-D over 1-D: origin {0}, map {{1, 0}}      (a new axis of extent 1)
//   the (1, k) row r broadcast to (n, k): origin {0, 0}, map {{0, 0}, {0, 1}} (view dimension 0 stretched)
//   the transpose of an (n, m) store: map {{0, 1}, {1, 0}}; its diagonal: map {{1}, {1}}
//
// Steps are positive (NumPy's negative steps are not offered), a stretched dimension has a zero
// column. A view is separable when every view dimension moves at most one store dimension and
// every store dimension is moved by at most one view dimension: then it induces a tiling on its
// own coordinates (partition/view.cpp), and the box of store elements a part of it reads has a
// box of view elements as its preimage. Everything the public API makes is separable; only the
// diagonal of a matrix is not (it is read, never a launch domain).

#include <array>
#include <cstdint>
#include <optional>

#include "tessera/partition/box.hpp"
#include "tessera/partition/tiling.hpp"

namespace tessera::detail {

struct View {
  int ndim = 0;        // view dimensions
  int store_ndim = 0;  // dimensions of the store it looks into
  Index3 extent{1, 1, 1};
  Index3 origin{0, 0, 0};              // store index of view element (0, 0, 0)
  std::array<Index3, kMaxDims> map{};  // map[k][d]: store dimension k per step of view dimension d

  // The identity view of a box of a store (the store's own coordinates, shifted by b.lo).
  static View of_box(const Box& b);

  std::int64_t volume() const;
  Index3 store_index(const Index3& x) const;
  // The smallest box of store elements holding the view elements of `part` (view coordinates).
  Box bounds(const Box& part) const;
  Box bounds() const { return bounds(whole()); }
  // All of the view, as a box of view coordinates.
  Box whole() const;
  // The identity map with as many dimensions as the store: the view is the box box().
  bool is_box() const;
  Box box() const { return bounds(); }
  bool separable() const;
  // Separable views: the view elements whose store element lies in `store_box`, as a view box.
  Box preimage(const Box& store_box) const;
  // Store dimension moved by view dimension d (-1: none, a new or stretched axis).
  int moved_by(int d) const;
  // Whether the view reads any store element twice (a stretched dimension of extent > 1).
  bool stretched() const;
  // The store elements that the view elements of `part` (view coordinates) are: along a stretched
  // or new axis they count once (a broadcast operand's, as a kernel fetches it).
  std::int64_t footprint(const Box& part) const;
  std::int64_t footprint() const { return footprint(whole()); }

  friend bool operator==(const View& a, const View& b) {
    return a.ndim == b.ndim && a.store_ndim == b.store_ndim && a.extent == b.extent && a.origin == b.origin &&
           a.map == b.map;
  }
  friend bool operator!=(const View& a, const View& b) { return !(a == b); }
  friend bool operator<(const View& a, const View& b);
};

// Whether two views of one store may show a common element. False where their bounding boxes do
// not meet, or (separable views) where along some store dimension their indices are residues that
// never meet: a step-2 view of the even columns and one of the odd columns (the four updates of a
// multigrid prolongation), whose boxes overlap. True otherwise (it may be a false alarm).
bool may_meet(const View& a, const View& b);

// `inner` (view coordinates -> coordinates of an array whose elements `outer` maps to a store)
// followed by `outer`: the view of outer's store that reading `outer` through `inner` amounts to.
// inner.store_ndim must be outer.ndim.
View compose(const View& outer, const View& inner);

// The tiling a separable view induces on its own coordinates: view element x lives where the
// store element it shows lives. Store dimensions a view fixes (integer indices) fix the grid
// coordinate of their tile; new and stretched axes are not cut. nullopt for views that are not
// separable.
std::optional<Tiling> induced(const Tiling& store, const View& view);

std::ostream& operator<<(std::ostream& out, const View& v);

}  // namespace tessera::detail
