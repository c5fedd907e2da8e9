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

#include <string>
#include <vector>

#include "tessera/array/store.hpp"
#include "tessera/comm/communicator.hpp"
#include "tessera/partition/process_grid.hpp"

namespace tessera::detail {

struct FetchRequest {
  Store* store = nullptr;
  std::vector<Box> needed;  // per rank, in store coordinates
  char* destination = nullptr;
  Layout destination_layout;
  bool in_place = false;  // the destination is the store's own buffer (a halo)
};

// Returns the bytes this rank received from other ranks.
std::int64_t fetch(Communicator& comm, const ProcessGrid& grid, const std::vector<FetchRequest>& requests,
                   const std::string& label);  // the profiler region, e.g. tessera::halo[...]

}  // namespace tessera::detail
