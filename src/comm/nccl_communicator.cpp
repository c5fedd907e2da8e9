#include "tessera/comm/nccl_communicator.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/core/kokkos_compat.hpp"

namespace tessera::detail {
namespace {

// Communication faults cannot be recovered consistently: every rank is aborted with the message.
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess && r != ncclInProgress) fatal(std::string("NCCL ") + what + " failed: " + ncclGetErrorString(r));
}

cudaStream_t stream() { return ExecSpace().cuda_stream(); }

class NcclCommunicator final : public Communicator {
 public:
  explicit NcclCommunicator(MPI_Comm parent) : host_(parent) {
    ncclUniqueId id;
    if (host_.rank() == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, host_.comm());
    check(ncclCommInitRank(&comm_, host_.size(), id, host_.rank()), "ncclCommInitRank");
  }
  ~NcclCommunicator() override {
    if (comm_) ncclCommDestroy(comm_);
  }

  int rank() const override { return host_.rank(); }
  int size() const override { return host_.size(); }

  void exchange(const std::vector<Message>& sends, const std::vector<Message>& receives) override {
    check(ncclGroupStart(), "ncclGroupStart");
    for (const Message& m : receives) check(ncclRecv(m.data, m.bytes, ncclInt8, m.peer, comm_, stream()), "ncclRecv");
    for (const Message& m : sends) check(ncclSend(m.data, m.bytes, ncclInt8, m.peer, comm_, stream()), "ncclSend");
    check(ncclGroupEnd(), "ncclGroupEnd");
  }

  void allreduce(void* data, int count, DType type, ReduceKind kind) override {
    const ncclDataType_t t = type == DType::Float64 ? ncclFloat64 : ncclInt64;
    const ncclRedOp_t op = kind == ReduceKind::Sum    ? ncclSum
                           : kind == ReduceKind::Prod ? ncclProd
                           : kind == ReduceKind::Max  ? ncclMax
                                                      : ncclMin;
    check(ncclAllReduce(data, data, static_cast<std::size_t>(count), t, op, comm_, stream()), "ncclAllReduce");
  }

  std::vector<char> allgather(const std::vector<char>& mine, std::vector<std::size_t>& counts) override {
    return host_.allgather(mine, counts);
  }

 private:
  MpiCommunicator host_;
  ncclComm_t comm_ = nullptr;
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm parent) {
  return std::make_unique<NcclCommunicator>(parent);
}

}  // namespace tessera::detail
