#pragma once
// Fetching boxes of a distributed store: the one mechanism behind halo exchange and redistribution.
//
// Every rank names, for every rank r, the box of the store that r needs (all ranks can compute
// this from the tilings, so no request messages are sent). Each rank then sends the part of each
// needed box that it owns, and receives the parts of its own needed box that others own: one
// message per neighbour holding the pieces of every store of the group, packed by a kernel,
// sent non-blocking, unpacked by a kernel. A halo is a needed box equal to the owned tile bloated
// by the ghost widths, received in place into the store's ghost cells; a redistribution receives
// into a separate buffer laid out like the launch tile.

#include <map>
#include <string>
#include <vector>

#include "tessera/comm/communicator.hpp"
#include "tessera/data/store.hpp"
#include "tessera/partition/process_grid.hpp"

namespace tessera::detail {

struct FetchRequest {
  Store* store = nullptr;
  std::vector<Box> needed;  // per rank, in store coordinates
  char* destination = nullptr;
  Layout destination_layout;
  bool in_place = false;                    // the destination is the store's own buffer (a halo)
  const ProcessGrid* store_grid = nullptr;  // the grid the store's tiling deals over (default: the fetch's)
};

// A fetch in flight: the constructor packs and posts every message, finish() waits for them and
// unpacks. Device work enqueued in between overlaps the transfer; it must not read the cells being
// fetched nor write the cells being sent. One fetch is in flight at a time (the communicator's
// exchange); destroying an unfinished fetch finishes it.
class Fetch {
 public:
  Fetch(Communicator& comm, const ProcessGrid& grid, std::vector<FetchRequest> requests,
        std::string label);  // the profiler region, e.g. tessera::halo[...]
  ~Fetch();
  Fetch(const Fetch&) = delete;
  Fetch& operator=(const Fetch&) = delete;

  // Returns the bytes this rank received from other ranks.
  std::int64_t finish();

 private:
  struct Piece {
    const FetchRequest* request;
    Box box;
    std::size_t offset;  // within the peer's message
  };
  Communicator& comm_;
  std::vector<FetchRequest> requests_;
  std::string label_;
  std::vector<Kokkos::View<char*, MemSpace>> buffers_;
  std::vector<Message> receives_;
  std::map<int, std::vector<Piece>> to_receive_;
  std::int64_t received_ = 0;
  bool finished_ = false;
};

// A fetch that completes before it returns (a redistribution): Fetch(...).finish().
std::int64_t fetch(Communicator& comm, const ProcessGrid& grid, std::vector<FetchRequest> requests, std::string label);

}  // namespace tessera::detail
