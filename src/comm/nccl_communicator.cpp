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
  NcclCommunicator(MPI_Comm parent, double timeout_seconds)
      : host_(parent, timeout_seconds), timeout_(timeout_seconds) {
    ncclUniqueId id;
    if (host_.rank() == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, host_.comm());
    check(ncclCommInitRank(&comm_, host_.size(), id, host_.rank()), "ncclCommInitRank");
    make_streams();
  }
  // A slice of another NCCL communicator: its own MPI communicator and the NCCL one split from it.
  NcclCommunicator(MPI_Comm host, double timeout_seconds, ncclComm_t comm)
      : host_(host, timeout_seconds), comm_(comm), timeout_(timeout_seconds) {
    make_streams();
  }
  void make_streams() {
    // Exchanges run on a stream of their own, so that kernels enqueued between start_exchange and
    // finish_exchange run beside them; at the highest priority, so that NCCL's few blocks are
    // scheduled as soon as SMs free up instead of after the whole interior kernel.
    int least = 0, greatest = 0;
    check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    check(cudaStreamCreateWithPriority(&exchange_stream_, cudaStreamNonBlocking, greatest), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&packed_, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventCreateWithFlags(&arrived_, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~NcclCommunicator() override {
    if (comm_) ncclCommDestroy(comm_);
    cudaEventDestroy(arrived_);
    cudaEventDestroy(packed_);
    cudaStreamDestroy(exchange_stream_);
  }

  int rank() const override { return host_.rank(); }
  int size() const override { return host_.size(); }

  // The exchange stream waits for the packing kernels; the device stream, in finish_exchange, for
  // the messages. The host waits for neither.
  void start_exchange(const std::vector<Message>& sends, const std::vector<Message>& receives) override {
    if (in_flight_) fatal("internal: an exchange was started while another is in flight");
    in_flight_ = true;
    check(cudaEventRecord(packed_, device_stream()), "cudaEventRecord");
    check(cudaStreamWaitEvent(exchange_stream_, packed_, 0), "cudaStreamWaitEvent");
    check(ncclGroupStart(), "ncclGroupStart");
    for (const Message& m : receives)
      check(ncclRecv(m.data, m.bytes, ncclInt8, m.peer, comm_, exchange_stream_), "ncclRecv");
    for (const Message& m : sends)
      check(ncclSend(m.data, m.bytes, ncclInt8, m.peer, comm_, exchange_stream_), "ncclSend");
    check(ncclGroupEnd(), "ncclGroupEnd");
    check(cudaEventRecord(arrived_, exchange_stream_), "cudaEventRecord");
  }

  void finish_exchange() override {
    if (!in_flight_) fatal("internal: finish_exchange without an exchange in flight");
    in_flight_ = false;
    check(cudaStreamWaitEvent(device_stream(), arrived_, 0), "cudaStreamWaitEvent");
  }

  void allreduce(void* data, int count, DType type, ReduceKind kind) override {
    const bool is_float = type != DType::Int64;
    if (is_arg(kind) || (is_float && (kind == ReduceKind::Max || kind == ReduceKind::Min)))
      fatal("internal: allreduce of floating max/min or an arg kind (they are gathered and folded)");
    const ncclDataType_t t = type == DType::Float64 ? ncclFloat64 : type == DType::Float32 ? ncclFloat32 : ncclInt64;
    const ncclRedOp_t op = kind == ReduceKind::Sum    ? ncclSum
                           : kind == ReduceKind::Prod ? ncclProd
                           : kind == ReduceKind::Max  ? ncclMax
                                                      : ncclMin;
    check(ncclAllReduce(data, data, static_cast<std::size_t>(count), t, op, comm_, device_stream()), "ncclAllReduce");
  }

  void allgather_device(const void* mine, void* all, std::size_t bytes) override {
    check(ncclAllGather(mine, all, bytes, ncclInt8, comm_, device_stream()), "ncclAllGather");
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

 protected:
  std::unique_ptr<Communicator> split(int color, int key) override {
    MPI_Comm host = MPI_COMM_NULL;
    MPI_Comm_split(host_.comm(), color, key, &host);
    ncclComm_t part = nullptr;
    check(ncclCommSplit(comm_, color, key, &part, nullptr), "ncclCommSplit");
    auto sub = std::make_unique<NcclCommunicator>(host, timeout_, part);  // the host communicator is duplicated
    MPI_Comm_free(&host);
    return sub;
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
  cudaStream_t exchange_stream_ = nullptr;
  cudaEvent_t packed_ = nullptr, arrived_ = nullptr;
  bool in_flight_ = false;
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm parent, double timeout_seconds) {
  return std::make_unique<NcclCommunicator>(parent, timeout_seconds);
}

}  // namespace tessera::detail
