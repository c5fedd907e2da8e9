#pragma once
// The NCCL backend (CUDA builds): point-to-point exchanges as one ncclGroupStart/End of
// ncclSend/ncclRecv, and allreduces of device scalars, all enqueued on the Kokkos execution
// space's stream, so nothing waits on the host. The NCCL communicator is bootstrapped through MPI
// (unique id from rank 0, broadcast) and owned here. Host-side collectives (gathering a whole
// array for to_host, which synchronizes anyway) go through the MPI communicator it is built on.

#include "tessera/comm/mpi_communicator.hpp"

namespace tessera::detail {

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm parent);

}  // namespace tessera::detail
