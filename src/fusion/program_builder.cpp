#include "tessera/fusion/program_builder.hpp"

#include "tessera/core/error.hpp"

namespace tessera::detail {

int ProgramBuilder::arg(const std::shared_ptr<Store>& store, const View& view, bool written, bool created) {
  for (std::size_t i = 0; i < task_.args.size(); ++i) {
    Arg& a = task_.args[i];
    if (a.store == store && a.view == view) {
      a.written = a.written || written;
      a.created = a.created || created;
      return static_cast<int>(i);
    }
  }
  task_.args.emplace_back(store, view, written, created);
  return static_cast<int>(task_.args.size() - 1);
}

int ProgramBuilder::emit(Instr in) {
  Program& p = task_.program;
  if (defines_register(in.op)) {
    if (p.registers >= kMaxRegisters) raise("internal: program needs more than ", kMaxRegisters, " registers");
    in.dst = u16(p.registers++);
  }
  p.code.push_back(in);
  return in.dst;
}

int ProgramBuilder::constant(Value v, DType type) {
  Program& p = task_.program;
  p.constants.push_back(v);
  return emit({OpCode::Const, type, type, 0, u16(static_cast<int>(p.constants.size() - 1))});
}

int ProgramBuilder::cast(int reg, DType from, DType to) {
  if (from == to) return reg;
  return emit({OpCode::Cast, to, from, 0, u16(reg)});
}

int ProgramBuilder::random(DType type, int counter, std::uint64_t seed) {
  Program& p = task_.program;
  p.constants.push_back(make_value<std::int64_t>(static_cast<std::int64_t>(seed)));
  return emit({OpCode::Random, type, type, 0, u16(counter), u16(static_cast<int>(p.constants.size() - 1))});
}

void ProgramBuilder::store(int arg, DType type, int reg) { emit({OpCode::Store, type, type, 0, u16(arg), u16(reg)}); }

void ProgramBuilder::reduce(ReduceKind kind, bool accumulate_float, DType type, int reg, int index_reg) {
  Program& p = task_.program;
  if (p.reduce_kinds.size() >= static_cast<std::size_t>(kMaxReductions))
    raise("internal: more than ", kMaxReductions, " reductions in one program");
  p.reduce_kinds.push_back(kind);
  p.reduce_float.push_back(accumulate_float);
  const std::uint16_t slot = u16(static_cast<int>(p.reduce_kinds.size() - 1));
  if (is_arg(kind))
    emit({OpCode::ReduceArg, type, type, slot, u16(reg), u16(index_reg)});
  else
    emit({OpCode::Reduce, type, type, slot, u16(reg)});
}

}  // namespace tessera::detail
