// Linked with test_fuzz.cpp and the fuzzer (tests/fuzz/) into test_jit_codegen: while the fuzz
// corpus runs (on the CPU interpreter), every launched program is translated to CUDA
// (jit/codegen.hpp) with the automatic number of elements per thread, one kernel in
// kFourElementsEvery also with 4 (TESSERA_JIT_ELEMENTS=4), one in kOtherElementsEvery with 1, 2
// and 4 (all three for every program would take about 11 minutes here; the test's limit is 15,
// shared in CI with the rest of the suite); at the end each distinct source is compiled by NVRTC
// for sm_90 (which needs no GPU; in batches, most of them to PTX only: CompileCorpus), from
// kCompileThreads threads. Plus the shape of the
// several-elements code, the automatic choice on reference workloads, reductions along an axis,
// nested reductions, epilogues, batches, and the kernel cache's disk behaviour: hits, and corrupt
// or truncated entries rebuilt. Rows and planes (row offsets, carried values, marching, staged
// tiles) are in jit_march_check.cpp, linked beside.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <tessera/fusion/backend.hpp>
#include <tessera/jit/codegen.hpp>
#include <tessera/jit/compile_pool.hpp>
#include <tessera/jit/kernel_cache.hpp>

#include "jit_codegen_support.hpp"
#include "support.hpp"

namespace td = tessera::detail;

namespace jit_check {

constexpr int kElementCounts[] = {1, 2, 4};
constexpr int kFourElementsEvery = 2;
constexpr int kOtherElementsEvery = 8;

std::map<std::uint64_t, td::GeneratedKernel>& corpus() {
  static std::map<std::uint64_t, td::GeneratedKernel> kernels;
  return kernels;
}

// Distinct launched programs (by their automatic kernel) for each automatic number of elements.
std::map<int, std::set<std::uint64_t>>& automatic() {
  static std::map<int, std::set<std::uint64_t>> programs;
  return programs;
}

// The kernels a CUDA build would compile for this launch (the same program, arguments and shape)
// with the automatic number of elements per thread; for one new kernel in kFourElementsEvery
// also with 4, and for one in kOtherElementsEvery with every other count.
void observe(const td::Program& program, int nargs, const td::KernelShape& shape) {
  if (!td::jit_supports(program, nargs)) return;
  static int new_kernels = 0;
  const int automatic_elements = td::elements_per_thread(program, shape);
  td::GeneratedKernel g = td::generate_cuda(program, nargs, shape, automatic_elements);
  const std::uint64_t automatic_hash = g.hash;
  if (corpus().emplace(g.hash, std::move(g)).second) {
    const int k = new_kernels++;
    for (int elements : kElementCounts) {
      if (elements == automatic_elements) continue;
      if (k % kOtherElementsEvery != 0 && (elements != 4 || k % kFourElementsEvery != 0)) continue;
      td::GeneratedKernel other = td::generate_cuda(program, nargs, shape, elements);
      corpus().emplace(other.hash, std::move(other));
    }
  }
  automatic()[automatic_elements].insert(automatic_hash);
}

std::vector<Launched>& launched() {
  static std::vector<Launched> launches;
  return launches;
}
void capture(const td::Program& program, int nargs, const td::KernelShape& shape) {
  observe(program, nargs, shape);
  launched().push_back({program, nargs, shape});
}

}  // namespace jit_check

using namespace jit_check;

namespace {

template <class F>
td::Program longest_program_of(ts::Runtime& rt, F&& work) {
  td::Program longest;
  for (const Launched& l : launches_of(rt, work))
    if (l.program.code.size() > longest.code.size()) longest = l.program;
  return longest;
}

constexpr int kCompileThreads = 2;

// The corpus is compiled in batches of kBatch kernels, each batch one NVRTC program: the
// kernels' common prelude once, then each kernel's entry points renamed with its index. A batch
// costs NVRTC about half of its kernels compiled one by one (the prelude is parsed once); one batch
// in kMachineCodeEvery goes on to sm_90 machine code (ptxas), the others stop at PTX, a fifth of the
// time (about 0.03 s a kernel against 0.15 here, NVRTC 13.0). A batch that fails is compiled
// kernel by kernel, so the errors name the kernels.
constexpr std::size_t kBatch = 32;
constexpr int kMachineCodeEvery = 8;

struct Batch {
  std::string source;
  std::vector<const std::string*> kernels;
};

// A generated source is its leading comments (which name the program), the prelude, then from the
// first entry point on, its own code.
std::pair<std::string, std::string> split_prelude(const std::string& source) {
  std::size_t start = 0;
  while (source.compare(start, 2, "//") == 0) start = source.find('\n', start) + 1;
  const std::size_t entry = source.find("\nextern \"C\" __global__");
  EXPECT_NE(entry, std::string::npos) << source;
  return {source.substr(start, entry - start), source.substr(entry)};
}

std::string renamed_entry_points(std::string code, std::size_t index) {
  for (const std::string name : {"tessera_fused(", "tessera_finish("}) {
    const std::string to = name.substr(0, name.size() - 1) + "_" + std::to_string(index) + "(";
    for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + to.size()))
      code.replace(at, name.size(), to);
  }
  return code;
}

std::vector<Batch> batches(const std::map<std::uint64_t, td::GeneratedKernel>& kernels) {
  std::map<std::string, std::vector<Batch>> by_prelude;  // kernels of one prelude share batches
  for (const auto& [hash, kernel] : kernels) {
    auto [prelude, code] = split_prelude(kernel.source);
    auto& open = by_prelude[prelude];
    if (open.empty() || open.back().kernels.size() == kBatch) open.push_back({prelude, {}});
    open.back().source += renamed_entry_points(std::move(code), open.back().kernels.size());
    open.back().kernels.push_back(&kernel.source);
  }
  std::vector<Batch> all;
  for (auto& [prelude, list] : by_prelude) std::move(list.begin(), list.end(), std::back_inserter(all));
  return all;
}

class CompileCorpus : public ::testing::Environment {
 public:
  void SetUp() override { td::set_launch_observer(&observe); }
  void TearDown() override {
    td::set_launch_observer(nullptr);
    // Compiled on a pool of workers (jit/compile_pool.hpp), as the JIT's background compiles are:
    // NVRTC called from several threads at once must give every kernel. (It runs one compile at a
    // time, so this takes as long as one thread would: docs/JIT.md.)
    td::KernelCache cache("", 90);
    std::mutex m;
    std::vector<std::string> errors;
    const std::vector<Batch> all = batches(corpus());
    {
      td::CompilePool pool(kCompileThreads);
      for (std::size_t b = 0; b < all.size(); ++b)
        pool.submit([&, batch = &all[b], b] {
          const auto stage = b % kMachineCodeEvery == 0 ? td::KernelCache::Stage::Cubin : td::KernelCache::Stage::Ptx;
          std::string batch_error = "NVRTC gave no code for a batch";
          try {
            if (!cache.compile(batch->source, stage).empty()) return;
          } catch (const std::exception& e) {
            batch_error = e.what();
          }
          std::size_t failed_alone = 0;
          for (const std::string* source : batch->kernels) {
            std::string error;
            try {
              if (cache.compile(*source, stage).empty()) error = "NVRTC gave no code for:\n" + *source;
            } catch (const std::exception& e) {
              error = e.what();
            }
            if (error.empty()) continue;
            ++failed_alone;
            std::lock_guard<std::mutex> lock(m);
            errors.push_back(std::move(error));
          }
          if (failed_alone > 0) return;
          std::lock_guard<std::mutex> lock(m);  // batching itself broke the sources
          errors.push_back("a batch fails but each of its kernels compiles alone: " + batch_error);
        });
      pool.wait_idle();
    }
    const int failed = static_cast<int>(errors.size());
    for (int e = 0; e < std::min(failed, 3); ++e) ADD_FAILURE() << errors[e];
    EXPECT_EQ(failed, 0);
    EXPECT_GT(corpus().size(), 10u) << "the fuzz corpus launched too few distinct programs to mean anything";
    const auto carrying = std::count_if(corpus().begin(), corpus().end(), [](const auto& k) {
      return k.second.source.find("if (!carry) {") != std::string::npos;
    });
    EXPECT_GT(carrying, 0) << "no fuzz kernel keeps loads from one row for the next (KernelShape::row_carry)";
    std::printf(
        "[jit] %zu distinct kernels in %zu NVRTC %s programs (one in %d to sm_90 machine code, the rest to PTX), "
        "%.1f s (%d failed)\n",
        corpus().size(), all.size(), td::KernelCache::nvrtc_version().c_str(), kMachineCodeEvery,
        cache.compile_seconds(), failed);
    for (const auto& [elements, programs] : automatic())
      std::printf("[jit] %zu launched programs run with %d element(s) per thread\n", programs.size(), elements);
  }
};

const auto* const registered = ::testing::AddGlobalTestEnvironment(new CompileCorpus);

td::Program reduction_program() {
  // r0 = load a0; r1 = const c0; r2 = mul f64 r0 r1; store a1 <- r2; acc0 += r2 (sum)
  td::Program p;
  p.code = {{td::OpCode::Load, tessera::DType::Float64, tessera::DType::Bool, 0, 0, 0, 0},
            {td::OpCode::Const, tessera::DType::Float64, tessera::DType::Bool, 1, 0, 0, 0},
            {td::OpCode::Mul, tessera::DType::Float64, tessera::DType::Bool, 2, 0, 1, 0},
            {td::OpCode::Store, tessera::DType::Float64, tessera::DType::Bool, 0, 1, 2, 0},
            {td::OpCode::Reduce, tessera::DType::Float64, tessera::DType::Bool, 0, 2, 0, 0}};
  p.constants = {td::make_value<double>(2.0)};
  p.registers = 3;
  p.reduce_kinds = {td::ReduceKind::Max};
  p.reduce_float = {true};
  return p;
}

// r0 = load a0; r1 = load a1; r2 = index; r3 = cast f64 r2; r0 = add r0 r1; r0 = mul r0 r3;
// store a2 <- r0; acc0 += r0 (sum). r0 is redefined from itself.
td::Program interleaving_program() {
  using tessera::DType;
  td::Program p;
  p.code = {{td::OpCode::Load, DType::Float64, DType::Bool, 0, 0, 0, 0},
            {td::OpCode::Load, DType::Float64, DType::Bool, 1, 1, 0, 0},
            {td::OpCode::Index, DType::Int64, DType::Bool, 2, 0, 0, 0},
            {td::OpCode::Cast, DType::Float64, DType::Int64, 3, 2, 0, 0},
            {td::OpCode::Add, DType::Float64, DType::Bool, 0, 0, 1, 0},
            {td::OpCode::Mul, DType::Float64, DType::Bool, 0, 0, 3, 0},
            {td::OpCode::Store, DType::Float64, DType::Bool, 0, 2, 0, 0},
            {td::OpCode::Reduce, DType::Float64, DType::Bool, 0, 0, 0, 0}};
  p.registers = 4;
  p.reduce_kinds = {td::ReduceKind::Sum};
  p.reduce_float = {true};
  return p;
}

// r0 = load a0; r1 = const 0.5; `adds` times r0 = r0 + r1; then store a1 <- r0, or sum r0.
td::Program add_chain(int adds, bool reduce) {
  using tessera::DType;
  td::Program p;
  p.code.push_back({td::OpCode::Load, DType::Float64, DType::Bool, 0, 0, 0, 0});
  p.code.push_back({td::OpCode::Const, DType::Float64, DType::Bool, 1, 0, 0, 0});
  for (int k = 0; k < adds; ++k) p.code.push_back({td::OpCode::Add, DType::Float64, DType::Bool, 0, 0, 1, 0});
  if (reduce) {
    p.code.push_back({td::OpCode::Reduce, DType::Float64, DType::Bool, 0, 0, 0, 0});
    p.reduce_kinds = {td::ReduceKind::Sum};
    p.reduce_float = {true};
  } else {
    p.code.push_back({td::OpCode::Store, DType::Float64, DType::Bool, 0, 1, 0, 0});
  }
  p.constants = {td::make_value<double>(0.5)};
  p.registers = 2;
  return p;
}

}  // namespace

// Four elements per thread: an unguarded path where all four columns are inside the row, with
// the program instruction-major over them, and a guarded path for the ragged end of a row (any
// row length that is not a multiple of 1024: the kernel does not depend on it).
TEST(JitCodegen, FourElementsPerThreadInterleaveAndGuardTheRowsEnd) {
  const td::Program p = interleaving_program();
  td::KernelShape shape;
  shape.unit = 0b101;  // a1 is strided
  const td::GeneratedKernel four = td::generate_cuda(p, 3, shape, 4);
  const std::string& s = four.source;
  constexpr auto npos = std::string::npos;
  EXPECT_EQ(four.elements, 4);
  EXPECT_NE(s.find("4 element(s) per thread"), npos);
  EXPECT_NE(s.find("blockIdx.x) * 1024 + threadIdx.x"), npos) << s;
  // Unguarded: element e at column j + 256 e, loads of every element before any arithmetic.
  EXPECT_NE(s.find("if (j + 768 < n2) {"), npos) << s;
  EXPECT_NE(s.find("const long j_0 = j, j_1 = j + 256, j_2 = j + 512, j_3 = j + 768;"), npos) << s;
  EXPECT_LT(s.find("const double v1_3 = "), s.find("const double v4_0 = "));
  EXPECT_NE(s.find("p.args[1].origin + r1 + j_2 * p.args[1].stride[2])"), npos) << s;
  EXPECT_NE(s.find("(p.domain.global_origin[2] + j_3) * p.domain.global_stride[2]"), npos);
  // A register redefined from itself: each element reads its own previous value.
  EXPECT_NE(s.find("v4_1 = static_cast<double>(el::wrap_add(static_cast<double>(v0_1), static_cast<double>(v1_1)))"),
            npos)
      << s;
  EXPECT_NE(s.find("v5_1 = static_cast<double>(el::wrap_mul(static_cast<double>(v4_1), static_cast<double>(v3_1)))"),
            npos);
  // Reductions take the elements in order.
  std::size_t last = 0;
  for (int e = 0; e < 4; ++e) {
    const std::size_t at = s.find("acc0 = el::wrap_add(acc0, static_cast<double>(v5_" + std::to_string(e) + "));");
    ASSERT_NE(at, npos) << e;
    EXPECT_GT(at, last);
    last = at;
  }
  // Guarded: the ragged end of a row, the elements inside it one at a time.
  const std::size_t ragged = s.find("} else if (j < n2) {");
  ASSERT_NE(ragged, npos) << s;
  EXPECT_NE(s.find("for (long je = j; je < n2; je += 256) {", ragged), npos);
  EXPECT_NE(s.find("(p.domain.global_origin[2] + je) * p.domain.global_stride[2]", ragged), npos);
  EXPECT_NE(s.find("acc0 = el::wrap_add(acc0, static_cast<double>(v5));", ragged), npos);

  // One element per thread: the plain kernel, and another cache key.
  const td::GeneratedKernel one = td::generate_cuda(p, 3, shape, 1);
  EXPECT_NE(one.hash, four.hash);
  EXPECT_NE(one.source.find("if (j < n2) {"), npos);
  EXPECT_EQ(one.source.find("j_0"), npos);
  EXPECT_EQ(one.source.find("for (long je"), npos);
  EXPECT_THROW(td::generate_cuda(p, 3, shape, 3), tessera::Error);

  td::KernelCache cache("", 90);
  tessera::Stats stats;
  td::KernelShape flat = shape;
  flat.flat = true;
  for (int elements : kElementCounts) {
    EXPECT_FALSE(cache.cubin(td::generate_cuda(p, 3, shape, elements), stats).empty()) << elements;
    EXPECT_FALSE(cache.cubin(td::generate_cuda(p, 3, flat, elements), stats).empty()) << elements;
  }
}

// Loads come first: a load written after a store in program order is emitted before it (the
// planner never lets a group load what it stores, except through forwarding), and the other
// instructions keep their order and their operands.
TEST(JitCodegen, LoadsAreIssuedBeforeStores) {
  using tessera::DType;
  td::Program p;  // r0 = load a0; store a1 <- r0; r1 = load a2; r0 = add r0 r1; store a3 <- r0
  p.code = {{td::OpCode::Load, DType::Float64, DType::Bool, 0, 0, 0, 0},
            {td::OpCode::Store, DType::Float64, DType::Bool, 0, 1, 0, 0},
            {td::OpCode::Load, DType::Float64, DType::Bool, 1, 2, 0, 0},
            {td::OpCode::Add, DType::Float64, DType::Bool, 0, 0, 1, 0},
            {td::OpCode::Store, DType::Float64, DType::Bool, 0, 3, 0, 0}};
  p.registers = 2;
  for (int elements : kElementCounts) {
    const std::string s = td::generate_cuda(p, 4, {}, elements).source;
    const std::string suffix = elements == 1 ? "" : "_0";
    const std::size_t second_load = s.find("const double v2" + suffix + " = *(");
    const std::size_t first_store = s.find("*(reinterpret_cast<double*>(p.args[1].ptr)");
    ASSERT_NE(second_load, std::string::npos) << s;
    ASSERT_NE(first_store, std::string::npos) << s;
    EXPECT_LT(second_load, first_store) << s;
    EXPECT_NE(s.find("v3" + suffix + " = static_cast<double>(el::wrap_add(static_cast<double>(v0" + suffix +
                     "), static_cast<double>(v2" + suffix + ")))"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("const long r3 = i0 * p.args[3].stride[0] + i1 * p.args[3].stride[1];"), std::string::npos) << s;
    EXPECT_NE(s.find("p.args[3].ptr) + (p.args[3].origin + r3 + j"), std::string::npos) << s;
  }
}

// Many loads: one element per thread (their values are all live at once, E times over), but a
// replicated value (CG's alpha, a 0-d array) does not count: it is one value for every element.
TEST(JitCodegen, ManyLoadsRunOneElementPerThread) {
  using tessera::DType;
  td::Program p;  // r0 = load a0; r0 += load a1 ... a8; store a9 <- r0
  p.code.push_back({td::OpCode::Load, DType::Float64, DType::Bool, 0, 0, 0, 0});
  for (std::uint16_t a = 1; a < 9; ++a) {
    p.code.push_back({td::OpCode::Load, DType::Float64, DType::Bool, 1, a, 0, 0});
    p.code.push_back({td::OpCode::Add, DType::Float64, DType::Bool, 0, 0, 1, 0});
  }
  p.code.push_back({td::OpCode::Store, DType::Float64, DType::Bool, 0, 9, 0, 0});
  p.registers = 2;
  EXPECT_EQ(td::elements_per_thread(p), 1);  // 9 loads
  td::KernelShape alpha;
  alpha.scalar = std::uint64_t(1) << 8;
  EXPECT_EQ(td::elements_per_thread(p, alpha), 2);  // 8 loads of elements and a replicated value
}

// The automatic choice on the programs of reference workloads (bench/tessera_workloads.cpp):
// the stencil two elements per thread, CG's reducing kernel four, Black-Scholes (compute-bound)
// one.
TEST_F(TesseraTest, ElementsPerThreadSuitTheReferenceWorkloads) {
  auto grid = ts::random<double>({64, 80}, 1);
  auto inner = [](const ts::Array<double>& a) { return a(ts::slice(1, -1), ts::slice(1, -1)); };
  const td::Program stencil = longest_program_of(rt(), [&] {
    inner(grid).assign(0.2 * (inner(grid) + grid(ts::slice(0, -2), ts::slice(1, -1)) +
                              grid(ts::slice(1, -1), ts::slice(2, ts::end)) + grid(ts::slice(1, -1), ts::slice(0, -2)) +
                              grid(ts::slice(2, ts::end), ts::slice(1, -1))));
  });
  const td::Program cg_dot = longest_program_of(rt(), [&] {
    auto q = 4.0 * inner(grid) - grid(ts::slice(0, -2), ts::slice(1, -1)) -
             grid(ts::slice(2, ts::end), ts::slice(1, -1)) - grid(ts::slice(1, -1), ts::slice(0, -2)) -
             grid(ts::slice(1, -1), ts::slice(2, ts::end));
    (void)ts::vdot(inner(grid), q).item();
  });
  const std::int64_t n = 1000;
  auto S = ts::random<double>({n}, 2) * 25.0 + 5.0;
  auto X = ts::random<double>({n}, 3) * 99.0 + 1.0;
  auto T = ts::random<double>({n}, 4) * 9.75 + 0.25;
  auto call = ts::zeros<double>({n}), put = ts::zeros<double>({n});
  rt().flush();
  const td::Program black_scholes = longest_program_of(rt(), [&] { ::black_scholes(S, X, T, call, put); });
  for (const auto& [name, p] : {std::pair<const char*, const td::Program&>{"stencil", stencil},
                                {"cg dot", cg_dot},
                                {"black-scholes", black_scholes}})
    std::printf("[jit] %s: %zu instructions, %d registers, %d element(s) per thread\n", name, p.code.size(),
                p.registers, td::elements_per_thread(p));
  ASSERT_FALSE(cg_dot.reduce_kinds.empty());
  EXPECT_EQ(td::elements_per_thread(stencil), 2);
  EXPECT_EQ(td::elements_per_thread(cg_dot), 4);
  EXPECT_EQ(td::elements_per_thread(black_scholes), 1);
}

// Every elementwise instruction, for each element type that the array API emits it with, in one
// program per type: r0 = load a0; r1 = load a1; then r2 = op r0 (r1), stored to a2 (a3 for bool
// results). NVRTC must compile each.
TEST(JitCodegen, EveryElementwiseOpCompilesForEachTypeItTakes) {
  using td::OpCode;
  using tessera::DType;
  const std::vector<OpCode> any_type = {
      OpCode::Neg, OpCode::Abs, OpCode::Not, OpCode::Sign, OpCode::Square, OpCode::IsNan, OpCode::IsFinite, OpCode::Add,
      OpCode::Sub, OpCode::Mul, OpCode::Div, OpCode::Pow,  OpCode::Max,    OpCode::Min,   OpCode::And,      OpCode::Or,
      OpCode::Mod, OpCode::Eq,  OpCode::Ne,  OpCode::Lt,   OpCode::Le,     OpCode::Gt,    OpCode::Ge};
  const std::vector<OpCode> floating = {OpCode::Sqrt,  OpCode::Exp,  OpCode::Log,  OpCode::Sin,
                                        OpCode::Cos,   OpCode::Tanh, OpCode::Erf,  OpCode::Tan,
                                        OpCode::Floor, OpCode::Ceil, OpCode::Atan2};
  const std::vector<OpCode> integral = {OpCode::BitNot, OpCode::BitAnd, OpCode::BitOr, OpCode::BitXor};
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  for (DType t : {DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64}) {
    SCOPED_TRACE(tessera::name(t));
    td::Program p;
    p.code = {{OpCode::Load, t, t, 0, 0, 0, 0}, {OpCode::Load, t, t, 1, 1, 0, 0}};
    std::vector<OpCode> ops = any_type;
    const std::vector<OpCode>& more = tessera::is_float(t) ? floating : integral;
    ops.insert(ops.end(), more.begin(), more.end());
    for (OpCode op : ops) {
      ASSERT_TRUE(td::is_unary(op) || td::is_binary(op)) << td::name(op);
      p.code.push_back({op, t, t, 2, 0, static_cast<std::uint16_t>(td::is_binary(op) ? 1 : 0), 0});
      const bool to_bool = td::yields_bool(op);
      p.code.push_back(
          {OpCode::Store, to_bool ? DType::Bool : t, t, 0, static_cast<std::uint16_t>(to_bool ? 3 : 2), 2, 0});
    }
    p.registers = 3;
    const td::GeneratedKernel kernel = td::generate_cuda(p, 4, {}, 1);
    for (OpCode op : ops) EXPECT_NE(p.describe().find(td::name(op)), std::string::npos) << td::name(op);
    EXPECT_FALSE(cache.cubin(kernel, stats).empty()) << kernel.source;
  }
}

TEST(KernelCache, DiskEntriesAreReusedAndBadOnesRebuilt) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tessera-kernel-cache-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
       std::to_string(reinterpret_cast<std::uintptr_t>(&dir)));
  std::filesystem::remove_all(dir);
  const td::GeneratedKernel kernel = td::generate_cuda(reduction_program(), 2, {}, 1);
  EXPECT_NE(kernel.source.find("tessera_finish"), std::string::npos);
  tessera::Stats stats;
  std::vector<char> first;
  {
    td::KernelCache cache(dir.string(), 90);
    first = cache.cubin(kernel, stats);
    cache.cubin(kernel, stats);  // memory hit
  }
  EXPECT_EQ(stats.kernel_compiles, 1);
  EXPECT_EQ(stats.kernel_cache_hits, 1);
  std::vector<std::filesystem::path> entries;
  for (const auto& e : std::filesystem::directory_iterator(dir)) entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 1u) << "one entry, no temporary files left behind";

  {  // A new process (a fresh cache) finds it on disk.
    td::KernelCache cache(dir.string(), 90);
    EXPECT_EQ(cache.cubin(kernel, stats), first);
  }
  EXPECT_EQ(stats.kernel_disk_hits, 1);
  EXPECT_EQ(stats.kernel_compiles, 1);

  {  // A flipped byte in the payload: detected, compiled again, replaced.
    std::fstream f(entries[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-5, std::ios::end);
    f.put('\x5a');
  }
  {
    td::KernelCache cache(dir.string(), 90);
    EXPECT_EQ(cache.cubin(kernel, stats), first);
  }
  EXPECT_EQ(stats.kernel_compiles, 2);

  std::filesystem::resize_file(entries[0], 20);  // truncated: detected too
  {
    td::KernelCache cache(dir.string(), 90);
    EXPECT_EQ(cache.cubin(kernel, stats), first);
  }
  EXPECT_EQ(stats.kernel_compiles, 3);
  {  // and the rebuilt entry is good again
    td::KernelCache cache(dir.string(), 90);
    cache.cubin(kernel, stats);
  }
  EXPECT_EQ(stats.kernel_disk_hits, 2);
  std::filesystem::remove_all(dir);
}

// A long program that does not reduce (at least 128 instructions, one element per thread: the
// shallow-water step's interior) is compiled for 4 resident blocks per SM; shorter ones, and
// reducing ones, keep the compiler's register choice.
TEST(JitCodegen, LongProgramsAskForFourBlocksPerSM) {
  const td::Program long_one = add_chain(130, false), short_one = add_chain(20, false), reducing = add_chain(130, true);
  EXPECT_NE(td::generate_cuda(long_one, 2, {}, 1).source.find("__launch_bounds__(256, 4)"), std::string::npos);
  EXPECT_NE(td::generate_cuda(short_one, 2, {}, 1).source.find("__launch_bounds__(256)"), std::string::npos);
  EXPECT_EQ(td::generate_cuda(reducing, 1, {}, 1).source.find("__launch_bounds__(256, 4)"), std::string::npos);
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  EXPECT_FALSE(cache.cubin(td::generate_cuda(long_one, 2, {}, 1), stats).empty());
}

// Floating constants +0 and the powers of two from 1/4 to 4 of either sign are literals in the
// kernel (jit/emitter.hpp, small_literal); the others, -0 among them, come from the parameter block.
TEST(JitCodegen, SmallConstantsAreLiterals) {
  using tessera::DType;
  const std::vector<double> values = {2.0, -0.25, 0.0, 4.0, 0.37, -0.0, 3.0, 8.0};
  td::Program p;  // r0 = load a0; per constant k: r1 = const k, r0 = r0 * r1; store a1 <- r0
  p.code.push_back({td::OpCode::Load, DType::Float64, DType::Bool, 0, 0, 0, 0});
  for (std::size_t k = 0; k < values.size(); ++k) {
    p.code.push_back({td::OpCode::Const, DType::Float64, DType::Bool, 1, static_cast<std::uint16_t>(k), 0, 0});
    p.code.push_back({td::OpCode::Mul, DType::Float64, DType::Bool, 0, 0, 1, 0});
    p.constants.push_back(td::make_value<double>(values[k]));
  }
  p.code.push_back({td::OpCode::Store, DType::Float64, DType::Bool, 0, 1, 0, 0});
  p.registers = 2;
  const td::GeneratedKernel g = td::generate_cuda(p, 2, {}, 1);
  for (const char* literal : {"(0x1p+1)", "(-0x1p-2)", "(0x0p+0)", "(0x1p+2)"})
    EXPECT_NE(g.source.find(literal), std::string::npos) << literal << " in\n" << g.source;
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(g.source.find("p.constants[" + std::to_string(k) + "]"), std::string::npos) << k;
  for (int k = 4; k < 8; ++k)
    EXPECT_NE(g.source.find("p.constants[" + std::to_string(k) + "]"), std::string::npos) << k;
  td::Program half;  // float32: store a1 <- load a0 * 0.5f
  half.code = {{td::OpCode::Load, DType::Float32, DType::Bool, 0, 0, 0, 0},
               {td::OpCode::Const, DType::Float32, DType::Bool, 1, 0, 0, 0},
               {td::OpCode::Mul, DType::Float32, DType::Bool, 0, 0, 1, 0},
               {td::OpCode::Store, DType::Float32, DType::Bool, 0, 1, 0, 0}};
  half.constants = {td::make_value<float>(0.5f)};
  half.registers = 2;
  const td::GeneratedKernel h = td::generate_cuda(half, 2, {}, 2);
  EXPECT_NE(h.source.find("(0x1p-1f)"), std::string::npos) << h.source;
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  EXPECT_FALSE(cache.cubin(g, stats).empty());
  EXPECT_FALSE(cache.cubin(h, stats).empty());
}

TEST(KernelCache, ProgramsWithMoreConstantsThanTheParameterBlockCompile) {
  // r0 = load a0; then 70 times: r1 = const c_k; r0 = add r0 r1; finally store a1 <- r0.
  td::Program p;
  p.code.push_back({td::OpCode::Load, tessera::DType::Float64, tessera::DType::Bool, 0, 0, 0, 0});
  for (int k = 0; k < 70; ++k) {
    p.code.push_back(
        {td::OpCode::Const, tessera::DType::Float64, tessera::DType::Bool, 1, static_cast<std::uint16_t>(k), 0, 0});
    p.code.push_back({td::OpCode::Add, tessera::DType::Float64, tessera::DType::Bool, 0, 0, 1, 0});
    p.constants.push_back(td::make_value<double>(0.5 + k));
  }
  p.code.push_back({td::OpCode::Store, tessera::DType::Float64, tessera::DType::Bool, 0, 1, 0, 0});
  p.registers = 2;
  ASSERT_TRUE(td::jit_supports(p, 2));
  const td::GeneratedKernel kernel = td::generate_cuda(p, 2, {}, td::elements_per_thread(p));
  EXPECT_NE(kernel.source.find("p.constants[63]"), std::string::npos);
  EXPECT_EQ(kernel.source.find("p.constants[64]"), std::string::npos) << "constant 64 must be a literal";
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  EXPECT_FALSE(cache.cubin(kernel, stats).empty());
}

// Reductions along a dimension (a warp per row along the last one, threads per column with the
// reduced dimension in chunks along an outer one) and the arg kinds (value and index folded
// together), each with the elements per thread a launch may use: the programs run here are
// observed like the fuzz corpus's and compiled at the end; the sources also keep their shape.
TEST_F(TesseraTest, AxisReductionsAndArgKindsCompile) {
  auto a = ts::random<double>({9, 7, 5}, 1);
  auto m = ts::random<float>({6, 11}, 2);
  for (int axis = 0; axis < 3; ++axis) {
    (void)ts::sum(a * 2.0, axis).to_host();
    (void)ts::argmin(a, axis).to_host();
    (void)ts::max(a, axis, true).to_host();
  }
  (void)(m - ts::mean(m, 0, true)).to_host();
  (void)ts::count_nonzero(m > 0.5f, 1).to_host();
  EXPECT_GE(ts::argmax(a).item(), 0);
  td::Program along_rows;
  along_rows.code = {{td::OpCode::Load, tessera::DType::Float64, tessera::DType::Bool, 0, 0, 0, 0},
                     {td::OpCode::Coord, tessera::DType::Int64, tessera::DType::Int64, 1, 2, 0, 0},
                     {td::OpCode::ReduceArg, tessera::DType::Float64, tessera::DType::Float64, 0, 0, 1, 0}};
  along_rows.registers = 2;
  along_rows.reduce_kinds = {td::ReduceKind::ArgMin};
  along_rows.reduce_float = {true};
  along_rows.reduce_dim = 2;
  const td::GeneratedKernel rows = td::generate_cuda(along_rows, 1, {}, 2);
  EXPECT_NE(rows.source.find("__shfl_down_sync"), std::string::npos);
  EXPECT_TRUE(rows.finish_name.empty());
  along_rows.reduce_dim = 0;
  const td::GeneratedKernel columns = td::generate_cuda(along_rows, 1, {}, 2);
  EXPECT_NE(columns.source.find("p.chunks"), std::string::npos);
  EXPECT_FALSE(columns.finish_name.empty());
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  EXPECT_FALSE(cache.cubin(rows, stats).empty());
  EXPECT_FALSE(cache.cubin(columns, stats).empty());
}

// Nested reductions (generate_nested): a thread per output folding both axes in registers. The
// k-means step in float64 and float32, an inner mean along the middle axis, an inner sum along
// the first axis, integers, an inner argmin (its index is the value the outer max sees), and the
// argmin and min of one sum in one kernel (two outer slots); each program is compiled here (and
// joins the corpus).
TEST_F(TesseraTest, NestedReductionsCompile) {
  launched().clear();
  td::set_launch_observer(&capture);
  // Results are kept in variables, never read in the same expression: an expression's temporaries
  // (the inner results) live until it ends, so .to_host() there would see them held, not nested.
  auto P = ts::random<double>({13, 3}, 1), C = ts::random<double>({4, 3}, 2);
  const auto diff = [&] { return P(ts::all, ts::newaxis, ts::all) - C(ts::newaxis, ts::all, ts::all); };
  auto Pf = P.astype<float>(), Cf = C.astype<float>();
  auto Pi = (P * 10.0).astype<std::int64_t>(), Ci = (C * 10.0).astype<std::int64_t>();
  std::vector<ts::Array<std::int64_t>> labels;
  std::vector<ts::Array<double>> values;
  labels.push_back(ts::argmin(ts::sum(ts::square(diff()), 2), 1));
  labels.push_back(
      ts::argmin(ts::sum(ts::square(Pf(ts::all, ts::newaxis, ts::all) - Cf(ts::newaxis, ts::all, ts::all)), 2), 1));
  values.push_back(ts::mean(ts::mean(diff(), 1), 1));
  labels.push_back(ts::argmax(ts::sum(diff() * 2.0, 0), 1));
  labels.push_back(ts::max(ts::sum(Pi(ts::all, ts::newaxis, ts::all) * Ci(ts::newaxis, ts::all, ts::all), 2), 1));
  labels.push_back(ts::max(ts::argmin(diff(), 2), 1));
  {  // argmin and min of one sum: two outer slots in one nested kernel
    auto d2 = ts::sum(ts::square(diff()), 2);
    labels.push_back(ts::argmin(d2, 1));
    values.push_back(ts::min(d2, 1));
  }
  rt().flush();
  td::set_launch_observer(&observe);
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  int staged = 0, two_slots = 0;
  std::size_t nested = 0;
  for (const Launched& l : launched()) {
    if (l.program.nested.dim < 0) continue;
    ++nested;
    two_slots += l.program.reduce_kinds.size() == 2;
    const td::GeneratedKernel g = td::generate_cuda(l.program, l.nargs, l.shape, 4);
    EXPECT_EQ(g.elements, 1);
    EXPECT_TRUE(g.finish_name.empty());
    EXPECT_NE(g.source.find("nacc"), std::string::npos) << g.source;
    EXPECT_EQ(g.staged, l.shape.invariant & g.staged);
    EXPECT_EQ(g.staged != 0, g.source.find("__syncthreads();") != std::string::npos) << g.source;
    staged += g.staged != 0;
    // Where the centroids are staged, the point is the other operand: loaded once per output into
    // registers (when, at run time, it is the same for every centroid), not once per centroid.
    if (g.staged) EXPECT_NE(g.source.find("const bool hoist = staged && "), std::string::npos) << g.source;
    // The inner extent (of the (13, 4, 3) domain; a rank's part of the 13 points) is small: the
    // kernel is compiled for it.
    const std::int64_t extent = l.shape.nested_extent;
    if (l.program.nested.dim == 0)
      EXPECT_TRUE(extent >= 1 && extent <= 13) << extent;
    else
      EXPECT_EQ(extent, l.program.nested.dim == 1 ? 4 : 3);
    EXPECT_NE(g.source.find("const long nD = " + std::to_string(extent) + ";"), std::string::npos) << g.source;
    EXPECT_FALSE(cache.cubin(g, stats).empty()) << g.source;
    // Without assumptions (no staging, strided arguments): the other form of the same kernel.
    EXPECT_FALSE(cache.cubin(td::generate_cuda(l.program, l.nargs, {}, 1), stats).empty());
  }
  EXPECT_EQ(nested, 7u);
  EXPECT_EQ(two_slots, 1);
  // The centroids are staged wherever the outputs are the points (all but the argmax over (k, d)).
  EXPECT_EQ(staged, 6);
}

// Epilogues (Program::epilogue): reductions along the last dimension whose results feed
// elementwise work in the same kernel, run by lane 0 of each row's warp; float and integer
// results, a mean, an index, float32; each compiles with NVRTC in both kernel forms.
TEST_F(TesseraTest, EpiloguesCompile) {
  launched().clear();
  td::set_launch_observer(&capture);
  auto A = ts::random<double>({13, 7}, 1), x = ts::random<double>({7}, 2), b = ts::random<double>({13}, 3);
  auto F = A.astype<float>();
  rt().flush();  // the operands are stored: an epilogue's group stores nothing else
  std::vector<ts::Array<double>> values;
  std::vector<ts::Array<std::int64_t>> labels;
  std::vector<ts::Array<float>> singles;
  values.push_back((b - ts::sum(A * x(ts::newaxis, ts::all), 1)) / b);
  values.push_back(ts::sqrt(ts::mean(ts::square(A), 1, true)) + 1.0);
  values.push_back(ts::max(A, 1) - ts::min(A, 1));
  labels.push_back(ts::argmax(A, 1) + std::int64_t(1));
  labels.push_back(ts::count_nonzero(A > 0.5, 1) * std::int64_t(2));
  singles.push_back(ts::sum(F, 1) * 2.0f);
  rt().flush();
  td::set_launch_observer(&observe);
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  std::size_t epilogues = 0;
  for (const Launched& l : launched()) {
    if (l.program.epilogue < 0) continue;
    ++epilogues;
    for (const int elements : {4, 1}) {
      const td::GeneratedKernel g = td::generate_cuda(l.program, l.nargs, l.shape, elements);
      EXPECT_EQ(g.source.find("p.partials"), std::string::npos) << g.source;  // no outputs of its own
      EXPECT_FALSE(cache.cubin(g, stats).empty()) << g.source;
    }
    EXPECT_FALSE(cache.cubin(td::generate_cuda(l.program, l.nargs, {}, 1), stats).empty());
  }
  const bool columns_cut = td::runtime().grid(2).dim(1) > 1;
  EXPECT_EQ(epilogues, columns_cut ? 0u : 6u);
}

// A row reduction that reads a vector in every row (a matvec, A @ x as sum(A * x, 1) with its
// epilogue) folds kRowGroup rows per segment, x addressed without a row part, so its loads serve
// every row of the group; a row reduction of the matrix alone folds one row at a time. Both
// compile, also where a rank's rows are not a multiple of the group (the kernel's last rows).
TEST_F(TesseraTest, RowsThatReadOneVectorFoldInGroups) {
  auto A = ts::random<double>({37, 41}, 1), x = ts::random<double>({41}, 2), b = ts::random<double>({37}, 3);
  rt().flush();
  std::vector<ts::Array<double>> results;
  const auto& launches = launches_of(rt(), [&] {
    results.push_back((b - ts::sum(A * x(ts::newaxis, ts::all), 1)) / b);
    results.push_back(ts::sum(A, 1));
  });
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  std::vector<int> groups;
  for (const Launched& l : launches) {
    if (l.program.reduce_dim != 2 || l.shape.flat) continue;
    const td::GeneratedKernel g = td::generate_cuda(l.program, l.nargs, l.shape, 4);
    groups.push_back(g.row_group);
    if (g.row_group > 1) {
      EXPECT_LE(g.elements, 2) << "a group of rows holds its rows' elements in registers together";
      ASSERT_NE(l.shape.row_invariant, 0u);
      int a = 0;
      while (!(l.shape.row_invariant >> a & 1)) ++a;  // x: no row part in its address
      EXPECT_NE(g.source.find("(p.args[" + std::to_string(a) + "].origin + j_0)"), std::string::npos) << g.source;
    }
    EXPECT_FALSE(cache.cubin(g, stats).empty()) << g.source;
  }
  const bool columns_cut = td::runtime().grid(2).dim(1) > 1;  // then the products fold in other kernels
  if (!columns_cut) EXPECT_EQ(groups, (std::vector<int>{4, 1}));
}

// A batch of boundary strips (fusion/executor.cpp, execute_batch) is one kernel: each part's
// program over its own domain, a barrier between parts, the parts' arguments and constants one
// after the other in the parameter block; it compiles with NVRTC.
TEST(JitCodegen, BatchesOfSmallProgramsCompile) {
  using tessera::DType;
  // part 0: store a1 <- load a0 * 2; part 1: store a0 <- const (its constant is the batch's second)
  td::Program scale, fill;
  scale.code = {{td::OpCode::Load, DType::Float64, DType::Bool, 0, 0, 0, 0},
                {td::OpCode::Const, DType::Float64, DType::Bool, 1, 0, 0, 0},
                {td::OpCode::Mul, DType::Float64, DType::Bool, 2, 0, 1, 0},
                {td::OpCode::Store, DType::Float64, DType::Bool, 0, 1, 2, 0}};
  scale.constants = {td::make_value<double>(2.0)};
  scale.registers = 3;
  fill.code = {{td::OpCode::Const, DType::Float64, DType::Bool, 0, 0, 0, 0},
               {td::OpCode::Store, DType::Float64, DType::Bool, 0, 0, 0, 0}};
  fill.constants = {td::make_value<double>(0.3)};  // not a small constant (those are literals)
  fill.registers = 1;
  const std::vector<td::BatchPart> parts = {{&scale, 2}, {&fill, 1}};
  ASSERT_TRUE(td::batch_fits(parts));
  const td::GeneratedKernel g = td::generate_batch(parts);
  EXPECT_NE(g.source.find("p.args[2]"), std::string::npos) << "the second part's argument follows the first's two";
  EXPECT_NE(g.source.find("p.constants[1]"), std::string::npos);
  EXPECT_NE(g.source.find("__syncthreads()"), std::string::npos);
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  EXPECT_FALSE(cache.cubin(g, stats).empty());
  // Independent parts (fusion/window.cpp, batch_runs): each over its own blocks, no barrier.
  const td::GeneratedKernel spread = td::generate_batch(parts, td::BatchOrder::Independent);
  EXPECT_EQ(spread.source.find("__syncthreads()"), std::string::npos);
  EXPECT_NE(spread.source.find("blk < p.first_block[2]"), std::string::npos) << spread.source;
  EXPECT_NE(spread.hash, g.hash);
  EXPECT_FALSE(cache.cubin(spread, stats).empty()) << spread.source;
  // Reductions and too many parts do not batch.
  std::vector<td::BatchPart> many(td::kMaxBatchParts + 1, td::BatchPart{&fill, 1});
  EXPECT_FALSE(td::batch_fits(many));
}
