#pragma once
// The exchange behind an image() constraint (tasks/image.hpp): each rank packs the entries of its
// owned tile that its peers' indices reference (one gather kernel), sends one message per peer and
// receives its own image straight into a ghost buffer, peer by peer in rank order (no unpacking).
// The plan was computed once; each launch moves exactly ImagePlan::ghosts entries per rank.
//
// Like Fetch (comm/exchange.hpp): the constructor packs and posts, finish() completes; device work
// in between overlaps the transfer and must not read the ghost buffer. One exchange is in flight.

#include <cstdint>
#include <vector>

#include "tessera/comm/communicator.hpp"
#include "tessera/data/store.hpp"
#include "tessera/tasks/image.hpp"

namespace tessera::detail {

class ImageFetch {
 public:
  // `ghosts`: MemSpace, plan.ghosts elements of the store's type.
  ImageFetch(Communicator& comm, const ImagePlan& plan, Store& store, char* ghosts, std::string label);
  ~ImageFetch();
  ImageFetch(const ImageFetch&) = delete;
  ImageFetch& operator=(const ImageFetch&) = delete;

  // Returns the bytes this rank received.
  std::int64_t finish();

 private:
  Communicator& comm_;
  std::string label_;
  Kokkos::View<char*, MemSpace> send_buffer_;
  std::int64_t received_ = 0;
  bool finished_ = false;
};

}  // namespace tessera::detail
