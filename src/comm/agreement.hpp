#pragma once
// Collective: how the ranks of a collective I/O operation (src/io/checkpoint.cpp) fail together.
// Every step that can fail on some ranks only is followed by agree(): an allreduce naming the
// first rank that failed and a broadcast of its message. So every rank leaves at the same step
// with the same message, and none is left waiting in a collective that the others skipped.
//
//   Collective c;
//   c.require(H5Fopen(...) >= 0, "cannot open");   // throws the same IoFailure on every rank
//   c.local("cannot stage", [&] { ... });           // exceptions on any rank fail every rank

#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::detail {

// A failure every rank has agreed on; save and load turn it into tessera::Error.
struct IoFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The ranks of MPI_COMM_WORLD (those of the runtime), on a duplicate communicator of its own.
class Collective {
 public:
  Collective();
  ~Collective();
  Collective(const Collective&) = delete;
  Collective& operator=(const Collective&) = delete;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }

  // The message of the lowest rank whose `mine` is not empty, on every rank; "" if there is none.
  std::string agree(const std::string& mine);
  // Throws IoFailure with the first failing rank's `what` on every rank if `ok` is false anywhere.
  void require(bool ok, const std::string& what);
  // Runs work without collectives in it; an exception on any rank is a failure on every rank.
  template <class F>
  void local(const std::string& what, F&& work) {
    std::string mine;
    try {
      work();
    } catch (const std::exception& e) {
      mine = what + ": " + e.what();
    }
    require(mine.empty(), mine);
  }
  void sum(std::vector<std::uint64_t>& values);  // elementwise over the ranks, modulo 2^64
  std::int64_t broadcast(std::int64_t value);    // rank 0's
  std::string broadcast(std::string bytes);      // rank 0's

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace tessera::detail
