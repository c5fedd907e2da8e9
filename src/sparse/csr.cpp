// Building a CsrMatrix: the input checked (one error, the same on every rank), the rows moved to
// their tile, split into the owned and ghost blocks, and the image of the column indices worked
// out once: each rank names the entries of x it needs to their owners in one all-to-all.

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "tessera/array/store_factory.hpp"
#include "tessera/comm/agreement.hpp"
#include "tessera/core/error.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/sparse/csr.hpp"
#include "tessera/sparse/csr_data.hpp"

namespace tessera::detail {
namespace {

// A block of rows on the host, column indices global.
struct HostRows {
  std::int64_t first = 0;
  std::vector<std::int64_t> ptr{0};
  std::vector<std::int64_t> col;
  std::vector<char> val;
  std::int64_t count() const { return static_cast<std::int64_t>(ptr.size()) - 1; }
};

void check_shape(const char* what, const Shape& shape) {
  if (shape.size() != 2 || shape[0] < 0 || shape[1] < 0)
    raise(what, ": a sparse matrix has a shape of two non-negative extents, got ", shape_string(shape));
}

// What is wrong with the rows [first, first + indptr.size() - 1) of a matrix of `cols` columns
// ("" if nothing): indptr starts at 0, never decreases and ends at the number of indices and values;
// each row's column indices are in range, sorted and unique.
std::string check_block(std::int64_t first, std::int64_t cols, const std::vector<std::int64_t>& indptr,
                        const std::vector<std::int64_t>& indices, std::size_t values) {
  if (indptr.empty()) return "indptr is empty; a block of k rows has k + 1 entries (no rows: {0})";
  if (indptr[0] != 0) return concat("indptr[0] is ", indptr[0], "; it must be 0");
  const std::int64_t n = static_cast<std::int64_t>(indptr.size()) - 1;
  for (std::int64_t i = 0; i < n; ++i)
    if (indptr[i + 1] < indptr[i])
      return concat("indptr is not monotone: indptr[", i, "] = ", indptr[i], " > indptr[", i + 1, "] = ", indptr[i + 1],
                    " (row ", first + i, ")");
  if (indptr[n] != static_cast<std::int64_t>(indices.size()) || indices.size() != values)
    return concat("indptr ends at ", indptr[n], ", but there are ", indices.size(), " column indices and ", values,
                  " values; the three must agree");
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = indptr[i]; k < indptr[i + 1]; ++k) {
      if (indices[k] < 0 || indices[k] >= cols)
        return concat("row ", first + i, ": column index ", indices[k], " is out of range for a matrix of ", cols,
                      " columns");
      if (k > indptr[i] && indices[k] <= indices[k - 1])
        return concat("row ", first + i, ": column indices must be sorted and unique, but ", indices[k], " follows ",
                      indices[k - 1]);
    }
  return "";
}

// The rows [lo, hi) of a whole CSR.
HostRows rows_of(std::int64_t lo, std::int64_t hi, const std::vector<std::int64_t>& indptr,
                 const std::vector<std::int64_t>& indices, const char* values, int esize) {
  HostRows r;
  r.first = lo;
  for (std::int64_t i = lo; i < hi; ++i) r.ptr.push_back(indptr[i + 1] - indptr[lo]);
  r.col.assign(indices.begin() + indptr[lo], indices.begin() + indptr[hi]);
  r.val.assign(values + indptr[lo] * esize, values + indptr[hi] * esize);
  return r;
}

int as_count(std::int64_t n, const char* what) {
  if (n > INT_MAX) raise("csr_from_rows: ", what, " of more than 2^31 - 1 elements between two ranks");
  return static_cast<int>(n);
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) d[i] = d[i - 1] + counts[i - 1];
  return d;
}

// Each rank's rows from the blocks the ranks gave (in rank order) to the balanced tiles: one
// all-to-all of row lengths, column indices and values.
HostRows to_tiles(const HostRows& mine, const Cuts& cuts, int esize, MPI_Comm comm) {
  const int nranks = cuts.parts;
  int me = 0;
  MPI_Comm_rank(comm, &me);
  std::vector<int> send_rows(nranks, 0), send_nnz(nranks, 0);
  std::vector<std::int64_t> lengths;
  for (int q = 0; q < nranks; ++q) {
    const std::int64_t lo = std::max(mine.first, cuts.points[q]),
                       hi = std::min(mine.first + mine.count(), cuts.points[q + 1]);
    if (lo >= hi) continue;
    send_rows[q] = as_count(hi - lo, "rows");
    send_nnz[q] = as_count(mine.ptr[hi - mine.first] - mine.ptr[lo - mine.first], "entries");
    for (std::int64_t i = lo; i < hi; ++i) lengths.push_back(mine.ptr[i - mine.first + 1] - mine.ptr[i - mine.first]);
  }
  std::vector<int> recv_rows(nranks), recv_nnz(nranks);
  MPI_Alltoall(send_rows.data(), 1, MPI_INT, recv_rows.data(), 1, MPI_INT, comm);
  MPI_Alltoall(send_nnz.data(), 1, MPI_INT, recv_nnz.data(), 1, MPI_INT, comm);
  HostRows out;
  out.first = cuts.points[me];
  std::vector<std::int64_t> in_lengths(cuts.points[me + 1] - cuts.points[me]);
  MPI_Alltoallv(lengths.data(), send_rows.data(), displacements(send_rows).data(), MPI_INT64_T, in_lengths.data(),
                recv_rows.data(), displacements(recv_rows).data(), MPI_INT64_T, comm);
  std::int64_t nnz = 0;
  for (int c : recv_nnz) nnz += c;
  out.col.resize(nnz);
  MPI_Alltoallv(mine.col.data(), send_nnz.data(), displacements(send_nnz).data(), MPI_INT64_T, out.col.data(),
                recv_nnz.data(), displacements(recv_nnz).data(), MPI_INT64_T, comm);
  std::vector<int> send_bytes(nranks), recv_bytes(nranks);
  for (int q = 0; q < nranks; ++q) {
    send_bytes[q] = as_count(std::int64_t(send_nnz[q]) * esize, "values");
    recv_bytes[q] = as_count(std::int64_t(recv_nnz[q]) * esize, "values");
  }
  out.val.resize(nnz * esize);
  MPI_Alltoallv(mine.val.data(), send_bytes.data(), displacements(send_bytes).data(), MPI_BYTE, out.val.data(),
                recv_bytes.data(), displacements(recv_bytes).data(), MPI_BYTE, comm);
  for (std::int64_t len : in_lengths) out.ptr.push_back(out.ptr.back() + len);
  return out;
}

template <class T>
Kokkos::View<T*, MemSpace> on_device(const std::vector<T>& host, const char* label) {
  Kokkos::View<T*, MemSpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), host.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()));
  return d;
}

// Row pointers as narrow as the block's nonzeros allow (every pointer is at most their count).
void set_row_pointers(CsrBlock& b, const std::vector<std::int64_t>& ptr) {
  b.row_width = column_index_width(ptr.back() + 1);
  if (b.row_width == IndexWidth::Int32)
    b.ptr32 = on_device(std::vector<std::int32_t>(ptr.begin(), ptr.end()), "tessera::csr[ptr]");
  else
    b.ptr64 = on_device(ptr, "tessera::csr[ptr]");
}

// A block on the device, its column indices as narrow as its local column space of `extent`
// columns allows; `compressed`: only the rows with entries are kept (csr_data.hpp).
CsrBlock device_block(const std::vector<std::int64_t>& ptr, const std::vector<std::int64_t>& col,
                      const std::vector<char>& val, std::int64_t extent, bool compressed) {
  CsrBlock b;
  b.compressed = compressed;
  if (compressed) {
    std::vector<std::int64_t> kept{0}, rows;
    for (std::size_t i = 0; i + 1 < ptr.size(); ++i)
      if (ptr[i + 1] > ptr[i]) {
        rows.push_back(static_cast<std::int64_t>(i));
        kept.push_back(ptr[i + 1]);
      }
    set_row_pointers(b, kept);
    b.rows = on_device(rows, "tessera::csr[rows]");
  } else {
    set_row_pointers(b, ptr);
  }
  b.width = column_index_width(extent);
  if (b.width == IndexWidth::Int32)
    b.col32 = on_device(std::vector<std::int32_t>(col.begin(), col.end()), "tessera::csr[col]");
  else
    b.col64 = on_device(col, "tessera::csr[col]");
  b.val = on_device(val, "tessera::csr[val]");
  return b;
}

Kokkos::View<std::int64_t*, MemSpace> widened(const Kokkos::View<std::int32_t*, MemSpace>& from) {
  Kokkos::View<std::int64_t*, MemSpace> to(Kokkos::view_alloc(Kokkos::WithoutInitializing, from.label()),
                                           from.extent(0));
  Kokkos::parallel_for(
      "tessera::csr[widen]", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, from.extent(0)),
      KOKKOS_LAMBDA(std::int64_t k) { to(k) = from(k); });
  fence("tessera::csr[widen]");
  return to;
}

CsrBlock widened(const CsrBlock& b, bool rows, bool columns) {
  CsrBlock w = b;
  if (rows && b.row_width == IndexWidth::Int32) {
    w.row_width = IndexWidth::Int64;
    w.ptr64 = widened(b.ptr32);
    w.ptr32 = {};
  }
  if (columns && b.width == IndexWidth::Int32) {
    w.width = IndexWidth::Int64;
    w.col64 = widened(b.col32);
    w.col32 = {};
  }
  return w;
}

// The image plan of this rank's rows (the entries of x they reference outside x's tile here),
// and the rows split into the owned and ghost blocks.
std::shared_ptr<const CsrData> build(DType type, const Shape& shape, std::int64_t nnz, const HostRows& rows,
                                     MPI_Comm comm) {
  RuntimeState& rt = runtime();
  const int esize = size_of(type);
  auto a = std::make_shared<CsrData>();
  a->type = type;
  a->rows = shape[0], a->cols = shape[1], a->nnz = nnz;
  a->row_tiling = balanced_tiling({a->rows}, "a sparse matrix's rows");
  a->col_tiling = balanced_tiling({a->cols}, "a sparse matrix's columns");
  a->local_rows = rows.count();
  const Box mine = a->col_tiling.tile(rt.grid(1).coords(rt.rank()));
  const std::int64_t lo = mine.lo[0], hi = mine.hi[0];

  std::vector<std::int64_t> ghosts;
  for (std::int64_t c : rows.col)
    if (c < lo || c >= hi) ghosts.push_back(c);
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());

  // Ghosts are sorted, owners' tiles ascending: each owner's entries are one run, in rank order.
  const int nranks = rt.size();
  const Cuts& cuts = *a->col_tiling.cuts[0];
  std::vector<int> need(nranks, 0), give(nranks, 0);
  for (std::int64_t c : ghosts) need[cuts.tile_of(c)]++;
  MPI_Alltoall(need.data(), 1, MPI_INT, give.data(), 1, MPI_INT, comm);
  std::int64_t sent = 0;
  for (int g : give) sent += g;
  std::vector<std::int64_t> wanted(sent);
  MPI_Alltoallv(ghosts.data(), need.data(), displacements(need).data(), MPI_INT64_T, wanted.data(), give.data(),
                displacements(give).data(), MPI_INT64_T, comm);
  auto plan = std::make_shared<ImagePlan>();
  plan->tiling = a->col_tiling;
  plan->ghosts = static_cast<std::int64_t>(ghosts.size());
  for (int q = 0; q < nranks; ++q) {
    if (need[q] > 0) plan->receives.push_back({q, need[q]});
    if (give[q] > 0) plan->sends.push_back({q, give[q]});
  }
  for (std::int64_t& c : wanted) c -= lo;  // positions in this rank's tile of x
  plan->send_index = on_device(wanted, "tessera::csr[image]");
  std::int64_t total = plan->ghosts;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, comm);
  plan->total_ghosts = total;
  a->image = plan;

  std::vector<std::int64_t> optr{0}, ocol, gptr{0}, gcol;
  std::vector<char> oval, gval, diagonal(rows.count() * esize, 0);
  for (std::int64_t i = 0; i < rows.count(); ++i) {
    for (std::int64_t k = rows.ptr[i]; k < rows.ptr[i + 1]; ++k) {
      const std::int64_t c = rows.col[k];
      const char* v = rows.val.data() + k * esize;
      if (c == rows.first + i) std::memcpy(diagonal.data() + i * esize, v, esize);
      const bool owned = c >= lo && c < hi;
      (owned ? ocol : gcol)
          .push_back(owned ? c - lo : std::lower_bound(ghosts.begin(), ghosts.end(), c) - ghosts.begin());
      std::vector<char>& val = owned ? oval : gval;
      val.insert(val.end(), v, v + esize);
    }
    optr.push_back(static_cast<std::int64_t>(ocol.size()));
    gptr.push_back(static_cast<std::int64_t>(gcol.size()));
  }
  a->owned = device_block(optr, ocol, oval, hi - lo, false);
  a->ghost = device_block(gptr, gcol, gval, plan->ghosts, true);
  a->diagonal = on_device(diagonal, "tessera::csr[diagonal]");
  return a;
}

}  // namespace

std::shared_ptr<const CsrData> csr_from_host_bytes(DType type, const Shape& shape,
                                                   const std::vector<std::int64_t>& indptr,
                                                   const std::vector<std::int64_t>& indices, const char* values,
                                                   std::size_t count) {
  RuntimeState& rt = runtime();
  check_shape("csr_from_host", shape);
  if (static_cast<std::int64_t>(indptr.size()) != shape[0] + 1)
    raise("csr_from_host: indptr has ", indptr.size(), " entries, but a matrix of ", shape[0], " rows needs ",
          shape[0] + 1);
  const std::string bad = check_block(0, shape[1], indptr, indices, count);
  if (!bad.empty()) raise("csr_from_host: ", bad);
  const Cuts& cuts = *balanced_tiling({shape[0]}, "csr_from_host").cuts[0];
  const int me = rt.rank();
  Collective collective;
  return build(type, shape, static_cast<std::int64_t>(indices.size()),
               rows_of(cuts.points[me], cuts.points[me + 1], indptr, indices, values, size_of(type)),
               collective.comm());
}

std::shared_ptr<const CsrData> csr_from_rows_bytes(DType type, const Shape& shape, std::int64_t first_row,
                                                   const std::vector<std::int64_t>& indptr,
                                                   const std::vector<std::int64_t>& indices, const char* values,
                                                   std::size_t count) {
  runtime();
  check_shape("csr_from_rows", shape);
  Collective collective;
  const int me = collective.rank(), nranks = runtime().size();
  std::string bad = check_block(first_row, shape[1], indptr, indices, count);
  if (bad.empty() && first_row < 0) bad = concat("first_row is ", first_row, "; rows count from 0");
  const std::string first_bad = collective.agree(bad.empty() ? "" : concat("rank ", me, "'s block: ", bad));
  if (!first_bad.empty()) raise("csr_from_rows: ", first_bad);

  // The blocks, in rank order, must cover [0, rows) once.
  const std::int64_t block[2] = {first_row, static_cast<std::int64_t>(indptr.size()) - 1};
  std::vector<std::int64_t> blocks(2 * nranks);
  MPI_Allgather(block, 2, MPI_INT64_T, blocks.data(), 2, MPI_INT64_T, collective.comm());
  std::int64_t end = 0, nnz = 0;
  int last = -1;  // the last rank with rows so far
  const char* rule = "csr_from_rows: the ranks' blocks must cover the rows once, in rank order, but rows [";
  for (int r = 0; r < nranks; ++r) {
    if (blocks[2 * r + 1] == 0) continue;  // no rows: wherever it says it starts
    const std::int64_t start = blocks[2 * r], stop = start + blocks[2 * r + 1];
    const std::string before =
        last < 0 ? std::string("no rank before has rows") : concat("rank ", last, "'s block ends at row ", end);
    if (start > end)
      raise(rule, end, ", ", start, ") are in no block: ", before, " and rank ", r, "'s starts at row ", start);
    if (start < end)
      raise(rule, start, ", ", std::min(end, stop), ") are in the blocks of ranks ", last, " and ", r, ": ", before,
            " and rank ", r, "'s starts at row ", start);
    end = stop;
    last = r;
  }
  if (end != shape[0])
    raise("csr_from_rows: the ranks' blocks must cover the rows once, in rank order, but they end at row ", end,
          " and the matrix has ", shape[0], " rows");
  std::int64_t local_nnz = static_cast<std::int64_t>(indices.size());
  MPI_Allreduce(&local_nnz, &nnz, 1, MPI_INT64_T, MPI_SUM, collective.comm());

  HostRows mine = rows_of(0, block[1], indptr, indices, values, size_of(type));
  mine.first = first_row;
  const Cuts& cuts = *balanced_tiling({shape[0]}, "csr_from_rows").cuts[0];
  return build(type, shape, nnz, to_tiles(mine, cuts, size_of(type), collective.comm()), collective.comm());
}

std::shared_ptr<const CsrData> csr_with_int64_indices(const CsrData& a, bool rows, bool columns) {
  auto w = std::make_shared<CsrData>(a);
  w->owned = widened(a.owned, rows, columns);
  w->ghost = widened(a.ghost, rows, columns);
  return w;
}

Shape csr_shape(const CsrData& a) { return {a.rows, a.cols}; }
std::int64_t csr_nnz(const CsrData& a) { return a.nnz; }

}  // namespace tessera::detail
