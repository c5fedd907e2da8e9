// Partitions: balanced cuts, the process grid (balanced and overridden), tilings, and key-partition
// inheritance (results of expressions over views stay aligned with their inputs: halos, never a
// redistribution). Every expectation is computed on the host from first principles.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <tessera/array/store_factory.hpp>
#include <tessera/fusion/runtime_state.hpp>
#include <tessera/partition/process_grid.hpp>
#include <tessera/partition/tiling.hpp>
#include <tessera/partition/view.hpp>

#include "support.hpp"

namespace td = tessera::detail;

namespace {

// Serial reference for balanced block cuts: the first extent % parts tiles get one extra element.
std::vector<std::int64_t> reference_cuts(std::int64_t extent, int parts) {
  std::vector<std::int64_t> p{0};
  for (int i = 0; i < parts; ++i) p.push_back(p.back() + extent / parts + (i < extent % parts ? 1 : 0));
  return p;
}

// Index of the tile that holds cut coordinate x (the last one whose start is <= x).
int owner_of(const std::vector<std::int64_t>& points, std::int64_t x) {
  int k = -1;
  for (int i = 0; i + 1 < static_cast<int>(points.size()); ++i)
    if (points[i] <= x && x < points[i + 1]) k = i;
  return k;
}

// The smallest possible largest factor when nranks is written as a product of ndim factors.
int minimal_largest_factor(int nranks, int ndim) {
  if (ndim == 1) return nranks;
  int best = nranks;
  for (int f = 1; f <= nranks; ++f)
    if (nranks % f == 0) best = std::min(best, std::max(f, minimal_largest_factor(nranks / f, ndim - 1)));
  return best;
}

td::Tiling make_tiling(const std::vector<std::int64_t>& extents, const std::vector<int>& parts) {
  td::Tiling t;
  t.ndim = static_cast<int>(extents.size());
  for (int d = 0; d < t.ndim; ++d) {
    t.cuts[d] = td::balanced_cuts(extents[d], parts[d]);
    t.extent[d] = extents[d];
  }
  return t;
}

// Checks every tile of `t` (cuts over `parts`, offset, extent) against a brute-force reference:
// the tile at coordinates c holds exactly the elements i whose cut coordinate i + offset lies in
// tile c of the cuts; the tiles are disjoint and cover the extent.
::testing::AssertionResult tiles_match_reference(const td::Tiling& t, const std::vector<int>& parts) {
  std::vector<std::vector<std::int64_t>> points(t.ndim);
  for (int d = 0; d < t.ndim; ++d) points[d] = reference_cuts(t.cuts[d]->extent, parts[d]);
  td::Index3 c{0, 0, 0};
  std::int64_t covered = 0;
  const int total = std::accumulate(parts.begin(), parts.end(), 1, std::multiplies<int>());
  for (int flat = 0; flat < total; ++flat) {
    int rest = flat;
    for (int d = t.ndim - 1; d >= 0; --d) c[d] = rest % parts[d], rest /= parts[d];
    const td::Box box = t.tile(c);
    bool empty = false;
    td::Box want;
    want.ndim = t.ndim;
    for (int d = 0; d < t.ndim; ++d) {
      std::int64_t lo = -1, hi = -1;
      for (std::int64_t i = 0; i < t.extent[d]; ++i) {
        if (owner_of(points[d], i + t.offset[d]) != c[d]) continue;
        if (lo < 0) lo = i;
        if (hi >= 0 && hi != i) return ::testing::AssertionFailure() << "reference tile not contiguous";
        hi = i + 1;
      }
      if (lo < 0) empty = true;
      want.lo[d] = lo;
      want.hi[d] = hi;
    }
    if (empty) {
      if (!box.empty()) return ::testing::AssertionFailure() << "tile " << flat << " is " << box << ", want empty";
      continue;
    }
    if (box != want) return ::testing::AssertionFailure() << "tile " << flat << " is " << box << ", want " << want;
    covered += box.volume();
  }
  std::int64_t volume = 1;
  for (int d = 0; d < t.ndim; ++d) volume *= t.extent[d];
  if (covered != volume) return ::testing::AssertionFailure() << "tiles cover " << covered << " of " << volume;
  return ::testing::AssertionSuccess();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// balanced_cuts

TEST_F(TesseraTest, BalancedCutsTenOverThree) {
  auto c = td::balanced_cuts(10, 3);
  EXPECT_EQ(c->points, (std::vector<std::int64_t>{0, 4, 7, 10}));
  EXPECT_EQ(c->points, reference_cuts(10, 3));
  EXPECT_EQ(c->extent, 10);
  EXPECT_EQ(c->parts, 3);
  EXPECT_EQ(c->min_nonempty_width, 3);
}

TEST_F(TesseraTest, BalancedCutsMatchReferenceAndAreInterned) {
  for (std::int64_t extent = 0; extent <= 40; ++extent) {
    for (int parts = 1; parts <= 9; ++parts) {
      auto c = td::balanced_cuts(extent, parts);
      const auto want = reference_cuts(extent, parts);
      ASSERT_EQ(c->points, want) << extent << " over " << parts;
      std::int64_t min_width = extent;
      for (int i = 0; i < parts; ++i)
        if (want[i + 1] > want[i]) min_width = std::min(min_width, want[i + 1] - want[i]);
      EXPECT_EQ(c->min_nonempty_width, min_width) << extent << " over " << parts;
      // Widths differ by at most one: balanced.
      std::int64_t wmin = extent, wmax = 0;
      for (int i = 0; i < parts; ++i)
        wmin = std::min(wmin, want[i + 1] - want[i]), wmax = std::max(wmax, want[i + 1] - want[i]);
      EXPECT_LE(wmax - wmin, 1);
      // Interned: the same object for the same (extent, parts), a different one otherwise.
      EXPECT_EQ(td::balanced_cuts(extent, parts), c);
      EXPECT_NE(td::balanced_cuts(extent + 1, parts), c);
    }
  }
}

TEST_F(TesseraTest, BalancedCutsMorePartsThanElements) {
  for (std::int64_t extent = 0; extent < 5; ++extent) {
    const int parts = 5;
    auto c = td::balanced_cuts(extent, parts);
    ASSERT_EQ(c->points, reference_cuts(extent, parts));
    int empty = 0;
    for (int i = 0; i < parts; ++i) {
      const std::int64_t w = c->points[i + 1] - c->points[i];
      EXPECT_LE(w, 1);
      empty += w == 0;
    }
    EXPECT_EQ(empty, parts - extent);
    // Tiles over these cuts: empty tiles have no volume, the others one element each.
    td::Tiling t = make_tiling({extent}, {parts});
    EXPECT_TRUE(tiles_match_reference(t, {parts}));
  }
}

// ---------------------------------------------------------------------------------------------
// ProcessGrid

TEST_F(TesseraTest, ProcessGridFactorizationIsBalancedAndRoundTrips) {
  for (int nranks = 1; nranks <= 16; ++nranks) {
    for (int ndim = 1; ndim <= 3; ++ndim) {
      td::ProcessGrid g(ndim, nranks, {});
      ASSERT_EQ(g.ndim(), ndim);
      ASSERT_EQ(g.size(), nranks);
      long product = 1;
      for (int d = 0; d < ndim; ++d) {
        product *= g.dim(d);
        if (d > 0) {
          EXPECT_GE(g.dim(d - 1), g.dim(d)) << nranks << " ranks, " << ndim << " dims";
        }
      }
      EXPECT_EQ(product, nranks) << nranks << " ranks, " << ndim << " dims";
      EXPECT_EQ(g.dim(0), minimal_largest_factor(nranks, ndim)) << nranks << " ranks, " << ndim << " dims";
      for (int d = ndim; d < td::kMaxDims; ++d) EXPECT_EQ(g.dim(d), 1);
      for (int r = 0; r < nranks; ++r) {
        const td::Index3 c = g.coords(r);
        long row_major = 0;
        for (int d = 0; d < ndim; ++d) {
          EXPECT_GE(c[d], 0);
          EXPECT_LT(c[d], g.dim(d));
          row_major = row_major * g.dim(d) + c[d];
        }
        for (int d = ndim; d < td::kMaxDims; ++d) EXPECT_EQ(c[d], 0);
        EXPECT_EQ(row_major, r);
        EXPECT_EQ(g.rank_of(c), r);
      }
    }
  }
}

TEST_F(TesseraTest, ProcessGridHonoursRequestedGrid) {
  for (int nranks = 1; nranks <= 8; ++nranks) {
    for (const std::vector<int>& req : {std::vector<int>{nranks, 1}, std::vector<int>{1, nranks}}) {
      td::ProcessGrid g(2, nranks, req);
      EXPECT_EQ(g.dim(0), req[0]);
      EXPECT_EQ(g.dim(1), req[1]);
      for (int r = 0; r < nranks; ++r) {
        const td::Index3 c = g.coords(r);
        EXPECT_EQ(c[0], req[0] == 1 ? 0 : r);
        EXPECT_EQ(c[1], req[1] == 1 ? 0 : r);
        EXPECT_EQ(g.rank_of(c), r);
      }
    }
    // A requested grid of another number of dimensions does not apply.
    td::ProcessGrid g1(1, nranks, {1, nranks});
    EXPECT_EQ(g1.dim(0), nranks);
    td::ProcessGrid g3(3, nranks, {nranks, 1});
    long product = 1;
    for (int d = 0; d < 3; ++d) product *= g3.dim(d);
    EXPECT_EQ(product, nranks);
  }
  td::ProcessGrid g(3, 12, {2, 3, 2});
  EXPECT_EQ(g.coords(7), (td::Index3{1, 0, 1}));  // 7 = 1*6 + 0*2 + 1
  EXPECT_EQ(g.rank_of({1, 2, 1}), 1 * 6 + 2 * 2 + 1);
  try {
    td::ProcessGrid bad(2, 4, {3, 2});
    ADD_FAILURE() << "a 3x2 grid for 4 ranks was accepted";
  } catch (const ts::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("3x2"), std::string::npos) << m;
    EXPECT_NE(m.find("6"), std::string::npos) << m;
    EXPECT_NE(m.find("4"), std::string::npos) << m;
  }
}

TEST_F(TesseraTest, RuntimeGridsCoverTheJob) {
  for (int nd = 1; nd <= 3; ++nd) {
    const td::ProcessGrid& g = td::runtime().grid(nd);
    long product = 1;
    for (int d = 0; d < nd; ++d) product *= g.dim(d);
    EXPECT_EQ(product, rt().size());
    EXPECT_EQ(g.dim(0), minimal_largest_factor(rt().size(), nd));
  }
}

// Each rank's tile of a fresh array is the balanced block of the runtime's grid.
TEST_F(TesseraTest, OwnedTilesAreBalancedBlocks) {
  const std::vector<std::vector<std::int64_t>> shapes = {{10}, {3}, {13, 11}, {2, 40}, {9, 7, 6}, {1, 5, 3}};
  for (const auto& shape : shapes) {
    auto a = ts::zeros<double>(shape);
    const int nd = static_cast<int>(shape.size());
    const td::ProcessGrid& g = td::runtime().grid(nd);
    const td::Index3 c = g.coords(rt().rank());
    const td::Box owned = a.impl().store->owned();
    std::int64_t volume = 1;
    for (int d = 0; d < nd; ++d) {
      const auto p = reference_cuts(shape[d], g.dim(d));
      if (p[c[d] + 1] == p[c[d]]) {
        EXPECT_EQ(owned.extent(d), 0);
      } else {
        EXPECT_EQ(owned.lo[d], p[c[d]]);
        EXPECT_EQ(owned.hi[d], p[c[d] + 1]);
      }
      volume *= p[c[d] + 1] - p[c[d]];
    }
    EXPECT_EQ(owned.volume(), volume);
    // Tiles over all ranks cover the array exactly once.
    std::int64_t mine = owned.volume(), total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(total, a.size());
  }
}

// ---------------------------------------------------------------------------------------------
// Config::grid override

TEST_F(RowGridTest, GridOverrideAppliesToTwoDimensionalArrays) {
  const int n = rt().size();
  EXPECT_EQ(rt().config().grid, (std::vector<int>{n, 1}));
  EXPECT_EQ(td::runtime().grid(2).dim(0), n);
  EXPECT_EQ(td::runtime().grid(2).dim(1), 1);
  // Other dimensionalities keep the balanced factorization.
  EXPECT_EQ(td::runtime().grid(1).dim(0), n);
  EXPECT_EQ(td::runtime().grid(3).dim(0), minimal_largest_factor(n, 3));

  const std::int64_t rows = 13, cols = 11;
  auto a = ts::zeros<double>({rows, cols});
  const auto p = reference_cuts(rows, n);
  const td::Box owned = a.impl().store->owned();
  EXPECT_EQ(owned.volume(), (p[rt().rank() + 1] - p[rt().rank()]) * cols);
  if (owned.volume() > 0) {
    EXPECT_EQ(owned.lo[0], p[rt().rank()]);
    EXPECT_EQ(owned.hi[0], p[rt().rank() + 1]);
    EXPECT_EQ(owned.lo[1], 0);
    EXPECT_EQ(owned.hi[1], cols);
  }

  // A shifted 2-D expression under this grid is right and needs no redistribution.
  const auto h = host_values(rows * cols, 3);
  auto u = ts::from_host<double>({rows, cols}, h);
  reset_stats_now(rt());
  auto r = u(ts::slice(1, ts::end), ts::all) - 3.0 * u(ts::slice(0, -1), ts::all);
  std::vector<double> want;
  for (std::int64_t i = 1; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) want.push_back(h[i * cols + j] - 3.0 * h[(i - 1) * cols + j]);
  EXPECT_TRUE(close(r.to_host(), want));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).halo_exchanges, 0);
  }
}

TEST_F(ColumnGridTest, GridOverrideSplitsColumns) {
  const int n = rt().size();
  EXPECT_EQ(td::runtime().grid(2).dim(0), 1);
  EXPECT_EQ(td::runtime().grid(2).dim(1), n);
  const std::int64_t rows = 5, cols = 17;
  const auto h = host_values(rows * cols, 4);
  auto u = ts::from_host<double>({rows, cols}, h);
  const auto p = reference_cuts(cols, n);
  const td::Box owned = u.impl().store->owned();
  EXPECT_EQ(owned.volume(), (p[rt().rank() + 1] - p[rt().rank()]) * rows);
  reset_stats_now(rt());
  auto r = u(ts::all, ts::slice(0, -2)) + u(ts::all, ts::slice(2, ts::end));
  std::vector<double> want;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols - 2; ++j) want.push_back(h[i * cols + j] + h[i * cols + j + 2]);
  EXPECT_TRUE(close(r.to_host(), want));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).halo_exchanges, 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Tiling

TEST_F(TesseraTest, TilingTilesMatchReference) {
  EXPECT_TRUE(tiles_match_reference(make_tiling({10}, {3}), {3}));
  EXPECT_TRUE(tiles_match_reference(make_tiling({13, 11}, {3, 2}), {3, 2}));
  EXPECT_TRUE(tiles_match_reference(make_tiling({9, 7, 6}, {2, 2, 1}), {2, 2, 1}));
  EXPECT_TRUE(tiles_match_reference(make_tiling({2, 40}, {4, 1}), {4, 1}));
  // The documented example: 10 elements on 3 ranks, rank 1 owns [4, 7).
  td::Tiling t = make_tiling({10}, {3});
  td::Box b = t.tile({1, 0, 0});
  EXPECT_EQ(b.lo[0], 4);
  EXPECT_EQ(b.hi[0], 7);
}

TEST_F(TesseraTest, TilingRestrictedMatchesReference) {
  // Every window of a 1-D tiling over several part counts.
  for (int parts = 1; parts <= 5; ++parts) {
    td::Tiling t = make_tiling({11}, {parts});
    for (std::int64_t lo = 0; lo <= 11; ++lo) {
      for (std::int64_t hi = lo; hi <= 11; ++hi) {
        td::Tiling r = t.restricted({lo, 0, 0}, {hi - lo, 1, 1});
        EXPECT_EQ(r.offset[0], lo);
        EXPECT_EQ(r.extent[0], hi - lo);
        EXPECT_TRUE(r.same_cuts(t));
        EXPECT_TRUE(tiles_match_reference(r, {parts})) << "window [" << lo << ", " << hi << ") over " << parts;
      }
    }
  }
  // 2-D and 3-D windows; a restriction of a restriction composes offsets.
  td::Tiling t2 = make_tiling({13, 11}, {2, 2});
  td::Tiling r2 = t2.restricted({2, 1, 0}, {9, 8, 1});
  EXPECT_TRUE(tiles_match_reference(r2, {2, 2}));
  td::Tiling rr = r2.restricted({1, 3, 0}, {6, 4, 1});
  EXPECT_EQ(rr.offset, (td::Index3{3, 4, 0}));
  EXPECT_TRUE(rr.aligned(t2.restricted({3, 4, 0}, {6, 4, 1})));
  EXPECT_TRUE(tiles_match_reference(rr, {2, 2}));
  td::Tiling t3 = make_tiling({9, 7, 6}, {3, 1, 2});
  EXPECT_TRUE(tiles_match_reference(t3.restricted({1, 2, 3}, {7, 4, 3}), {3, 1, 2}));
}

TEST_F(TesseraTest, TilingAlignedAndSameCuts) {
  td::Tiling a = make_tiling({13, 11}, {2, 2});
  td::Tiling b = make_tiling({13, 11}, {2, 2});  // interned cuts: the same objects
  EXPECT_TRUE(a.same_cuts(b));
  EXPECT_TRUE(a.aligned(b));
  td::Tiling va = a.restricted({1, 1, 0}, {11, 9, 1});
  td::Tiling vb = b.restricted({1, 1, 0}, {11, 9, 1});
  EXPECT_TRUE(va.aligned(vb));
  // Shifted: same cuts, different offset -> not aligned (a halo).
  td::Tiling shifted = a.restricted({0, 1, 0}, {11, 9, 1});
  EXPECT_TRUE(shifted.same_cuts(va));
  EXPECT_FALSE(shifted.aligned(va));
  // Same offset, different extent -> not aligned.
  td::Tiling shorter = a.restricted({1, 1, 0}, {10, 9, 1});
  EXPECT_FALSE(shorter.aligned(va));
  // Different cuts (another extent or another part count) -> neither.
  td::Tiling other = make_tiling({14, 11}, {2, 2});
  EXPECT_FALSE(other.same_cuts(a));
  EXPECT_FALSE(other.restricted({1, 1, 0}, {11, 9, 1}).aligned(va));
  td::Tiling parts = make_tiling({13, 11}, {4, 1});
  EXPECT_FALSE(parts.same_cuts(a));
  // Different number of dimensions.
  td::Tiling one = make_tiling({13}, {2});
  EXPECT_FALSE(one.same_cuts(a));
  EXPECT_FALSE(one.aligned(a));
  // matches() is aligned() on a grid of any size: the cuts objects, offsets and extents agree.
  EXPECT_TRUE(va.matches(vb));
  EXPECT_FALSE(shifted.matches(va));
  EXPECT_FALSE(shorter.matches(va));
}

TEST_F(TesseraTest, ADimensionDealtIntoOnePartIsWholeWhereverItsViewStarts) {
  // Rows over 2 parts, columns over 1: every rank that holds a row holds all its columns.
  td::Tiling a = make_tiling({13, 11}, {2, 1});
  td::Tiling left = a.restricted({1, 0, 0}, {11, 10, 1}), right = a.restricted({1, 1, 0}, {11, 10, 1});
  EXPECT_TRUE(left.aligned(right));                                  // shifted along the whole dimension: placed alike
  EXPECT_FALSE(left.matches(right));                                 // but not on a grid that cuts the columns
  EXPECT_FALSE(a.restricted({0, 0, 0}, {11, 10, 1}).aligned(left));  // shifted along the cut one
  // An uncut dimension and one dealt into one part (another extent's cuts) are placed alike too.
  td::Tiling fresh = make_tiling({11, 10}, {2, 1});
  fresh.cuts[1] = nullptr;
  EXPECT_FALSE(fresh.aligned(left));  // the rows' cuts differ (13 rows against 11)
  td::Tiling fresh_rows = a.restricted({0, 0, 0}, {13, 10, 1});
  td::Tiling uncut = fresh_rows;
  uncut.cuts[1] = nullptr;
  EXPECT_TRUE(uncut.aligned(a.restricted({0, 1, 0}, {13, 10, 1})));
  // Whole against cut: not alike, whatever the offsets.
  EXPECT_FALSE(make_tiling({13, 11}, {2, 2}).aligned(a));
  // The tiles agree with that: both hold rows alike and every column.
  for (int c = 0; c < 2; ++c) {
    const td::Box l = left.tile({c, 0, 0}), r = right.tile({c, 0, 0});
    EXPECT_EQ(l.lo[0], r.lo[0]);
    EXPECT_EQ(l.hi[0], r.hi[0]);
    EXPECT_EQ(l.extent(1), 10);
    EXPECT_EQ(r.extent(1), 10);
  }
}

// ---------------------------------------------------------------------------------------------
// Key-partition inheritance

TEST_F(TesseraTest, ShiftedViewsOfTwoArraysNeedOnlyHalos) {
  const std::int64_t n = 37;
  const auto ha = host_values(n, 1), hb = host_values(n, 2);
  auto a = ts::from_host<double>({n}, ha);
  auto b = ts::from_host<double>({n}, hb);
  reset_stats_now(rt());
  auto c = a(ts::slice(1, -1)) + b(ts::slice(0, -2));
  std::vector<double> want;
  for (std::int64_t i = 0; i < n - 2; ++i) want.push_back(ha[i + 1] + hb[i]);
  EXPECT_TRUE(close(c.to_host(), want));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).halo_exchanges, 0);
  }

  // c lives where a(1:-1) lives: its tiling is a's, restricted to the view.
  const td::Tiling expect = a.impl().store->tiling().restricted({1, 0, 0}, {n - 2, 1, 1});
  EXPECT_TRUE(c.impl().store->tiling().aligned(expect));
  const td::Box owned = c.impl().store->owned();
  const td::Box tile = expect.tile(td::runtime().grid(1).coords(rt().rank()));
  EXPECT_EQ(owned.volume(), tile.volume());
  if (!tile.empty()) {
    EXPECT_EQ(owned, tile);
  }
}

TEST_F(TesseraTest, ChainOverViewsAddsNoCommunication) {
  const std::int64_t n = 41;
  const auto ha = host_values(n, 5), hb = host_values(n, 6);
  auto a = ts::from_host<double>({n}, ha);
  auto b = ts::from_host<double>({n}, hb);
  reset_stats_now(rt());
  auto c = a(ts::slice(1, -1)) + b(ts::slice(0, -2));
  const ts::Stats after_first = stats_now(rt());
  // Everything below is over c or over the same view a(1:-1): aligned, no communication.
  auto d = c * c + 2.0 * c;
  auto e = ts::sqrt(ts::abs(d)) - c / 3.0;
  auto f = ts::where(e > 0.0, e, d) + a(ts::slice(1, -1));
  auto g = ts::maximum(f, c) * a(ts::slice(1, -1));
  const ts::Stats after_chain = stats_now(rt());
  EXPECT_EQ(after_chain.redistributions, 0);
  EXPECT_EQ(after_chain.halo_exchanges, after_first.halo_exchanges);
  EXPECT_EQ(after_chain.halo_bytes, after_first.halo_bytes);
  for (const auto* x : {&d, &e, &f, &g}) EXPECT_TRUE(x->impl().store->tiling().aligned(c.impl().store->tiling()));

  std::vector<double> want;
  for (std::int64_t i = 0; i < n - 2; ++i) {
    const double ci = ha[i + 1] + hb[i];
    const double di = ci * ci + 2.0 * ci;
    const double ei = std::sqrt(std::abs(di)) - ci / 3.0;
    const double fi = (ei > 0.0 ? ei : di) + ha[i + 1];
    want.push_back(std::max(fi, ci) * ha[i + 1]);
  }
  EXPECT_TRUE(close(g.to_host(), want));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
}

TEST_F(TesseraTest, TwoDimensionalLaplacianAndAssignNeedOnlyHalos) {
  const std::int64_t n = 13, m = 11;
  auto h = host_values(n * m, 7);
  auto u = ts::from_host<double>({n, m}, h);
  const auto in = ts::slice(1, -1);
  reset_stats_now(rt());
  auto lap = u(ts::slice(0, -2), in) + u(ts::slice(2, ts::end), in) + u(in, ts::slice(0, -2)) +
             u(in, ts::slice(2, ts::end)) - 4.0 * u(in, in);
  // lap inherits the tiling of its key view u(0:-2, 1:-1).
  EXPECT_TRUE(lap.impl().store->tiling().aligned(u.impl().store->tiling().restricted({0, 1, 0}, {n - 2, m - 2, 1})));
  auto more = lap * lap - lap;  // aligned with lap
  u(in, in) += 0.1 * lap;
  u(in, in).assign(u(in, in) + 0.01 * more);
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).halo_exchanges, 0);
  }

  auto at = [&](std::int64_t i, std::int64_t j) { return h[i * m + j]; };
  std::vector<double> want = h;
  for (std::int64_t i = 1; i < n - 1; ++i) {
    for (std::int64_t j = 1; j < m - 1; ++j) {
      const double l = at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4.0 * at(i, j);
      const double mo = l * l - l;
      const double v = at(i, j) + 0.1 * l;
      want[i * m + j] = v + 0.01 * mo;
    }
  }
  EXPECT_TRUE(close(u.to_host(), want));
}

TEST_F(TesseraTest, HaloIsReusedUntilTheStoreIsWritten) {
  const std::int64_t n = 29;
  auto h = host_values(n, 8);
  auto a = ts::from_host<double>({n}, h);
  reset_stats_now(rt());
  auto b1 = a(ts::slice(1, ts::end)) + a(ts::slice(0, -1));
  const std::int64_t first = stats_now(rt()).halo_exchanges;
  if (rt().size() > 1) {
    EXPECT_GT(first, 0);
  }
  // The same halo again: already valid, nothing is exchanged.
  auto b2 = a(ts::slice(1, ts::end)) - a(ts::slice(0, -1));
  EXPECT_EQ(stats_now(rt()).halo_exchanges, first);
  std::vector<double> w1, w2;
  for (std::int64_t i = 0; i + 1 < n; ++i) w1.push_back(h[i + 1] + h[i]), w2.push_back(h[i + 1] - h[i]);
  EXPECT_TRUE(close(b1.to_host(), w1));
  EXPECT_TRUE(close(b2.to_host(), w2));

  // A write through a view that spans every tile boundary invalidates the halo: the next shifted
  // read must see the new values, not stale ghosts.
  a(ts::slice(2, n - 2)) *= -2.0;
  for (std::int64_t i = 2; i < n - 2; ++i) h[i] *= -2.0;
  auto b3 = a(ts::slice(1, ts::end)) + a(ts::slice(0, -1));
  if (rt().size() > 1) {
    EXPECT_GT(stats_now(rt()).halo_exchanges, first);
  }
  std::vector<double> w3;
  for (std::int64_t i = 0; i + 1 < n; ++i) w3.push_back(h[i + 1] + h[i]);
  EXPECT_TRUE(close(b3.to_host(), w3));

  // Growing the ghosts keeps everything right.
  auto b4 = a(ts::slice(3, ts::end)) - a(ts::slice(0, -3)) + a(ts::slice(2, -1));
  std::vector<double> w4;
  for (std::int64_t i = 0; i + 3 < n; ++i) w4.push_back(h[i + 3] - h[i] + h[i + 2]);
  EXPECT_TRUE(close(b4.to_host(), w4));
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
}

TEST_F(TesseraTest, ViewsOfResultsStayAligned) {
  const std::int64_t n = 9, m = 7, k = 6;
  auto h = host_values(n * m * k, 9);
  auto u = ts::from_host<double>({n, m, k}, h);
  reset_stats_now(rt());
  const auto in = ts::slice(1, -1);
  auto c = u(in, in, in) * 2.0;
  // A view of the result and the same view of u are aligned: no communication.
  const ts::Stats before = stats_now(rt());
  auto d = c(ts::slice(1, ts::end), ts::all, ts::all) + u(ts::slice(2, -1), in, in);
  EXPECT_EQ(stats_now(rt()).halo_exchanges, before.halo_exchanges);
  EXPECT_EQ(stats_now(rt()).redistributions, 0);
  std::vector<double> want;
  for (std::int64_t i = 2; i < n - 1; ++i)
    for (std::int64_t j = 1; j < m - 1; ++j)
      for (std::int64_t l = 1; l < k - 1; ++l) want.push_back(h[(i * m + j) * k + l] * 2.0 + h[(i * m + j) * k + l]);
  EXPECT_TRUE(close(d.to_host(), want));
}

// new_array_like's shortcut: where induces_own_tiling holds, the view induces the store's own
// tiling field by field (the result gets it without recomputing). It holds for new arrays and
// the results of ops on them, on any grid, and not for views other than the whole store.
TEST_F(TesseraTest, WholeStoresInduceTheirOwnTiling) {
  const auto same = [](const td::Tiling& a, const td::Tiling& b) {
    return a.ndim == b.ndim && a.grid == b.grid && a.cuts == b.cuts && a.axis == b.axis && a.offset == b.offset &&
           a.step == b.step && a.extent == b.extent && a.fixed == b.fixed;
  };
  auto x = ts::random<double>({13}, 1);
  auto m = ts::random<double>({7, 9}, 2);
  auto c = ts::random<double>({5, 4, 6}, 3);
  const std::vector<ts::Array<double>> whole = {x,
                                                m,
                                                c,
                                                x + 1.0,
                                                m * m,
                                                ts::copy(x(ts::slice(1, -1))),
                                                ts::copy(m(ts::slice(0, ts::end, 2), ts::all)),
                                                ts::copy(m(ts::all, 3)),
                                                ts::copy(c(ts::all, 2, ts::slice(1, 5, 3))),
                                                ts::copy(ts::transpose(m)),
                                                ts::concatenate({x, x}),
                                                ts::roll(m, 2, 1)};
  int own = 0;
  for (const auto& a : whole) {
    const td::ArrayRef& r = a.impl();
    if (!td::induces_own_tiling(r)) continue;
    ++own;
    const std::optional<td::Tiling> t = td::induced(r.store->tiling(), r.view);
    ASSERT_TRUE(t.has_value());
    EXPECT_TRUE(same(*t, r.store->tiling())) << "shape " << ts::detail::shape_string(r.shape());
  }
  EXPECT_GE(own, 5);  // at least the new arrays and the ops' results
  for (const auto* a : {&x, &m, &c}) EXPECT_TRUE(td::induces_own_tiling((*a + 1.0).impl()));
  for (const auto& view : {x(ts::slice(1, -1)), m(ts::all, ts::slice(0, ts::end, 2)), m(ts::slice(0, 6), ts::all),
                           c(ts::all, ts::newaxis, ts::all, 0)})
    EXPECT_FALSE(td::induces_own_tiling(view.impl())) << view.impl().view;
}

namespace {

// A view of a 12 x 12 store: rows origin0 + step0 * x (or the one row origin0 where step0 is 0,
// the view then 1-D along the columns), columns likewise.
td::View grid_view(std::int64_t origin0, std::int64_t step0, std::int64_t count0, std::int64_t origin1,
                   std::int64_t step1, std::int64_t count1) {
  td::View v;
  v.store_ndim = 2;
  v.origin = {origin0, origin1, 0};
  int d = 0;
  if (step0 > 0) v.map[0][d] = step0, v.extent[d++] = count0;
  v.map[1][d] = step1, v.extent[d++] = count1;
  v.ndim = d;
  return v;
}

std::set<std::pair<std::int64_t, std::int64_t>> elements_of(const td::View& v) {
  std::set<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t x = 0; x < v.extent[0]; ++x)
    for (std::int64_t y = 0; y < v.extent[1]; ++y) {
      const td::Index3 k = v.store_index({x, y, 0});
      out.insert({k[0], k[1]});
    }
  return out;
}

}  // namespace

// may_meet (partition/view.hpp) never says two views are apart when they share an element, and
// where their steps agree along each dimension it is exact (a step-2 view of the even columns
// and one of the odd columns: apart, though their bounding boxes meet). Against the elements
// enumerated on the host, for every pair of a few hundred views.
TEST_F(TesseraTest, ViewsMayMeetExactlyWhereTheirStepsAllow) {
  std::vector<td::View> views;
  std::vector<std::array<std::int64_t, 2>> steps;
  const std::int64_t n = 12;
  for (std::int64_t s0 : {0, 1, 2, 3})
    for (std::int64_t s1 : {1, 2, 3})
      for (std::int64_t o0 = 0; o0 < 4; ++o0)
        for (std::int64_t o1 = 0; o1 < 4; ++o1) {
          const std::int64_t c0 = s0 == 0 ? 1 : (n - 1 - o0) / s0 + 1 - (o0 + o1) % 2;  // some short ones
          const std::int64_t c1 = (n - 1 - o1) / s1 + 1 - o0 % 2;
          views.push_back(grid_view(s0 == 0 ? (o0 + 3 * o1) % n : o0, s0, c0, o1, s1, c1));
          steps.push_back({s0, s1});
        }
  std::vector<std::set<std::pair<std::int64_t, std::int64_t>>> elements;
  for (const td::View& v : views) elements.push_back(elements_of(v));
  int apart = 0, exact = 0;
  for (std::size_t a = 0; a < views.size(); ++a)
    for (std::size_t b = 0; b < views.size(); ++b) {
      bool share = false;
      for (const auto& e : elements[a]) share = share || elements[b].count(e) > 0;
      const bool meet = td::may_meet(views[a], views[b]);
      ASSERT_TRUE(meet || !share) << views[a] << " and " << views[b] << " share an element";
      if (steps[a] == steps[b] && steps[a][0] > 0) {
        EXPECT_EQ(meet, share) << views[a] << " and " << views[b];
        ++exact;
      }
      apart += !meet;
    }
  EXPECT_GT(exact, 1000);
  EXPECT_GT(apart, 1000);
}
