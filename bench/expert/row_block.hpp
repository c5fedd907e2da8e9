#pragma once
// The hand-written baselines' data layout: a rows x cols float64 grid distributed by rows. Each
// rank owns a contiguous block of rows and stores it with one ghost row above and one below
// (LayoutRight on every backend, so a row is contiguous and a ghost row is one message: nothing
// to pack). Ghost rows travel through tessera's communicator — NCCL on GPU builds, MPI on CPU
// builds — the same transport tessera's halos use, so the comparison is about the kernels.
//
//   RowBlock block(rows, cols);               // this rank's share
//   Grid u = block.allocate("u");             // (owned + 2) x cols, zero
//   block.exchange(u);                        // ghost rows := the neighbours' edge rows

#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

namespace bench::expert {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using Grid = Kokkos::View<double**, Kokkos::LayoutRight, Mem>;
using Vector = Kokkos::View<double*, Mem>;
using Flat = Kokkos::View<double*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using Scalar = Kokkos::View<double, Mem>;
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
using Rows = Kokkos::TeamPolicy<Exec>;
using Member = Rows::member_type;

class RowBlock {
 public:
  RowBlock(std::int64_t rows, std::int64_t cols);

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t first() const { return first_; }  // global index of the first owned row
  std::int64_t owned() const { return last_ - first_; }
  // Local rows [interior_begin, interior_end): the owned rows off the grid's boundary. Local
  // row k is global row first() + k - 1; rows 0 and owned() + 1 are the ghosts.
  std::int64_t interior_begin() const;
  std::int64_t interior_end() const;

  Grid allocate(const std::string& label) const;
  // The owned rows as one contiguous range (ghost rows excluded).
  Flat owned_cells(const Grid& g) const;
  // Fills the owned rows with uniform(seed, i * cols + j); zero on the grid's boundary if asked.
  void fill_uniform(const Grid& g, std::uint64_t seed, bool zero_boundary) const;
  // Refreshes both ghost rows from the neighbours; returns the bytes this rank received.
  std::int64_t exchange(const Grid& g) const;
  // Global rows [r0, r1), columns [c0, c1), row-major, on every rank (collective; small blocks).
  std::vector<double> gather(const Grid& g, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) const;
  // The sum of every owned cell over all ranks (collective).
  double sum(const Grid& g) const;

 private:
  std::int64_t rows_, cols_, first_ = 0, last_ = 0;
  int rank_ = 0, size_ = 1;
};

// In place on the device: the sum over the ranks of a device scalar (an allreduce through
// tessera's communicator; on GPUs it stays on the stream, no host round trip).
void allreduce_sum(const Scalar& s);

// Waits for the device and the communicator (the end of a timed round).
void wait(const char* why);

}  // namespace bench::expert
