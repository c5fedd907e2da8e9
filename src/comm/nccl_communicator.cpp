#include "tessera/comm/nccl_communicator.hpp"

#include <nccl.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "tessera/comm/nccl_device.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/kokkos_compat.hpp"

namespace tessera::detail {
namespace {

// Communication faults cannot be recovered consistently: every rank is aborted with the message.
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess && r != ncclInProgress) fatal(std::string("NCCL ") + what + " failed: " + ncclGetErrorString(r));
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fatal(std::string("CUDA ") + what + " failed: " + cudaGetErrorString(e));
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(MPI_Comm parent, double timeout_seconds) : host_(parent), timeout_(timeout_seconds) {
    ncclUniqueId id;
    if (host_.rank() == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, host_.comm());
    check(ncclCommInitRank(&comm_, host_.size(), id, host_.rank()), "ncclCommInitRank");
    check(cudaMalloc(reinterpret_cast<void**>(&pair_), 2 * sizeof(double)), "cudaMalloc (allreduce scratch)");
  }
  ~NcclCommunicator() override {
    if (comm_) ncclCommDestroy(comm_);
    cudaFree(pair_);
  }

  int rank() const override { return host_.rank(); }
  int size() const override { return host_.size(); }

  void exchange(const std::vector<Message>& sends, const std::vector<Message>& receives) override {
    const cudaStream_t stream = device_stream();
    check(ncclGroupStart(), "ncclGroupStart");
    for (const Message& m : receives) check(ncclRecv(m.data, m.bytes, ncclInt8, m.peer, comm_, stream), "ncclRecv");
    for (const Message& m : sends) check(ncclSend(m.data, m.bytes, ncclInt8, m.peer, comm_, stream), "ncclSend");
    check(ncclGroupEnd(), "ncclGroupEnd");
  }

  void allreduce(void* data, int count, DType type, ReduceKind kind) override {
    const cudaStream_t stream = device_stream();
    if (type == DType::Float64 && (kind == ReduceKind::Max || kind == ReduceKind::Min)) {
      const bool is_max = kind == ReduceKind::Max;
      for (int i = 0; i < count; ++i) {
        double* x = static_cast<double*>(data) + i;
        nan_split(x, pair_, is_max);
        check(ncclAllReduce(pair_, pair_, 2, ncclFloat64, is_max ? ncclMax : ncclMin, comm_, stream), "ncclAllReduce");
        nan_join(x, pair_);
      }
      return;
    }
    const ncclDataType_t t = type == DType::Float64 ? ncclFloat64 : ncclInt64;
    const ncclRedOp_t op = kind == ReduceKind::Sum    ? ncclSum
                           : kind == ReduceKind::Prod ? ncclProd
                           : kind == ReduceKind::Max  ? ncclMax
                                                      : ncclMin;
    check(ncclAllReduce(data, data, static_cast<std::size_t>(count), t, op, comm_, stream), "ncclAllReduce");
  }

  // Waits for the stream while watching NCCL: a peer that died or a broken link shows up as an
  // asynchronous error (or as no progress at all), and the job ends instead of hanging.
  void wait(const char* why) override {
    const cudaStream_t stream = device_stream();
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      const cudaError_t state = cudaStreamQuery(stream);
      if (state == cudaSuccess) break;
      if (state != cudaErrorNotReady) check(state, why);
      ncclResult_t async = ncclSuccess;
      check(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError");
      if (async != ncclSuccess && async != ncclInProgress)
        abort_with(std::string("NCCL asynchronous error while waiting for ") + why + ": " + ncclGetErrorString(async));
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited > timeout_)
        abort_with(std::string("no progress on the device for ") + std::to_string(timeout_) +
                   " s (TESSERA_COMM_TIMEOUT) while waiting for " + why + "; a peer may have failed");
      std::this_thread::yield();
    }
    fence(why);
  }

  std::vector<char> allgather(const std::vector<char>& mine, std::vector<std::size_t>& counts) override {
    return host_.allgather(mine, counts);
  }

 private:
  [[noreturn]] void abort_with(const std::string& message) {
    ncclCommAbort(comm_);
    comm_ = nullptr;
    fatal(message);
  }

  MpiCommunicator host_;
  ncclComm_t comm_ = nullptr;
  double timeout_;
  double* pair_ = nullptr;  // device scratch for NaN-propagating max/min
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm parent, double timeout_seconds) {
  return std::make_unique<NcclCommunicator>(parent, timeout_seconds);
}

}  // namespace tessera::detail
