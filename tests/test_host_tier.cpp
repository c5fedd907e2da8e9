// The host tier of the JIT (docs/JIT.md): programs of every kind compiled by the host compiler
// (TESSERA_JIT_WAIT: every launch waits for its code, so the compiled code really runs) give the
// interpreter's results bit for bit: elementwise programs with strided, broadcast and replicated
// operands, random, full reductions of every kind, reductions along each dimension, nested
// reductions, integers. And the kernel cache's shared objects: found again on disk, and a
// corrupt, truncated, group-writable or foreign-owned entry is rejected, compiled again and
// replaced; and TESSERA_JIT_SOURCES gets each generated program, named by its hash.

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <tessera/jit/disk_cache.hpp>
#include <tessera/jit/host_jit.hpp>

#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using std::int64_t;

// A folder shared by the ranks of this run, fresh for each test that asks for one.
std::string scratch_cache(const std::string& name) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string dir = (fs::temp_directory_path() / ("tessera-host-jit-test-" + name)).string();
  if (rank == 0) {
    fs::remove_all(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

ts::Config backend_config(bool compiled, const std::string& cache_dir = "") {
  ts::Config c;
  c.backend = compiled ? ts::Backend::Jit : ts::Backend::Interp;
  c.jit_wait = true;
  if (!cache_dir.empty()) c.cache_dir = cache_dir;
  return c;
}

// Runs f under the interpreter, then under the host tier, and returns both results (f returns a
// vector of host arrays), plus the host tier's count of compiled or cached kernels.
template <class F>
auto both(F&& f, int64_t* compiled_kernels = nullptr) {
  std::pair<decltype(f()), decltype(f())> r;
  int argc = 0;
  char** argv = nullptr;
  {
    ts::Runtime rt(argc, argv, backend_config(false));
    r.first = f();
  }
  {
    ts::Runtime rt(argc, argv, backend_config(true));
    r.second = f();
    const ts::Stats s = rt.stats();
    if (compiled_kernels) *compiled_kernels = s.kernel_compiles + s.kernel_cache_hits;
  }
  return r;
}

// Bit-for-bit equality of doubles (NaN equal to NaN with the same bits).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  return std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(HostTier, ElementwiseStencilAndBlackScholesMatchTheInterpreter) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);  // each runtime's backend is the test's
  int64_t kernels = 0;
  auto [interp, host] = both(
      [] {
        const int64_t n = 37, m = 53;
        auto a = ts::random<double>({n, m}, 3);
        auto b = ts::zeros<double>({n, m});
        // Interior stencil (halo views), a strided view and a broadcast row, a replicated 0-d value.
        b(ts::slice(1, -1), ts::slice(1, -1))
            .assign(0.25 * (a(ts::slice(0, -2), ts::slice(1, -1)) + a(ts::slice(2, ts::end), ts::slice(1, -1)) +
                            a(ts::slice(1, -1), ts::slice(0, -2)) + a(ts::slice(1, -1), ts::slice(2, ts::end))));
        auto s = ts::sum(a);
        auto c = ts::where(a > 0.5, ts::sqrt(a) * s, -a) + a(3, ts::all);
        auto strided = a(ts::slice(0, 36, 2), ts::all) * a(ts::slice(1, 37, 2), ts::all);
        auto S = 10.0 + 90.0 * ts::random<double>({4099}, 5), X = 10.0 + 90.0 * ts::random<double>({4099}, 6),
             T = 0.25 + 9.75 * ts::random<double>({4099}, 7);
        auto call = ts::zeros<double>({4099}), put = ts::zeros<double>({4099});
        black_scholes(S, X, T, call, put);
        auto f32 = a.astype<float>() * 3.0f + ts::exp(a.astype<float>());
        return std::vector<std::vector<double>>{b.to_host(),    c.to_host(),   strided.to_host(),
                                                call.to_host(), put.to_host(), f32.astype<double>().to_host()};
      },
      &kernels);
  EXPECT_GT(kernels, 0) << "the host tier compiled nothing";
  for (std::size_t k = 0; k < interp.size(); ++k) EXPECT_TRUE(same_bits(interp[k], host[k])) << "result " << k;
}

// Small constants are literals in compiled code (jit/emitter.hpp, small_literal): one op stream
// whose constant changes from run to run compiles per value, and each run gets its value's results.
TEST(HostTier, AConstantThatChangesGivesEachValuesResults) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);
  int64_t kernels = 0;
  auto [interp, host] = both(
      [] {
        auto x = ts::random<double>({1000}, 7) - 0.5;
        std::vector<std::vector<double>> out;
        for (double c : {1.0, 3.0, 1.0, 0.5, -0.0, 0.0, 2.0}) out.push_back((x * c + c / x).to_host());
        return out;
      },
      &kernels);
  EXPECT_GT(kernels, 0) << "the host tier compiled nothing";
  for (std::size_t k = 0; k < interp.size(); ++k) EXPECT_TRUE(same_bits(interp[k], host[k])) << "run " << k;
  for (std::size_t k = 0; k + 1 < interp.size(); ++k) EXPECT_FALSE(same_bits(host[k], host[k + 1])) << "run " << k;
}

TEST(HostTier, ReductionsOfEveryKindMatchTheInterpreter) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);  // each runtime's backend is the test's
  int64_t kernels = 0;
  auto [interp, host] = both(
      [] {
        auto a = ts::random<double>({29, 31, 17}, 11) - 0.5;
        auto i = (a * 1000.0).astype<int64_t>();
        std::vector<std::vector<double>> out;
        out.push_back({ts::sum(a).item(), ts::prod(a + 1.0).item(), ts::min(a).item(), ts::max(a).item(),
                       static_cast<double>(ts::argmin(a).item()), static_cast<double>(ts::argmax(a).item()),
                       ts::mean(a).item(), static_cast<double>(ts::sum(i).item())});
        for (int axis = 0; axis < 3; ++axis) {
          out.push_back(ts::sum(a, axis).to_host());
          out.push_back(ts::argmax(a, axis).astype<double>().to_host());
          out.push_back(ts::mean(a * a, axis).to_host());
          out.push_back(ts::max(i, axis).astype<double>().to_host());
        }
        // A nested reduction: k-means' assignment.
        auto P = ts::random<double>({301, 5}, 12), C = ts::random<double>({7, 5}, 13);
        auto nearest =
            ts::argmin(ts::sum(ts::square(P(ts::all, ts::newaxis, ts::all) - C(ts::newaxis, ts::all, ts::all)), 2), 1);
        out.push_back(nearest.astype<double>().to_host());
        return out;
      },
      &kernels);
  EXPECT_GT(kernels, 0) << "the host tier compiled nothing";
  for (std::size_t k = 0; k < interp.size(); ++k) EXPECT_TRUE(same_bits(interp[k], host[k])) << "result " << k;
}

// Sums along rows fold column j into lane j % kRowLanes, the columns after the last full group
// into lane 0, and join the lanes in order (row_lanes, program/interpreter.hpp), on both tiers:
// rows whose in-order sum loses what the lanes keep ((1e16 + 1) + 1 rounds to 1e16), of every
// length up to 2 kRowLanes + 3, against that fold on the host (where the process grid does not
// cut rows; the tiers agree bit for bit at every rank count).
TEST(HostTier, RowSumsFoldInLanesOnBothTiers) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);  // each runtime's backend is the test's
  constexpr int64_t rows = 3;
  const auto element = [](int64_t r, int64_t j) { return j % 5 == 0 ? (j % 2 ? -1e16 : 1e16) : 1.0 + r; };
  std::vector<std::vector<double>> want;
  for (int64_t n = 1; n <= 2 * ts::detail::kRowLanes + 3; ++n) {
    std::vector<double> sums;
    const int64_t tail = n - n % ts::detail::kRowLanes;
    for (int64_t r = 0; r < rows; ++r) {
      double lane[ts::detail::kRowLanes] = {};
      for (int64_t j = 0; j < n; ++j) lane[j < tail ? j % ts::detail::kRowLanes : 0] += element(r, j) * 2.0;
      double sum = 0.0;
      for (double l : lane) sum += l;
      sums.push_back(sum);
    }
    want.push_back(sums);
  }
  int64_t kernels = 0;
  bool columns_cut = false;  // rows cut across ranks fold their parts apart, then across the ranks
  auto [interp, host] = both(
      [&] {
        columns_cut = ts::detail::runtime().grid(2).dim(1) > 1;
        std::vector<std::vector<double>> out;
        for (int64_t n = 1; n <= 2 * ts::detail::kRowLanes + 3; ++n) {
          std::vector<double> h;
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < n; ++j) h.push_back(element(r, j));
          auto a = ts::from_host<double>({rows, n}, h);
          out.push_back(ts::sum(a * ts::full<double>({n}, 2.0)(ts::newaxis, ts::all), 1).to_host());
        }
        return out;
      },
      &kernels);
  EXPECT_GT(kernels, 0) << "the host tier compiled nothing";
  for (std::size_t k = 0; k < want.size(); ++k) {
    EXPECT_TRUE(same_bits(interp[k], host[k])) << "rows of " << k + 1;
    if (columns_cut) continue;
    EXPECT_TRUE(same_bits(interp[k], want[k])) << "rows of " << k + 1 << ", interpreter";
    EXPECT_TRUE(same_bits(host[k], want[k])) << "rows of " << k + 1 << ", host tier";
  }
}

// Sweeps (docs/FUSION.md, "Sweeps"): logistic regression's gradient and the rows of each column's
// largest centred element, each one kernel over the matrix.
TEST(HostTier, SweepsMatchTheInterpreter) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);  // each runtime's backend is the test's
  int64_t kernels = 0;
  auto [interp, host] = both(
      [] {
        auto X = ts::random<double>({203, 13}, 14) - 0.5, y = ts::random<double>({203}, 15);
        auto w = ts::random<double>({13}, 16);
        auto gradient = ts::matmul(y - 1.0 / (1.0 + ts::exp(-ts::matmul(X, w))), X);
        auto where = ts::argmax(X - ts::mean(X, 1, true), 0);
        return std::vector<std::vector<double>>{gradient.to_host(), where.astype<double>().to_host()};
      },
      &kernels);
  EXPECT_GT(kernels, 0) << "the host tier compiled nothing";
  for (std::size_t k = 0; k < interp.size(); ++k) EXPECT_TRUE(same_bits(interp[k], host[k])) << "result " << k;
}

// Without TESSERA_JIT_WAIT: hot programs run on the interpreter while the pool compiles them side
// by side, and Runtime::flush() waits for those compiles, so the launches after it run compiled
// code, with the interpreter's results bit for bit.
TEST(HostTier, HotProgramsCompileInTheBackgroundAndFlushWaitsForThem) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);  // each runtime's backend is the test's
  EnvGuard no_wait("TESSERA_JIT_WAIT", std::nullopt);
  EnvGuard no_cache_dir("TESSERA_CACHE_DIR", std::nullopt);  // a fresh cache: real compiles
  const std::string dir = scratch_cache("background");
  // Each rank's tile covers kHotElements, so a program's first launch hands it to the pool.
  const int64_t n = world_size() * tessera::detail::kHotElements + 5;
  auto programs = [n] {  // three lengths: three programs that cannot fuse
    std::vector<std::vector<double>> out;
    for (int k = 0; k < 3; ++k) {
      auto a = ts::random<double>({n + k}, 20 + k);
      out.push_back((k == 0 ? ts::exp(a) * 2.0 : k == 1 ? ts::sqrt(a) + a : a * a - 3.0).to_host());
    }
    return out;
  };
  int argc = 0;
  char** argv = nullptr;
  std::vector<std::vector<double>> interp, cold, warm;
  {
    ts::Runtime rt(argc, argv, backend_config(false));
    interp = programs();
  }
  ts::Config c = backend_config(true, dir);
  c.jit_wait = false;
  c.jit_threads = 3;
  ts::Runtime rt(argc, argv, c);
  cold = programs();
  EXPECT_EQ(rt.stats().kernel_compiles, 0) << "a launch ran compiled code: it waited for the compiler";
  rt.flush();
  EXPECT_GT(tessera::detail::host_compile_seconds(*tessera::detail::runtime().host_jit()), 0);
  warm = programs();
  EXPECT_GE(rt.stats().kernel_compiles, 3) << "the programs did not run compiled after flush()";
  for (std::size_t k = 0; k < interp.size(); ++k) {
    EXPECT_TRUE(same_bits(interp[k], cold[k])) << "result " << k;
    EXPECT_TRUE(same_bits(interp[k], warm[k])) << "result " << k;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rt.rank() == 0) fs::remove_all(dir);
}

// The shared object of a program run under a fresh cache; returns its entry files.
std::vector<fs::path> entries(const std::string& dir) {
  std::vector<fs::path> out;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".so") out.push_back(e.path());
  return out;
}

ts::Stats run_program(const std::string& dir) {
  int argc = 0;
  char** argv = nullptr;
  ts::Runtime rt(argc, argv, backend_config(true, dir));
  auto a = ts::random<double>({1000}, 1);
  auto b = ts::exp(a) * 2.0 + a;
  EXPECT_NEAR(ts::sum(b).item(), ts::sum(ts::exp(a) * 2.0 + a).item(), 0.0);
  return rt.stats();
}

TEST(HostTier, CacheEntriesAreFoundAgainAndBadOnesAreReplaced) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);  // each runtime's backend is the test's
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  EnvGuard no_cache_dir("TESSERA_CACHE_DIR", std::nullopt);  // ctest sets one for the suite
  const std::string dir = scratch_cache("cache");
  const ts::Stats first = run_program(dir);
  EXPECT_GT(first.kernel_compiles, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << "the cache folder must be private";
  const std::vector<fs::path> files = entries(dir);
  ASSERT_FALSE(files.empty());
  for (const fs::path& f : files) {
    ASSERT_EQ(::stat(f.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << f;
  }
  const ts::Stats second = run_program(dir);
  EXPECT_EQ(second.kernel_compiles, 0) << "a second run should find every kernel on disk";
  EXPECT_GT(second.kernel_disk_hits, 0);
  MPI_Barrier(MPI_COMM_WORLD);

  // Each kind of bad entry: rejected (compiled again) and replaced by a good one.
  enum Bad { FlippedByte, Truncated, GroupWritable, ForeignOwned };
  for (Bad bad : {FlippedByte, Truncated, GroupWritable, ForeignOwned}) {
    SCOPED_TRACE(bad);
    bool skipped = false;
    if (rank == 0) {
      for (const fs::path& f : entries(dir)) {
        if (bad == FlippedByte) {
          std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
          io.seekg(200);
          char c = 0;
          io.read(&c, 1);
          c = static_cast<char>(c ^ 0x5a);
          io.seekp(200);
          io.write(&c, 1);
        } else if (bad == Truncated) {
          fs::resize_file(f, fs::file_size(f) / 2);
        } else if (bad == GroupWritable) {
          ::chmod(f.c_str(), 0620);
        } else if (::geteuid() != 0 || ::chown(f.c_str(), 12345, 12345) != 0) {
          skipped = true;  // only root can give a file away
        }
      }
    }
    MPI_Bcast(&skipped, 1, MPI_CXX_BOOL, 0, MPI_COMM_WORLD);
    if (skipped) continue;
    const ts::Stats again = run_program(dir);
    EXPECT_GT(again.kernel_compiles, 0) << "a bad entry was loaded";
    MPI_Barrier(MPI_COMM_WORLD);
    for (const fs::path& f : entries(dir)) {
      ASSERT_EQ(::stat(f.c_str(), &st), 0);
      EXPECT_EQ(st.st_uid, ::geteuid()) << f;
      EXPECT_EQ(st.st_mode & 0777, 0600u) << f;
    }
    const ts::Stats fixed = run_program(dir);
    EXPECT_EQ(fixed.kernel_compiles, 0) << "the bad entry was not replaced";
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) fs::remove_all(dir);
}

// TESSERA_JIT_SOURCES: every program the tier generates is written once, named by its source's hash.
TEST(HostTier, GeneratedSourcesAreWrittenWhereAsked) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string dir = scratch_cache("sources") + "/kernels";  // two levels, neither there yet
  std::int64_t programs = 0;
  {
    int argc = 0;
    char** argv = nullptr;
    ts::Config c = backend_config(true);
    c.jit_sources = dir;
    ts::Runtime rt(argc, argv, c);
    auto a = ts::random<double>({1000}, 1);
    auto b = ts::exp(a) * 2.0 + a;
    EXPECT_EQ(ts::sum(b).item(), ts::sum(ts::exp(a) * 2.0 + a).item());
    const ts::Stats s = rt.stats();
    programs = s.kernel_compiles + s.kernel_disk_hits;  // one request each for a program new to the process
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_GT(programs, 0);
  std::int64_t files = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    ++files;
    std::ifstream in(e.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.cpp",
                  static_cast<unsigned long long>(tessera::detail::fnv1a(text.data(), text.size())));
    EXPECT_EQ(e.path().filename().string(), name) << "a file that is not a whole generated source";
    EXPECT_NE(text.find("tessera_host"), std::string::npos) << e.path();
  }
  EXPECT_EQ(files, programs);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) fs::remove_all(fs::path(dir).parent_path());
}

TEST(HostTier, AFolderOthersCanWriteIsNotUsed) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);  // each runtime's backend is the test's
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  EnvGuard no_cache_dir("TESSERA_CACHE_DIR", std::nullopt);
  const std::string dir = scratch_cache("foreign");
  if (rank == 0) {
    fs::create_directories(dir);
    if (::geteuid() == 0) ASSERT_EQ(::chown(dir.c_str(), 12345, 12345), 0);
    ::chmod(dir.c_str(), 0777);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const ts::Stats s = run_program(dir);
  EXPECT_GT(s.kernel_compiles, 0);
  EXPECT_TRUE(entries(dir).empty() || ::geteuid() != 0) << "kernels were cached in another user's folder";
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) fs::remove_all(dir);
}

TEST(HostTier, IsTheDefaultAndWithoutACompilerTheInterpreterRuns) {
  EnvGuard backend_as_configured("TESSERA_BACKEND", std::nullopt);  // each runtime's backend is the test's
  int argc = 0;
  char** argv = nullptr;
  {
    ts::Runtime rt(argc, argv, ts::Config{});
    EXPECT_NE(tessera::detail::runtime().host_jit(), nullptr) << "TESSERA_BACKEND=auto should pick the host tier";
  }
  ts::Config c = backend_config(true);
  c.cxx = "/nonexistent/c++";
  ts::Runtime rt(argc, argv, c);
  EXPECT_EQ(tessera::detail::runtime().host_jit(), nullptr);
  auto a = ts::random<double>({100}, 1);
  EXPECT_NEAR(ts::sum(a * 2.0).item(), 2.0 * ts::sum(a).item(), 1e-12);
  EXPECT_EQ(rt.stats().kernel_compiles, 0);
}

}  // namespace
