// The JIT tiers' compile pool (jit/compile_pool.hpp): every job runs once, wait_idle() returns
// after the last one has finished, jobs start in submission order, and up to `threads` run at
// once (a rendezvous that only that many concurrent jobs can complete). And, on CUDA builds, the
// rule of background compiles (docs/JIT.md): a kernel's first launch runs on the interpreter,
// every later one compiled, whatever the disk cache holds.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <tessera/jit/compile_pool.hpp>

#include "support.hpp"

namespace {

using tessera::detail::CompilePool;

TEST(CompilePool, RunsEveryJobOnceAndWaitIdleWaitsForTheLast) {
  for (int threads : {1, 2, 5}) {
    SCOPED_TRACE(threads);
    CompilePool pool(threads);
    constexpr int kJobs = 200;
    std::vector<std::atomic<int>> runs(kJobs);
    std::atomic<int> finished{0};
    for (int j = 0; j < kJobs; ++j)
      pool.submit([&, j] {
        volatile double x = 0;  // some work, so that jobs overlap
        for (int i = 0; i < 20000; ++i) x = x + i * 1e-9;
        runs[j]++;
        finished++;
      });
    pool.wait_idle();
    EXPECT_EQ(finished.load(), kJobs);
    for (int j = 0; j < kJobs; ++j) EXPECT_EQ(runs[j].load(), 1) << j;
    pool.wait_idle();  // nothing queued: returns at once
  }
  CompilePool unused(3);
  unused.wait_idle();  // no job, no worker: returns at once
}

TEST(CompilePool, OneWorkerRunsJobsInSubmissionOrder) {
  CompilePool pool(1);
  std::vector<int> order;  // one worker: no lock needed
  for (int j = 0; j < 50; ++j) pool.submit([&order, j] { order.push_back(j); });
  pool.wait_idle();
  ASSERT_EQ(order.size(), 50u);
  for (int j = 0; j < 50; ++j) EXPECT_EQ(order[j], j);
}

TEST(CompilePool, RunsAsManyJobsAtOnceAsItHasThreads) {
  constexpr int kThreads = 3;
  CompilePool pool(kThreads);
  std::mutex m;
  std::condition_variable all_in;
  int arrived = 0;
  std::atomic<int> met{0};
  for (int j = 0; j < kThreads; ++j)
    pool.submit([&] {
      std::unique_lock<std::mutex> lock(m);
      ++arrived;
      all_in.notify_all();
      // Serial workers would never get here together; the bound only keeps a broken pool from
      // hanging the suite.
      if (all_in.wait_for(lock, std::chrono::seconds(120), [&] { return arrived == kThreads; })) met++;
    });
  pool.wait_idle();
  EXPECT_EQ(met.load(), kThreads) << "the pool did not run " << kThreads << " jobs at once";
}

// A program's results with a fresh runtime of this configuration: the first and the second run of
// the same statements (each a window of two kernels: random, then the expression).
std::vector<std::vector<double>> two_runs(ts::Config c, std::int64_t* compiles = nullptr) {
  int argc = 0;
  char** argv = nullptr;
  ts::Runtime rt(argc, argv, c);
  std::vector<std::vector<double>> out;
  for (int run = 0; run < 2; ++run) {
    auto a = ts::random<double>({4099}, 7);
    out.push_back((ts::exp(a) * 2.0 + ts::sin(a) * a).to_host());
  }
  if (compiles) *compiles = rt.stats().kernel_compiles;
  return out;
}

TEST(BackgroundCompiles, CudaKernelsRunCompiledFromTheirSecondLaunchWhateverTheCacheHolds) {
  EnvGuard backend("TESSERA_BACKEND", std::nullopt);
  EnvGuard wait("TESSERA_JIT_WAIT", std::nullopt);
  EnvGuard cache("TESSERA_CACHE_DIR", std::nullopt);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string dir = (std::filesystem::temp_directory_path() / "tessera-background-compiles").string();
  if (rank == 0) std::filesystem::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  ts::Config interp;
  interp.backend = ts::Backend::Interp;
  ts::Config compiled;
  compiled.backend = ts::Backend::Jit;
  compiled.cache_dir = dir;
  compiled.jit_wait = true;
  ts::Config background = compiled;
  background.jit_wait = false;
  {
    int argc = 0;
    char** argv = nullptr;
    ts::Runtime rt(argc, argv, background);
    if (!tessera::detail::runtime().jit()) GTEST_SKIP() << "no CUDA JIT in this build";
  }
  const auto reference = two_runs(interp);
  std::int64_t compiles = 0;
  const auto cold = two_runs(background, &compiles);  // an empty cache: compiled in the background
  EXPECT_GT(compiles, 0);
  const auto warm = two_runs(background, &compiles);  // every kernel on disk
  EXPECT_EQ(compiles, 0);
  const auto waited = two_runs(compiled);
  const auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
  };
  for (const auto* run : {&cold, &warm}) {
    EXPECT_TRUE(same((*run)[0], reference[0])) << "a first launch did not run on the interpreter";
    EXPECT_TRUE(same((*run)[1], waited[1])) << "a second launch did not run the compiled kernel";
  }
  for (std::size_t i = 0; i < reference[0].size(); ++i) ASSERT_NEAR(waited[1][i], reference[0][i], 1e-12);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::remove_all(dir);
}

}  // namespace
