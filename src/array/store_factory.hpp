#pragma once
// Where new stores get their tiling: a fresh balanced one for creation routines, or the tiling
// induced by a key view for results of operations (key-partition inheritance: no communication).

#include "tessera/array/array_ref.hpp"

namespace tessera::detail {

Tiling balanced_tiling(const Shape& shape, const char* what);
ArrayRef new_array(DType type, const Tiling& tiling, bool zero);
ArrayRef new_array_like(DType type, const ArrayRef& key);

}  // namespace tessera::detail
