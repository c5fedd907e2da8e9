#include "tessera/comm/communicator.hpp"

namespace tessera::detail {

Communicator& Communicator::slice(int family, int color, int key) {
  auto it = slices_.find(family);
  if (it == slices_.end()) it = slices_.emplace(family, split(color, key)).first;
  return *it->second;
}

}  // namespace tessera::detail
