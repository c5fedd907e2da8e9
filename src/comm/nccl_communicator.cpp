#include "tessera/comm/nccl_communicator.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/core/kokkos_compat.hpp"

#include <Kokkos_NumericTraits.hpp>

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
    if (type == DType::Float64 && (kind == ReduceKind::Max || kind == ReduceKind::Min)) {
      for (int i = 0; i < count; ++i) nan_propagating(static_cast<double*>(data) + i, kind);
      return;
    }
    const ncclDataType_t t = type == DType::Float64 ? ncclFloat64 : ncclInt64;
    const ncclRedOp_t op = kind == ReduceKind::Sum    ? ncclSum
                           : kind == ReduceKind::Prod ? ncclProd
                           : kind == ReduceKind::Max  ? ncclMax
                                                      : ncclMin;
    check(ncclAllReduce(data, data, static_cast<std::size_t>(count), t, op, comm_, stream()), "ncclAllReduce");
  }

  // NCCL's max/min leave NaN to the hardware's fmax/fmin, which drop it; NumPy's max/min
  // propagate it. Reduce (value without NaN, NaN flag) together, on the stream, then restore.
  void nan_propagating(double* x, ReduceKind kind) {
    const bool is_max = kind == ReduceKind::Max;
    double* pair = scratch_.data();
    Kokkos::parallel_for(
        "tessera::allreduce[nan split]", Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(int) {
          const bool nan = *x != *x;
          pair[0] = nan ? (is_max ? -Kokkos::Experimental::infinity<double>::value
                                  : Kokkos::Experimental::infinity<double>::value)
                        : *x;
          pair[1] = nan ? (is_max ? 1.0 : -1.0) : 0.0;
        });
    check(ncclAllReduce(pair, pair, 2, ncclFloat64, is_max ? ncclMax : ncclMin, comm_, stream()), "ncclAllReduce");
    Kokkos::parallel_for(
        "tessera::allreduce[nan join]", Kokkos::RangePolicy<ExecSpace>(0, 1),
        KOKKOS_LAMBDA(int) { *x = pair[1] != 0.0 ? Kokkos::Experimental::quiet_NaN<double>::value : pair[0]; });
  }

  std::vector<char> allgather(const std::vector<char>& mine, std::vector<std::size_t>& counts) override {
    return host_.allgather(mine, counts);
  }

 private:
  MpiCommunicator host_;
  ncclComm_t comm_ = nullptr;
  Kokkos::View<double[2], MemSpace> scratch_{"tessera::allreduce[scratch]"};
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm parent) {
  return std::make_unique<NcclCommunicator>(parent);
}

}  // namespace tessera::detail
