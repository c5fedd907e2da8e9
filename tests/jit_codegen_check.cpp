// Linked with test_fuzz.cpp into test_jit_codegen: while the fuzz corpus runs (on the CPU
// interpreter), every launched program is translated to CUDA (jit/codegen.hpp); at the end each
// distinct source is compiled by NVRTC for sm_90, which needs no GPU. Plus the kernel cache's
// disk behaviour: hits, and corrupt or truncated entries rebuilt.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <tessera/jit/codegen.hpp>
#include <tessera/jit/kernel_cache.hpp>

namespace td = tessera::detail;

namespace {

std::map<std::uint64_t, td::GeneratedKernel>& corpus() {
  static std::map<std::uint64_t, td::GeneratedKernel> kernels;
  return kernels;
}

// The kernel a CUDA build would compile for this launch: the same program, arguments and shape.
void observe(const td::Program& program, int nargs, const td::KernelShape& shape) {
  if (!td::jit_supports(program, nargs)) return;
  td::GeneratedKernel g = td::generate_cuda(program, nargs, shape);
  corpus().emplace(g.hash, std::move(g));
}

class CompileCorpus : public ::testing::Environment {
 public:
  void SetUp() override { td::set_launch_observer(&observe); }
  void TearDown() override {
    td::set_launch_observer(nullptr);
    td::KernelCache cache("", 90);
    tessera::Stats stats;
    int failed = 0;
    for (const auto& [hash, kernel] : corpus()) {
      try {
        EXPECT_FALSE(cache.cubin(kernel, stats).empty());
      } catch (const std::exception& e) {
        if (++failed <= 3) ADD_FAILURE() << e.what();
      }
    }
    EXPECT_EQ(failed, 0);
    EXPECT_GT(corpus().size(), 10u) << "the fuzz corpus launched too few distinct programs to mean anything";
    std::printf("[jit] %zu distinct fused programs compiled with NVRTC %s for sm_90 in %.1f s (%d failed)\n",
                corpus().size(), td::KernelCache::nvrtc_version().c_str(), cache.compile_seconds(), failed);
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

}  // namespace

TEST(KernelCache, DiskEntriesAreReusedAndBadOnesRebuilt) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tessera-kernel-cache-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
       std::to_string(reinterpret_cast<std::uintptr_t>(&dir)));
  std::filesystem::remove_all(dir);
  const td::GeneratedKernel kernel = td::generate_cuda(reduction_program(), 2);
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
  const td::GeneratedKernel kernel = td::generate_cuda(p, 2);
  EXPECT_NE(kernel.source.find("p.constants[63]"), std::string::npos);
  EXPECT_EQ(kernel.source.find("p.constants[64]"), std::string::npos) << "constant 64 must be a literal";
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  EXPECT_FALSE(cache.cubin(kernel, stats).empty());
}
