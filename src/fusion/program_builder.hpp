#pragma once
// Builds a task's program instruction by instruction, deduplicating the stores it touches:
// two operands that are the same view of the same store become one argument.

#include "tessera/fusion/task.hpp"

namespace tessera::detail {

class ProgramBuilder {
 public:
  explicit ProgramBuilder(Task& task) : task_(task) {}

  int arg(const std::shared_ptr<Store>& store, const View& view, bool written, bool created = false);
  int load(int arg, DType type) { return emit({OpCode::Load, type, type, 0, u16(arg)}); }
  int constant(Value v, DType type);
  int cast(int reg, DType from, DType to);
  int unary(OpCode op, DType type, int a) { return emit({op, type, type, 0, u16(a)}); }
  int binary(OpCode op, DType type, int a, int b) { return emit({op, type, type, 0, u16(a), u16(b)}); }
  int where(DType type, int cond, int a, int b) {
    return emit({OpCode::Where, type, type, 0, u16(cond), u16(a), u16(b)});
  }
  int index() { return emit({OpCode::Index, DType::Int64, DType::Int64}); }
  int coord(int padded_dim) { return emit({OpCode::Coord, DType::Int64, DType::Int64, 0, u16(padded_dim)}); }
  int random(DType type, int counter, std::uint64_t seed);
  void store(int arg, DType type, int reg);
  // Arg kinds also take the register of the index that goes with the value.
  void reduce(ReduceKind kind, bool accumulate_float, DType type, int reg, int index_reg = -1);

 private:
  static std::uint16_t u16(int x) { return static_cast<std::uint16_t>(x); }
  int emit(Instr in);
  Task& task_;
};

}  // namespace tessera::detail
