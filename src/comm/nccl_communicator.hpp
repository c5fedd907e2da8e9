#pragma once
// The NCCL backend (CUDA builds): point-to-point exchanges as one ncclGroupStart/End of
// ncclSend/ncclRecv on an exchange stream of their own (ordered after the packing kernels and
// before later device work by events, so kernels enqueued in between overlap them), and
// allreduces of device scalars on the Kokkos execution space's stream: nothing waits on the host. The NCCL communicator
// is bootstrapped through MPI (unique id from rank 0, broadcast) and owned here. Where the host must wait for the
// device (item(), to_host(), flush) it polls ncclCommGetAsyncError and gives up after the timeout
// (TESSERA_COMM_TIMEOUT), aborting the job with a message instead of hanging.

#include "tessera/comm/mpi_communicator.hpp"

namespace tessera::detail {

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm parent, double timeout_seconds);

}  // namespace tessera::detail
