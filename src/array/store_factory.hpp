#pragma once
// Where new stores get their tiling: a fresh balanced one for creation routines, or the tiling
// induced by a key view for results of operations (key-partition inheritance: no communication).

#include "tessera/array/array_ref.hpp"

namespace tessera::detail {

// Checks the shape (1 to 3 non-negative extents; tessera::Error, the same on every rank, otherwise).
Tiling balanced_tiling(const Shape& shape, const char* what);
// Also checks that the largest tile of an array of this type fits the smallest memory space of
// the job, so that an impossible size is an error on every rank rather than a fault on some.
Tiling balanced_tiling(const Shape& shape, const char* what, DType type);
ArrayRef new_array(DType type, const Tiling& tiling, bool zero);
// The smallest memory space of the job in bytes (set by the Runtime): larger tiles are errors.
void set_memory_limit(std::size_t bytes);

// A new array of key's shape, tiled as key's view induces (aligned with it); zero-filled on request.
ArrayRef new_array_like(DType type, const ArrayRef& key, bool zero = false);
// Whether a's view is the identity view of its whole store and the store's tiling is in the form
// induced() gives, so that the view induces exactly the store's tiling (new_array_like's shortcut).
bool induces_own_tiling(const ArrayRef& a);

}  // namespace tessera::detail
