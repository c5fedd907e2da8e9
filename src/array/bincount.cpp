// bincount's argument checks (array/bincount.hpp): NumPy's errors, with the shapes and values.
#include "tessera/array/bincount.hpp"

#include "tessera/core/error.hpp"

namespace tessera::detail {

void check_bincount(const ArrayRef& x, const ArrayRef* weights, std::int64_t minlength) {
  check_runtime(x, "bincount");
  if (x.ndim() != 1)
    raise("bincount: x must be 1-D, not of shape ", shape_string(x.shape()),
          " (NumPy: object too deep for desired array)");
  if (minlength < 0) raise("bincount: minlength must not be negative (got ", minlength, ")");
  if (!weights) return;
  check_runtime(*weights, "bincount");
  if (weights->shape() != x.shape())
    raise("bincount: the weights of shape ", shape_string(weights->shape()), " and x of shape ",
          shape_string(x.shape()),
          " do not have the same length (NumPy: the weights and list don't have the same length)");
}

void raise_bincount_range(std::int64_t smallest) {
  if (smallest < 0)
    raise("bincount: x must have no negative elements (its smallest is ", smallest,
          "; NumPy: 'list' argument must have no negative elements)");
  raise("bincount: x holds ", std::numeric_limits<std::int64_t>::max(), ": no array has that many bins");
}

}  // namespace tessera::detail
