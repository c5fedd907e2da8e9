#include "tessera/comm/agreement.hpp"

namespace tessera::detail {

Collective::Collective() {
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

Collective::~Collective() { MPI_Comm_free(&comm_); }

std::string Collective::agree(const std::string& mine) {
  int first = mine.empty() ? size_ : rank_;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm_);
  if (first == size_) return {};
  std::uint64_t length = rank_ == first ? mine.size() : 0;
  MPI_Bcast(&length, 1, MPI_UINT64_T, first, comm_);
  std::string out = rank_ == first ? mine : std::string(length, '\0');
  MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, first, comm_);
  return out;
}

void Collective::require(bool ok, const std::string& what) {
  const std::string first = agree(ok ? std::string() : what);
  if (!first.empty()) throw IoFailure(first);
}

void Collective::sum(std::vector<std::uint64_t>& values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM, comm_);
}

std::int64_t Collective::broadcast(std::int64_t value) {
  MPI_Bcast(&value, 1, MPI_INT64_T, 0, comm_);
  return value;
}

std::string Collective::broadcast(std::string bytes) {
  std::uint64_t length = bytes.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, comm_);
  bytes.resize(length);
  MPI_Bcast(bytes.data(), static_cast<int>(length), MPI_CHAR, 0, comm_);
  return bytes;
}

}  // namespace tessera::detail
