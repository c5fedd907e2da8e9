#pragma once
// A rank's part of an array staged on the host, and the checkpoint checksum over such parts.
//
// The checksum of an array (docs/CHECKPOINT.md) is header_hash(dtype, shape) plus, modulo 2^64,
// a hash of every element with its global row-major index. The sum does not depend on the order
// of its terms, so each rank hashes its own part (partial_hash) and one allreduce adds the parts:
// the result is the same for any number of ranks and any tiling.

#include <cstdint>
#include <vector>

#include "tessera/array/array_ref.hpp"

namespace tessera::detail {

// Elements of an array, row-major on the host, covering `box` (array coordinates, the view's
// origin at 0). Empty when the rank holds none of them.
struct HostPart {
  Box box;
  std::vector<char> bytes;
  bool empty() const { return bytes.empty(); }
};

// This rank's elements of an array or box view (BoxView makes one), copied from the device. A 0-d
// array is replicated: rank 0 takes its element, the other ranks nothing; so are tiles held as
// copies (only the primary copy is taken). The op window must have been flushed.
HostPart host_part(const ArrayRef& a, int rank);

std::uint64_t header_hash(DType type, const Shape& shape);
// The sum of the element hashes of a part of an array of this shape and type (0 for no part).
std::uint64_t partial_hash(const HostPart& part, const Shape& shape, DType type);

}  // namespace tessera::detail
