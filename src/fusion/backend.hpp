#pragma once
// Which backend runs a launch (fusion/backend.cpp): the JIT's compiled kernel where the runtime
// has a JIT tier and the program compiles (jit/), else the interpreter (program/interpreter.hpp).

#include <string>
#include <vector>

#include "tessera/program/interpreter.hpp"
#include "tessera/program/program.hpp"

namespace tessera::detail {

// Runs a launch on the runtime's backend.
void launch_kernel(const std::string& label, const Program& program, const std::vector<Accessor>& args,
                   const Domain& domain, const ReductionTarget& target);

// One part of a batch: a program over its domain with its accessors (no reductions). A batch has
// at most kMaxBatchParts parts and kMaxArgs arguments in all (they share one parameter block).
struct BatchLaunch {
  const Program* program = nullptr;
  std::vector<Accessor> args;
  Domain domain;
};
// Runs programs as one kernel where the JIT runs them, else one after the other. InOrder: small
// programs, each seeing what the earlier ones wrote (one block, a barrier between the parts).
// Independent: programs that touch nothing another writes (each part over blocks of its own).
void launch_batch(const std::string& label, const std::vector<BatchLaunch>& parts, BatchOrder order);

// Blocks until the compiled tiers' background compiles requested so far have finished, so that
// the launches after it run compiled code (Runtime::flush calls it; benchmarks time after it).
void wait_for_compiles();

// Test hook: called with every program launched, before it runs (tests/jit_codegen_check.cpp
// compiles every fused program of the fuzz corpus with NVRTC, also in CPU-only CI).
using LaunchObserver = void (*)(const Program& program, int nargs, const KernelShape& shape);
void set_launch_observer(LaunchObserver observer);

}  // namespace tessera::detail
