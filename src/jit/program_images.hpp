#pragma once
// The runtime's images of the programs it runs, one per distinct program (code, constants and
// reduction kinds), kept so that a steady loop (which replays the same programs) makes no
// per-launch allocation, copy or compile: the interpreter's device copy of the code
// (program/interpreter.hpp) and what the JIT tiers compiled of it.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/program/interpreter.hpp"
#include "tessera/program/program.hpp"

namespace tessera::detail {

struct JitKernel;    // jit/jit.cpp
struct HostProgram;  // jit/host_jit.cpp

struct KernelImage : ProgramImage {
  // The compiled kernels by shape, where the JIT tier runs (nullptr: tried, not compilable).
  std::vector<std::pair<KernelShape, JitKernel*>> jit;
  // The host tier's compiled code (one shared object for every shape; jit/host_jit.hpp), once
  // requested, and the elements interpreted before (a program is compiled once it is hot).
  HostProgram* host = nullptr;
  std::int64_t interpreted = 0;
  // Unique in the process, also after the images are dropped (ProgramImages::get): a key for what
  // is compiled from several programs at once (a batch kernel, Jit::batch_kernel).
  std::uint64_t serial = 0;
};

class ProgramImages {
 public:
  KernelImage& get(const Program& program);
  std::size_t size() const { return count_; }

 private:
  struct Entry {
    std::vector<Instr> code;
    std::vector<Value> constants;
    std::vector<ReduceKind> reduce_kinds;  // the same code reduces differently with other kinds
    std::vector<bool> reduce_float;
    int reduce_dim;
    NestedReduction nested;
    int epilogue;
    int sweep;
    int row_slots;
    KernelImage image;
  };
  std::unordered_map<std::uint64_t, std::deque<Entry>> by_hash_;  // deque: entries never move
  std::size_t count_ = 0;
  std::uint64_t last_serial_ = 0;
};

}  // namespace tessera::detail
