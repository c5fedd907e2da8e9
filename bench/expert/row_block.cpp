#include "row_block.hpp"

#include <mpi.h>

#include <algorithm>

#include <tessera/fusion/runtime_state.hpp>

#include "../workloads.hpp"

namespace bench::expert {

namespace {
// Tags name the direction a message travels; the communicator completes an exchange before it
// returns, so they only need to tell the two messages between a pair of ranks apart.
constexpr int kUp = 1, kDown = 2;
}  // namespace

RowBlock::RowBlock(std::int64_t rows, std::int64_t cols) : rows_(rows), cols_(cols) {
  tessera::detail::Communicator& comm = tessera::detail::runtime().comm();
  rank_ = comm.rank();
  size_ = comm.size();
  first_ = rows * rank_ / size_;
  last_ = rows * (rank_ + 1) / size_;
}

std::int64_t RowBlock::interior_begin() const { return std::max<std::int64_t>(first_, 1) - first_ + 1; }

std::int64_t RowBlock::interior_end() const {
  return std::max(interior_begin(), std::min(last_, rows_ - 1) - first_ + 1);
}

Grid RowBlock::allocate(const std::string& label) const { return Grid(label, owned() + 2, cols_); }

Flat RowBlock::owned_cells(const Grid& g) const { return Flat(g.data() + g.stride(0), owned() * cols_); }

void RowBlock::fill_uniform(const Grid& g, std::uint64_t seed, bool zero_boundary) const {
  const std::int64_t rows = rows_, cols = cols_, first = first_;
  Kokkos::parallel_for(
      "expert::fill_uniform", Range(0, owned() * cols), KOKKOS_LAMBDA(const std::int64_t k) {
        const std::int64_t i = first + k / cols, j = k % cols;
        const bool boundary = i == 0 || i == rows - 1 || j == 0 || j == cols - 1;
        g(i - first + 1, j) = zero_boundary && boundary ? 0.0 : uniform(seed, i * cols + j);
      });
}

std::int64_t RowBlock::exchange(const Grid& g) const {
  using tessera::detail::Message;
  const std::size_t bytes = static_cast<std::size_t>(cols_) * sizeof(double);
  auto row = [&](std::int64_t k) { return reinterpret_cast<char*>(g.data() + k * g.stride(0)); };
  std::vector<Message> sends, receives;
  if (rank_ > 0) {
    sends.push_back(Message{rank_ - 1, kUp, row(1), bytes});
    receives.push_back(Message{rank_ - 1, kDown, row(0), bytes});
  }
  if (rank_ < size_ - 1) {
    sends.push_back(Message{rank_ + 1, kDown, row(owned()), bytes});
    receives.push_back(Message{rank_ + 1, kUp, row(owned() + 1), bytes});
  }
  if (receives.empty()) return 0;  // one rank: not even the communicator's fence
  tessera::detail::runtime().comm().exchange(sends, receives);
  return static_cast<std::int64_t>(receives.size() * bytes);
}

std::vector<double> RowBlock::gather(const Grid& g, std::int64_t r0, std::int64_t r1, std::int64_t c0,
                                     std::int64_t c1) const {
  const std::int64_t width = c1 - c0;
  std::vector<double> mine(static_cast<std::size_t>((r1 - r0) * width), 0.0), all(mine.size());
  const std::int64_t lo = std::max(r0, first_), hi = std::min(r1, last_);
  if (lo < hi) {
    Vector packed("expert::gather", (hi - lo) * width);
    const std::int64_t row0 = lo - first_ + 1;
    Kokkos::parallel_for(
        "expert::gather", Range(0, (hi - lo) * width),
        KOKKOS_LAMBDA(const std::int64_t k) { packed(k) = g(row0 + k / width, c0 + k % width); });
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
    std::copy(host.data(), host.data() + host.size(), mine.begin() + (lo - r0) * width);
  }
  // Each value is owned by one rank and zero elsewhere.
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

double RowBlock::sum(const Grid& g) const {
  const Flat cells = owned_cells(g);
  double mine = 0;
  Kokkos::parallel_reduce(
      "expert::sum", Range(0, static_cast<std::int64_t>(cells.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t k, double& s) { s += cells(k); }, mine);
  return sum_over_ranks(mine);
}

void allreduce_sum(const Scalar& s) {
  tessera::detail::runtime().comm().allreduce(s.data(), 1, tessera::DType::Float64, tessera::detail::ReduceKind::Sum);
}

void wait(const char* why) { tessera::detail::runtime().comm().wait(why); }

}  // namespace bench::expert
