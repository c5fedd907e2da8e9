#pragma once
// Runtime: owns MPI (unless the application initialized it), Kokkos (likewise) and tessera's
// communicator for the lifetime of the object; tears them down in reverse order.
//
//   int main(int argc, char** argv) {
//     ts::Runtime rt(argc, argv);                // or ts::Runtime rt(argc, argv, ts::Config{...})
//     auto a = ts::ones<double>({1000, 1000});
//     double total = ts::sum(a).item();  // collective: every rank calls it
//     if (rt.rank() == 0) std::printf("%g\n", total);
//   }
//
// Arrays that outlive the runtime keep their shape but lose their data: using them is an error.

#include <memory>

#include "tessera/core/config.hpp"
#include "tessera/core/stats.hpp"

namespace tessera {

// On GPU builds, picks this rank's GPU by its node-local rank for Kokkos (through KOKKOS_DEVICE_ID)
// unless the user chose one. ts::Runtime calls it; an application that initializes MPI and Kokkos
// itself calls it after MPI_Init and before Kokkos::initialize. A no-op on CPU builds.
void choose_device(int argc, char** argv);

class Runtime {
 public:
  Runtime(int& argc, char**& argv, const Config& config = Config{});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int rank() const;
  int size() const;
  // Runs everything recorded so far (a no-op for eager execution) and waits for the device, and for
  // the kernels being compiled in the background: the launches after it run compiled code where
  // the JIT has it (a timer started after a warm-up and a flush times the steady state).
  void flush();
  Stats stats() const;
  void reset_stats();
  const Config& config() const;

 private:
  bool owns_mpi_ = false;
  bool owns_kokkos_ = false;
};

}  // namespace tessera
