#pragma once
// Communicator: the one interface the executor talks to; MPI now, NCCL beside it on GPUs.
//
// Vocabulary: an *exchange* is a set of point-to-point messages that every rank posts at the same
// point of the op stream (a halo exchange or a redistribution). start_exchange posts it and
// returns; finish_exchange completes it. In between the caller may enqueue work that neither
// reads the receive buffers nor writes the send buffers (a stencil's interior): that work overlaps
// the transfer. At most one exchange is in flight. Buffers live in the execution space's memory (MemSpace); a backend
// that cannot reach that memory stages through the host. Collectives are reached by every rank or by none.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "tessera/core/dtype.hpp"
#include "tessera/core/kokkos_compat.hpp"
#include "tessera/program/program.hpp"

namespace tessera::detail {

struct Message {
  int peer = 0;
  int tag = 0;
  char* data = nullptr;  // MemSpace
  std::size_t bytes = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Posts every receive and send. The send buffers' contents are those of the device work
  // enqueued before the call.
  virtual void start_exchange(const std::vector<Message>& sends, const std::vector<Message>& receives) = 0;
  // Completes the exchange in flight: device work enqueued after this call sees the received data,
  // and the buffers may be reused.
  virtual void finish_exchange() = 0;
  void exchange(const std::vector<Message>& sends, const std::vector<Message>& receives) {
    start_exchange(sends, receives);
    finish_exchange();
  }
  // In place on `count` elements in MemSpace; int64 or float64 (accumulator types), or float32 (a
  // task's partial sums: tasks/task_body.hpp's Reduce privilege); Sum and
  // Prod, and Min and Max of int64 (floating max and min propagate NaN as NumPy's: callers gather
  // and fold those themselves, fusion/reduction_finish.cpp).
  virtual void allreduce(void* data, int count, DType type, ReduceKind kind) = 0;
  // Every rank's `bytes` bytes at `mine`, concatenated in rank order at `all` (size() * bytes);
  // both in MemSpace.
  virtual void allgather_device(const void* mine, void* all, std::size_t bytes) = 0;
  // The communicator of this rank's slice of the ranks: those that pass the same `color`, ordered
  // by `key`. Made (a collective) the first time a `family` is asked for, and kept: every rank
  // asks for the same families in the same order (families name ways of slicing, such as the
  // rows of a process grid).
  Communicator& slice(int family, int color, int key);
  // Blocks the host until the device has finished everything enqueued so far (item(), to_host()).
  // A backend that can detect failed peers while waiting does so here.
  virtual void wait(const char* why) { fence(why); }
  // Every rank's host bytes, concatenated in rank order; `counts` receives each rank's length.
  virtual std::vector<char> allgather(const std::vector<char>& mine, std::vector<std::size_t>& counts) = 0;

 protected:
  // A communicator of the same backend over the ranks that pass this color (collective).
  virtual std::unique_ptr<Communicator> split(int color, int key) = 0;

 private:
  std::map<int, std::unique_ptr<Communicator>> slices_;
};

}  // namespace tessera::detail
