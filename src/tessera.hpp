#pragma once
// tessera: NumPy-style distributed arrays for SPMD programs on MPI + Kokkos.
//
//   #include <tessera/tessera.hpp>
//   namespace ts = tessera;
//   int main(int argc, char** argv) {
//     ts::Runtime rt(argc, argv);
//     auto a = ts::random<double>({1024, 1024}, 7);
//     auto b = 0.5 * (a(ts::slice(0, -2), ts::all) + a(ts::slice(2, ts::end), ts::all));
//     double total = ts::sum(b).item();            // collective: every rank calls it
//     if (rt.rank() == 0) std::printf("%f\n", total);
//   }

#include "tessera/array/array.hpp"
#include "tessera/array/bincount.hpp"
#include "tessera/array/creation.hpp"
#include "tessera/array/operators.hpp"
#include "tessera/array/reductions.hpp"
#include "tessera/array/shapes.hpp"
#include "tessera/core/config.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/stats.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/kernels/local_task.hpp"
#include "tessera/linalg/matmul.hpp"
#include "tessera/runtime/runtime.hpp"
#include "tessera/sparse/csr.hpp"
