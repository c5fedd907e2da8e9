#include "tessera/program/program.hpp"

#include <sstream>

namespace tessera::detail {

const char* name(OpCode op) {
  static const char* names[] = {"load",
                                "const",
                                "index",
                                "coord",
                                "random",
                                "cast",
                                "neg",
                                "abs",
                                "sqrt",
                                "exp",
                                "log",
                                "sin",
                                "cos",
                                "tanh",
                                "erf",
                                "not",
                                "tan",
                                "floor",
                                "ceil",
                                "sign",
                                "square",
                                "bit_not",
                                "isnan",
                                "isfinite",
                                "add",
                                "sub",
                                "mul",
                                "div",
                                "pow",
                                "max",
                                "min",
                                "and",
                                "or",
                                "atan2",
                                "mod",
                                "bit_and",
                                "bit_or",
                                "bit_xor",
                                "eq",
                                "ne",
                                "lt",
                                "le",
                                "gt",
                                "ge",
                                "where",
                                "store",
                                "reduce",
                                "reduce",
                                "nested_reduce",
                                "nested_result",
                                "reduce_result"};
  static_assert(sizeof names / sizeof names[0] == static_cast<int>(OpCode::ReduceResult) + 1, "one name per opcode");
  return names[static_cast<int>(op)];
}

const char* name(ReduceKind k) {
  static const char* names[] = {"sum", "prod", "min", "max", "argmin", "argmax"};
  return names[static_cast<int>(k)];
}

std::string Program::describe() const {
  std::ostringstream out;
  bool first = true;
  for (const Instr& in : code) {
    if (in.op == OpCode::Load || in.op == OpCode::Const) continue;
    out << (first ? "" : " ") << name(in.op);
    if (in.op == OpCode::Reduce || in.op == OpCode::ReduceArg) out << '.' << name(reduce_kinds[in.dst]);
    if (in.op == OpCode::NestedReduce) out << '.' << name(nested.kind) << " along" << nested.dim;
    first = false;
  }
  if (reduce_dim >= 0) out << " along" << reduce_dim;
  if (epilogue >= 0) out << " epilogue@" << epilogue;
  if (sweep >= 0) out << " sweep@" << sweep;
  return out.str();
}

int register_source_fields(const Program& p, Instr& in, std::uint16_t* fields[3]) {
  int k = 0;
  switch (in.op) {
    case OpCode::Load:
    case OpCode::Const:
    case OpCode::Index:
    case OpCode::Coord:
    case OpCode::NestedResult:
    case OpCode::ReduceResult: break;
    case OpCode::NestedReduce:
      fields[k++] = &in.a;
      if (is_arg(p.nested.kind)) fields[k++] = &in.b;
      break;
    case OpCode::Store: fields[k++] = &in.b; break;
    case OpCode::Where: fields[k++] = &in.a, fields[k++] = &in.b, fields[k++] = &in.c; break;
    case OpCode::ReduceArg: fields[k++] = &in.a, fields[k++] = &in.b; break;
    case OpCode::Random:
    case OpCode::Cast:
    case OpCode::Reduce: fields[k++] = &in.a; break;
    default:
      fields[k++] = &in.a;
      if (is_binary(in.op)) fields[k++] = &in.b;
  }
  return k;
}

int register_sources(const Program& p, const Instr& in, int* out) {
  Instr copy = in;
  std::uint16_t* fields[3];
  const int k = register_source_fields(p, copy, fields);
  for (int j = 0; j < k; ++j) out[j] = *fields[j];
  return k;
}

}  // namespace tessera::detail
