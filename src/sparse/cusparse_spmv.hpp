#pragma once
// y = B x for one CSR block through cuSPARSE's SpMV (CUDA builds), the alternative to the generated
// kernel of sparse/spmv.cpp that TESSERA_SPMV chooses (docs/LINALG.md, "Sparse matrices").

#include <cstdint>

#include "tessera/sparse/csr_data.hpp"

namespace tessera::detail {

// Overwrites y (b.stored_rows() entries) with b x (x of `cols` entries), ordered on the Kokkos
// stream. False, with nothing done, where cuSPARSE cannot take the block as it is stored: rows
// compressed (cuSPARSE cannot scatter into y), row pointers and column indices of different
// widths, or no entries (the generated kernel writes the zeros).
bool cusparse_spmv(DType type, const CsrBlock& b, std::int64_t cols, const void* x, void* y);

}  // namespace tessera::detail
