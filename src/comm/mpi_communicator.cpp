#include "tessera/comm/mpi_communicator.hpp"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>

#include "tessera/core/error.hpp"
#include "tessera/core/kokkos_compat.hpp"

#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

namespace tessera::detail {
namespace {

// MPI counts are int: large messages go as several chunks, which MPI keeps in order.
constexpr std::size_t kChunk = std::size_t(1) << 30;

// Whether MPI can read and write device memory itself (CUDA-aware Open MPI, asked at compile
// time and at run time); if not, device buffers are staged through host memory.
bool mpi_reaches_device() {
  if constexpr (kDeviceIsHost) {
    return true;
  } else {
#if defined(KOKKOS_ENABLE_CUDA) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    static const bool aware = MPIX_Query_cuda_support() == 1;
    return aware;
#else
    return false;
#endif
  }
}

// Host-visible copy of a MemSpace buffer where MPI cannot reach device memory.
struct Staging {
  Kokkos::View<char*, Kokkos::HostSpace> host;
  char* ptr(const Message& m, bool copy_in) {
    if (mpi_reaches_device()) {
      return m.data;
    } else {
      host = Kokkos::View<char*, Kokkos::HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::staging"),
                                                    m.bytes);
      if (copy_in) Kokkos::deep_copy(host, Kokkos::View<char*, MemSpace, Kokkos::MemoryUnmanaged>(m.data, m.bytes));
      return host.data();
    }
  }
};

}  // namespace

void MpiCommunicator::wait_for(std::vector<MPI_Request>& requests, const char* what) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > timeout_) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", timeout_);
      fatal("rank " + std::to_string(rank_) + " of " + std::to_string(size_) + " waited " + seconds +
            " s (TESSERA_COMM_TIMEOUT) for " + what + " without progress; a peer may have failed or stopped");
    }
    std::this_thread::yield();
  }
}

struct MpiCommunicator::Pending {
  std::vector<MPI_Request> requests;
  std::vector<Message> receives;
  std::vector<Staging> recv_staging, send_staging;
};

MpiCommunicator::MpiCommunicator(MPI_Comm parent, double timeout_seconds) : timeout_(timeout_seconds) {
  MPI_Comm_dup(parent, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiCommunicator::~MpiCommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  MPI_Comm_free(&comm_);
}

void MpiCommunicator::start_exchange(const std::vector<Message>& sends, const std::vector<Message>& receives) {
  if (pending_) fatal("internal: an exchange was started while another is in flight");
  pending_ = std::make_unique<Pending>();
  Pending& x = *pending_;
  x.receives = receives;
  x.recv_staging.resize(receives.size());
  x.send_staging.resize(sends.size());
  for (std::size_t i = 0; i < receives.size(); ++i) {
    const Message& m = receives[i];
    char* p = x.recv_staging[i].ptr(m, false);
    for (std::size_t off = 0; off < m.bytes; off += kChunk) {
      int n = static_cast<int>(std::min(kChunk, m.bytes - off));
      x.requests.emplace_back();
      MPI_Irecv(p + off, n, MPI_BYTE, m.peer, m.tag, comm_, &x.requests.back());
    }
  }
  fence("tessera::exchange: packed data ready");
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const Message& m = sends[i];
    char* p = x.send_staging[i].ptr(m, true);
    for (std::size_t off = 0; off < m.bytes; off += kChunk) {
      int n = static_cast<int>(std::min(kChunk, m.bytes - off));
      x.requests.emplace_back();
      MPI_Isend(p + off, n, MPI_BYTE, m.peer, m.tag, comm_, &x.requests.back());
    }
  }
}

void MpiCommunicator::finish_exchange() {
  if (!pending_) fatal("internal: finish_exchange without an exchange in flight");
  const std::unique_ptr<Pending> x = std::move(pending_);
  wait_for(x->requests, "a halo exchange or redistribution");
  if (!mpi_reaches_device()) {
    for (std::size_t i = 0; i < x->receives.size(); ++i)
      Kokkos::deep_copy(
          Kokkos::View<char*, MemSpace, Kokkos::MemoryUnmanaged>(x->receives[i].data, x->receives[i].bytes),
          x->recv_staging[i].host);
  }
}

void MpiCommunicator::allreduce(void* data, int count, DType type, ReduceKind kind) {
  if (type != DType::Int64 && type != DType::Float64 && type != DType::Float32)
    fatal("allreduce supports int64, float64 and float32 (a task's partial sums) only");
  const bool is_float = type != DType::Int64;
  if (is_arg(kind) || (is_float && (kind == ReduceKind::Max || kind == ReduceKind::Min)))
    fatal("internal: allreduce of floating max/min or an arg kind (they are gathered and folded)");
  MPI_Datatype dt = type == DType::Float64 ? MPI_DOUBLE : type == DType::Float32 ? MPI_FLOAT : MPI_INT64_T;
  MPI_Op op = kind == ReduceKind::Sum    ? MPI_SUM
              : kind == ReduceKind::Prod ? MPI_PROD
              : kind == ReduceKind::Max  ? MPI_MAX
                                         : MPI_MIN;
  Message m{0, 0, static_cast<char*>(data), static_cast<std::size_t>(count) * size_of(type)};
  Staging staging;
  char* p = staging.ptr(m, true);
  fence("tessera::allreduce: partial ready");
  std::vector<MPI_Request> request(1);
  MPI_Iallreduce(MPI_IN_PLACE, p, count, dt, op, comm_, request.data());
  wait_for(request, "an allreduce");
  if (!mpi_reaches_device())
    Kokkos::deep_copy(Kokkos::View<char*, MemSpace, Kokkos::MemoryUnmanaged>(m.data, m.bytes), staging.host);
}

void MpiCommunicator::allgather_device(const void* mine, void* all, std::size_t bytes) {
  if (bytes * static_cast<std::size_t>(size_) > static_cast<std::size_t>(INT_MAX))
    fatal("internal: allgather_device of more than 2 GiB");
  Message in{0, 0, static_cast<char*>(const_cast<void*>(mine)), bytes};
  Message out{0, 0, static_cast<char*>(all), bytes * static_cast<std::size_t>(size_)};
  Staging in_staging, out_staging;
  char* send = in_staging.ptr(in, true);
  char* receive = out_staging.ptr(out, false);
  fence("tessera::allgather: partials ready");
  std::vector<MPI_Request> request(1);
  MPI_Iallgather(send, static_cast<int>(bytes), MPI_BYTE, receive, static_cast<int>(bytes), MPI_BYTE, comm_,
                 request.data());
  wait_for(request, "an allgather");
  if (!mpi_reaches_device())
    Kokkos::deep_copy(Kokkos::View<char*, MemSpace, Kokkos::MemoryUnmanaged>(out.data, out.bytes), out_staging.host);
}

std::unique_ptr<Communicator> MpiCommunicator::split(int color, int key) {
  MPI_Comm part = MPI_COMM_NULL;
  MPI_Comm_split(comm_, color, key, &part);
  auto sub = std::make_unique<MpiCommunicator>(part, timeout_);  // owns a duplicate
  MPI_Comm_free(&part);
  return sub;
}

std::vector<char> MpiCommunicator::allgather(const std::vector<char>& mine, std::vector<std::size_t>& counts) {
  long long my_count = static_cast<long long>(mine.size());
  std::vector<long long> all(size_);
  MPI_Allgather(&my_count, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, comm_);
  counts.assign(all.begin(), all.end());
  std::size_t total = 0;
  for (auto c : counts) total += c;
  std::vector<char> out(total);
  // Each rank broadcasts its part in chunks: simple, and independent of int overflow in Allgatherv.
  std::size_t offset = 0;
  for (int r = 0; r < size_; ++r) {
    char* dst = out.data() + offset;
    if (r == rank_ && counts[r]) std::copy(mine.begin(), mine.end(), dst);
    for (std::size_t off = 0; off < counts[r]; off += kChunk) {
      int n = static_cast<int>(std::min(kChunk, counts[r] - off));
      MPI_Bcast(dst + off, n, MPI_BYTE, r, comm_);
    }
    offset += counts[r];
  }
  return out;
}

}  // namespace tessera::detail
