#pragma once
// The MPI backend: a duplicate of the parent communicator, owned (freed on destruction), so that
// tessera's messages never match an application's. Non-blocking point-to-point and allreduces,
// no barriers; a rank that waits longer than the timeout (TESSERA_COMM_TIMEOUT) for an exchange
// or an allreduce ends the job with a message instead of hanging.

#include <mpi.h>

#include <memory>

#include "tessera/comm/communicator.hpp"

namespace tessera::detail {

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(MPI_Comm parent, double timeout_seconds);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MPI_Comm comm() const { return comm_; }
  void start_exchange(const std::vector<Message>& sends, const std::vector<Message>& receives) override;
  void finish_exchange() override;
  void allreduce(void* data, int count, DType type, ReduceKind kind) override;
  void allgather_device(const void* mine, void* all, std::size_t bytes) override;
  std::vector<char> allgather(const std::vector<char>& mine, std::vector<std::size_t>& counts) override;

 protected:
  std::unique_ptr<Communicator> split(int color, int key) override;

 private:
  // Waits for `requests`, or aborts the job after the timeout naming `what`.
  void wait_for(std::vector<MPI_Request>& requests, const char* what);

  struct Pending;  // the requests and host staging of the exchange in flight
  std::unique_ptr<Pending> pending_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  double timeout_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace tessera::detail
