// Linked with test_fuzz.cpp and the fuzzer (tests/fuzz/) into test_fuzz_host: the fuzz corpus
// (a prefix of test_fuzz's programs, TESSERA_FUZZ_PROGRAMS) with the host tier of the JIT and
// TESSERA_JIT_WAIT=1, so that every fused and unfused launch runs compiled code, compared with the
// reference as test_fuzz compares the interpreter's. This file checks that the prefix still
// exercises what the host tier generates: every opcode, the reduction kinds, reductions along each
// dimension and nested ones (with TESSERA_FUZZ_HOST_COVERAGE set, a prefix that lost one fails
// here, not silently).

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include <tessera/fusion/backend.hpp>
#include <tessera/program/interpreter.hpp>

namespace td = tessera::detail;

namespace {

struct Seen {
  std::set<int> opcodes, reduce_kinds, reduce_dims;
  bool nested = false, strided = false, replicated = false;
  long launches = 0;
};

Seen& seen() {
  static Seen s;
  return s;
}

void observe(const td::Program& program, int nargs, const td::KernelShape& shape) {
  Seen& s = seen();
  ++s.launches;
  for (const td::Instr& in : program.code) s.opcodes.insert(static_cast<int>(in.op));
  for (td::ReduceKind k : program.reduce_kinds) s.reduce_kinds.insert(static_cast<int>(k));
  if (!program.reduce_kinds.empty()) s.reduce_dims.insert(program.reduce_dim);
  s.nested = s.nested || program.nested.dim >= 0;
  const std::uint64_t all = nargs >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << nargs) - 1;
  s.strided = s.strided || ((shape.unit | shape.scalar) & all) != all;
  s.replicated = s.replicated || shape.scalar != 0;
}

class HostCoverage : public ::testing::Environment {
 public:
  void SetUp() override { td::set_launch_observer(&observe); }
  void TearDown() override {
    td::set_launch_observer(nullptr);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const Seen& s = seen();
    std::string missing;
    // Not: the API emits none (a bool's ~ is BitNot); Random: the corpus creates no random
    // arrays (test_host_jit compiles random()).
    for (int op = 0; op <= static_cast<int>(td::OpCode::NestedResult); ++op)
      if (!s.opcodes.count(op) && op != static_cast<int>(td::OpCode::Not) && op != static_cast<int>(td::OpCode::Random))
        missing += std::string(" ") + td::name(static_cast<td::OpCode>(op));
    for (int k = 0; k <= static_cast<int>(td::ReduceKind::ArgMax); ++k)
      if (!s.reduce_kinds.count(k)) missing += std::string(" reduce:") + td::name(static_cast<td::ReduceKind>(k));
    for (int d : {-1, 0, 1, 2})
      if (!s.reduce_dims.count(d)) missing += " reduce_dim:" + std::to_string(d);
    if (!s.nested) missing += " nested";
    if (!s.strided) missing += " strided-operand";
    if (!s.replicated) missing += " replicated-operand";
    if (rank == 0)
      std::printf("[fuzz-host] %ld launches, %zu opcodes; not covered:%s\n", s.launches, s.opcodes.size(),
                  missing.empty() ? " none" : missing.c_str());
    if (std::getenv("TESSERA_FUZZ_HOST_COVERAGE"))  // set where the prefix must cover everything
      EXPECT_TRUE(missing.empty()) << "the host tier's fuzz prefix no longer covers:" << missing
                                   << " (lengthen TESSERA_FUZZ_PROGRAMS in tests/CMakeLists.txt)";
  }
};

const auto* const kRegistered = ::testing::AddGlobalTestEnvironment(new HostCoverage);

}  // namespace
