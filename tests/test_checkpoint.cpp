// Checkpoints (src/io/checkpoint.hpp): round trips of every element type in 1 to 3 dimensions,
// views, 0-d arrays and attributes; a load under another tiling than the save's; and the failures:
// truncated and corrupt files, missing files, arrays and attributes, wrong types, and saves that
// cannot complete (which must leave the file already at the path as it was). Checksums are
// compared with the documented formula computed serially on the host.

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using std::int32_t;
using std::int64_t;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Runs f on rank 0 only (a file operation) once every rank got there, then waits for it on every
// rank: no rank still looks at the file while rank 0 changes it, and all see the change after.
template <class F>
void on_rank0(F&& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) f();
  MPI_Barrier(MPI_COMM_WORLD);
}

// A directory of the test's own under the build tree (the rank counts run concurrently, so the
// name carries rank 0's process id), removed when the test ends.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test = std::string(info->test_suite_name()) + "." + info->name();
    std::replace(test.begin(), test.end(), '/', '_');
    long long pid = ::getpid();
    MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    path_ = fs::path(TESSERA_CHECKPOINT_TEST_DIR) / ("np" + std::to_string(world_size()) + "-" + std::to_string(pid)) /
            test;
    on_rank0([&] {
      fs::remove_all(path_);
      fs::create_directories(path_);
    });
  }
  ~ScratchDir() {
    on_rank0([&] {
      std::error_code ignored;
      fs::remove_all(path_, ignored);
      fs::remove(path_.parent_path(), ignored);  // only once it is empty
    });
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // The names in the directory, sorted (the same on every rank after a barrier).
  std::vector<std::string> listing() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path path_;
};

class CheckpointTest : public TesseraTest {
 protected:
  ScratchDir dir_;
};

template <class T>
class CheckpointTypes : public CheckpointTest {};
using AllTypes = ::testing::Types<bool, int32_t, int64_t, float, double>;
TYPED_TEST_SUITE(CheckpointTypes, AllTypes);

// The checksum of docs/CHECKPOINT.md, serially: a header hash of dtype and shape plus, modulo
// 2^64, mix(mix(i) ^ bits(x_i)) over the row-major elements.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

template <class T>
std::uint64_t host_checksum(const ts::Shape& shape, const std::vector<T>& data) {
  std::uint64_t h = mix(shape.size() * 8 + static_cast<std::uint64_t>(ts::dtype_v<T>) + 1);
  for (int64_t e : shape) h = mix(h ^ static_cast<std::uint64_t>(e));
  for (std::size_t i = 0; i < data.size(); ++i) {
    std::uint64_t bits = 0;
    const T value = data[i];
    if constexpr (std::is_same_v<T, bool>)
      bits = value ? 1 : 0;
    else
      std::memcpy(&bits, &value, sizeof(T));
    h += mix(mix(i) ^ bits);
  }
  return h;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Flips one bit of element `element` of the values `first` (raw bytes, row-major), found in the
// file by their byte pattern: the datasets are stored contiguously.
template <class T>
void corrupt_element(const std::string& path, const std::vector<T>& first, std::size_t element) {
  std::vector<char> bytes = read_bytes(path);
  const char* pattern = reinterpret_cast<const char*>(first.data());
  auto at = std::search(bytes.begin(), bytes.end(), pattern, pattern + first.size() * sizeof(T));
  ASSERT_NE(at, bytes.end()) << "the values were not found in " << path;
  bytes[(at - bytes.begin()) + element * sizeof(T) + 1] ^= 0x10;
  write_bytes(path, bytes);
}

const std::vector<ts::Shape> kShapes = {{17}, {1}, {7, 5}, {2, 9}, {1, 5}, {5, 3, 7}, {3, 1, 4}, {0}, {4, 0}};

}  // namespace

TYPED_TEST(CheckpointTypes, RoundTripEveryShape) {
  using T = TypeParam;
  const std::string path = this->dir_.file("types.h5");
  std::vector<ts::Array<T>> arrays;
  std::vector<std::vector<T>> hosts;
  std::vector<ts::NamedArray> named;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kShapes.size(); ++i) {
    hosts.push_back(test_values<T>(volume_of(kShapes[i]), static_cast<int>(i)));
    arrays.push_back(ts::from_host<T>(kShapes[i], hosts[i]));
    names.push_back("a" + std::to_string(i));
    named.emplace_back(names[i], arrays[i]);
  }
  ts::save(path, named);

  const ts::Checkpoint ck = ts::load(path);
  EXPECT_EQ(ck.path(), path);
  EXPECT_EQ(ck.names(), names);  // sorted: a0 .. a8
  for (std::size_t i = 0; i < kShapes.size(); ++i) {
    SCOPED_TRACE(::testing::PrintToString(kShapes[i]));
    ASSERT_TRUE(ck.contains(names[i]));
    EXPECT_EQ(ck.dtype(names[i]), ts::dtype_v<T>);
    const ts::Array<T> b = ck.get<T>(names[i]);
    EXPECT_EQ(b.shape(), kShapes[i]);
    EXPECT_TRUE(close(b.to_host(), hosts[i], 0.0));
    const std::uint64_t want = host_checksum(kShapes[i], hosts[i]);
    EXPECT_EQ(ck.checksum(names[i]), want);
    EXPECT_EQ(ts::checksum(b), want);
    EXPECT_EQ(ts::checksum(arrays[i]), want);
    // The loaded array is an ordinary array: operations on it (here with its own shifted view, a
    // halo exchange between the loaded tiles) give the host result.
    if (kShapes[i].size() == 1 && kShapes[i][0] > 2) {
      std::vector<T> want_shift;
      for (std::size_t k = 1; k + 1 < hosts[i].size(); ++k) want_shift.push_back(hosts[i][k + 1]);
      ts::Array<T> shifted = ts::copy(b(ts::slice(2, ts::end)));
      EXPECT_TRUE(close(shifted.to_host(), want_shift, 0.0));
    }
  }
  // One array only.
  const ts::Array<T> one = ts::load<T>(path, "a5");
  EXPECT_EQ(one.shape(), kShapes[5]);
  EXPECT_TRUE(close(one.to_host(), hosts[5], 0.0));
}

TEST_F(CheckpointTest, ViewsZeroDimensionalArraysAndAttributes) {
  const std::string path = dir_.file("mixed.h5");
  const ts::Shape shape{9, 8};
  const std::vector<double> h = host_values(72, 5);
  auto a = ts::from_host<double>(shape, h);
  auto view = a(ts::slice(2, -1), ts::slice(1, 5));
  auto total = ts::sum(a);                                                  // 0-d float64
  auto count = ts::sum(ts::from_host<int32_t>({6}, {3, -1, 4, 1, -5, 9}));  // 0-d int64
  ts::save(path, {{"view", view}, {"total", total}, {"count", count}}, {{"step", 42}, {"offset", -7}});

  const ts::Checkpoint ck = ts::load(path);
  const std::vector<double> want_view = host_box(h, shape, {2, 1}, {8, 5});
  const ts::Array<double> v = ck.get<double>("view");
  EXPECT_EQ(v.shape(), (ts::Shape{6, 4}));
  EXPECT_TRUE(close(v.to_host(), want_view, 0.0));
  EXPECT_EQ(ck.checksum("view"), host_checksum<double>({6, 4}, want_view));

  const ts::Array<double> t = ck.get<double>("total");
  EXPECT_EQ(t.ndim(), 0);
  const double saved_total = total.item();
  EXPECT_EQ(t.item(), saved_total);
  EXPECT_EQ((t * 2.0).item(), 2.0 * saved_total);  // a loaded 0-d array feeds later operations
  EXPECT_EQ(ck.checksum("total"), host_checksum<double>({}, {saved_total}));
  EXPECT_EQ(ck.get<int64_t>("count").item(), 11);
  EXPECT_EQ(ck.dtype("count"), ts::DType::Int64);

  EXPECT_EQ(ck.attributes(), (ts::CheckpointAttributes{{"offset", -7}, {"step", 42}}));
  EXPECT_EQ(ck.attribute("step"), 42);
  const std::string missing = error_of([&] { ck.attribute("time"); });
  EXPECT_TRUE(contains(missing, "no attribute 'time'") && contains(missing, "'step'")) << missing;
}

// The file does not depend on the tiling it was written from: arrays saved under one process grid
// load under another with the same values and checksums.
TEST(CheckpointTilings, LoadUnderAnotherProcessGrid) {
  ScratchDir dir;
  const std::string path = dir.file("grids.h5");
  const int np = world_size();
  int argc = 0;
  char** argv = nullptr;
  const std::vector<double> h2 = host_values(13 * 11, 3);
  const std::vector<int32_t> h3 = test_values<int32_t>(5 * 4 * 3, 2);
  {
    ts::Config rows;
    rows.grid = {np, 1};
    ts::Runtime rt(argc, argv, rows);
    auto a = ts::from_host<double>({13, 11}, h2);
    auto b = ts::from_host<int32_t>({5, 4, 3}, h3);
    ts::save(path, {{"a", a}, {"b", b}});
  }
  {
    ts::Config columns;
    columns.grid = {1, np};
    ts::Runtime rt(argc, argv, columns);
    const ts::Checkpoint ck = ts::load(path);
    const auto a = ck.get<double>("a");
    EXPECT_TRUE(close(a.to_host(), h2, 0.0));
    EXPECT_TRUE(close(ck.get<int32_t>("b").to_host(), h3, 0.0));
    EXPECT_EQ(ts::checksum(a), host_checksum<double>({13, 11}, h2));
    // Loaded arrays take the current grid: a stencil over them needs only halos.
    auto inner = ts::slice(1, -1);
    auto s = a(ts::slice(0, -2), inner) + a(ts::slice(2, ts::end), inner);
    std::vector<double> want;
    for (int i = 1; i < 12; ++i)
      for (int j = 1; j < 10; ++j) want.push_back(h2[(i - 1) * 11 + j] + h2[(i + 1) * 11 + j]);
    EXPECT_TRUE(close(s.to_host(), want, 1e-15));
  }
}

TEST_F(CheckpointTest, TruncatedFileIsAnErrorAndChangesNothing) {
  const std::string path = dir_.file("truncated.h5");
  const std::vector<double> h = host_values(40 * 30, 7);
  auto u = ts::from_host<double>({40, 30}, h);
  ts::save(path, {{"u", u}, {"mask", u > 0.0}}, {{"step", 3}});
  const auto size = fs::file_size(path);
  for (const std::uintmax_t keep : {size - 1, size / 2}) {
    SCOPED_TRACE(keep);
    on_rank0([&] { fs::resize_file(path, keep); });
    auto destination = ts::full<double>({40, 30}, 2.5);  // what a restart would have overwritten
    const std::string message = error_of([&] { destination = ts::load(path).get<double>("u"); });
    EXPECT_TRUE(contains(message, "load('" + path + "')") && contains(message, "truncated")) << message;
    EXPECT_TRUE(same_on_all_ranks(message));
    EXPECT_TRUE(close(destination.to_host(), std::vector<double>(1200, 2.5), 0.0));
    const std::string one = error_of([&] { ts::load<double>(path, "u"); });
    EXPECT_TRUE(contains(one, "truncated")) << one;
    EXPECT_EQ(fs::file_size(path), keep);
  }
}

TEST_F(CheckpointTest, CorruptDataFailsTheChecksumOfThatArray) {
  const std::string path = dir_.file("corrupt.h5");
  std::vector<double> ha(24 * 10);
  for (std::size_t i = 0; i < ha.size(); ++i) ha[i] = 1.0 / 3.0 + 0.5 * static_cast<double>(i);
  std::vector<int32_t> hb(50);
  for (std::size_t i = 0; i < hb.size(); ++i) hb[i] = 100003 + 7 * static_cast<int32_t>(i);
  ts::save(path, {{"a", ts::from_host<double>({24, 10}, ha)}, {"b", ts::from_host<int32_t>({50}, hb)}});

  on_rank0([&] { corrupt_element(path, std::vector<double>(ha.begin(), ha.begin() + 4), 117); });
  const std::string message = error_of([&] { ts::load(path); });
  EXPECT_TRUE(contains(message, "load('" + path + "')") && contains(message, "'a' does not match its checksum") &&
              contains(message, "corrupt"))
      << message;
  EXPECT_TRUE(same_on_all_ranks(message));
  // The other array is intact and loads on its own.
  EXPECT_TRUE(close(ts::load<int32_t>(path, "b").to_host(), hb, 0.0));

  on_rank0([&] { corrupt_element(path, std::vector<int32_t>(hb.begin(), hb.begin() + 4), 49); });
  const std::string second = error_of([&] { ts::load<int32_t>(path, "b"); });
  EXPECT_TRUE(contains(second, "'b' does not match its checksum")) << second;
  EXPECT_TRUE(same_on_all_ranks(second));

  // Damaged metadata: the dtype attribute of 'a' now reads "float65".
  on_rank0([&] {
    std::vector<char> bytes = read_bytes(path);
    const std::string was = "float64";
    auto at = std::search(bytes.begin(), bytes.end(), was.begin(), was.end());
    ASSERT_NE(at, bytes.end());
    *(at + 6) = '5';
    write_bytes(path, bytes);
  });
  const std::string third = error_of([&] { ts::load(path); });
  EXPECT_TRUE(contains(third, "'a' has the unknown tessera_dtype 'float65'")) << third;
  EXPECT_TRUE(same_on_all_ranks(third));
}

TEST_F(CheckpointTest, MissingFilesArraysAndWrongTypes) {
  const std::string absent = dir_.file("absent.h5");
  std::string m = error_of([&] { ts::load(absent); });
  EXPECT_TRUE(contains(m, "load('" + absent + "')") && contains(m, "no such file")) << m;
  EXPECT_TRUE(same_on_all_ranks(m));

  const std::string folder = dir_.file("folder.h5");
  on_rank0([&] { fs::create_directory(folder); });
  m = error_of([&] { ts::load(folder); });
  EXPECT_TRUE(contains(m, "directory")) << m;

  const std::string text = dir_.file("text.h5");
  on_rank0([&] { write_bytes(text, std::vector<char>(4096, 'x')); });
  m = error_of([&] { ts::load(text); });
  EXPECT_TRUE(contains(m, "load('" + text + "')") && contains(m, "cannot open it as an HDF5 file")) << m;
  EXPECT_TRUE(same_on_all_ranks(m));

  const std::string path = dir_.file("named.h5");
  ts::save(path, {{"u", ts::ones<double>({6, 6})}, {"w", ts::ones<int32_t>({3})}});
  m = error_of([&] { ts::load<double>(path, "v"); });
  EXPECT_TRUE(contains(m, "no array 'v'") && contains(m, "'u', 'w'")) << m;
  EXPECT_TRUE(same_on_all_ranks(m));
  const ts::Checkpoint ck = ts::load(path);
  m = error_of([&] { ck.get<double>("v"); });
  EXPECT_TRUE(contains(m, "no array 'v'")) << m;
  m = error_of([&] { ck.get<float>("u"); });
  EXPECT_TRUE(contains(m, "float64") && contains(m, "float32")) << m;
  m = error_of([&] { ts::load<int64_t>(path, "w"); });
  EXPECT_TRUE(contains(m, "int32") && contains(m, "int64")) << m;
}

TEST_F(CheckpointTest, InvalidSavesWriteNothing) {
  const std::string path = dir_.file("invalid.h5");
  auto a = ts::ones<double>({4});
  ts::Array<double> empty;
  for (auto save : std::vector<std::function<void()>>{
           [&] {
             ts::save(path, {{"", a}});
           },
           [&] {
             ts::save(path, {{"a/b", a}});
           },
           [&] {
             ts::save(path, {{"a", a}, {"a", a}});
           },
           [&] {
             ts::save(path, {{"a", a}}, {{"tessera_format", 2}});
           },
           [&] {
             ts::save(path, {{"a", empty}});
           },
           [&] {
             ts::save("", {{"a", a}});
           },
       }) {
    const std::string m = error_of(save);
    EXPECT_TRUE(contains(m, "save")) << m;
    EXPECT_TRUE(same_on_all_ranks(m));
  }
  EXPECT_TRUE(dir_.listing().empty());
}

TEST_F(CheckpointTest, OverwriteIsAtomicAndFailedSavesKeepTheOldFile) {
  const std::string path = dir_.file("ck.h5");
  const std::vector<double> first = host_values(100, 1), second = host_values(100, 2);
  ts::save(path, {{"u", ts::from_host<double>({10, 10}, first)}}, {{"step", 1}});
  ts::save(path, {{"u", ts::from_host<double>({10, 10}, second)}}, {{"step", 2}});
  EXPECT_EQ(dir_.listing(), std::vector<std::string>{"ck.h5"});  // no temporary file left behind
  EXPECT_TRUE(close(ts::load<double>(path, "u").to_host(), second, 0.0));

  // A save that cannot create its temporary file ("<path>.tmp.<pid of rank 0>", blocked here by a
  // directory of that name) fails on every rank and leaves the old file as it was.
  long long pid = ::getpid();
  MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const std::string blocker = path + ".tmp." + std::to_string(pid);
  on_rank0([&] { fs::create_directory(blocker); });
  std::string m = error_of([&] { ts::save(path, {{"u", ts::zeros<double>({10, 10})}}, {{"step", 3}}); });
  EXPECT_TRUE(contains(m, "save('" + path + "')") && contains(m, "cannot create") && contains(m, "unchanged")) << m;
  EXPECT_TRUE(same_on_all_ranks(m));
  const ts::Checkpoint kept = ts::load(path);
  EXPECT_TRUE(close(kept.get<double>("u").to_host(), second, 0.0));
  EXPECT_EQ(kept.attribute("step"), 2);
  EXPECT_TRUE(fs::is_directory(blocker));  // not ours to remove
  on_rank0([&] { fs::remove(blocker); });

  // A complete file that cannot take its final name (a directory is there) is removed.
  const std::string folder = dir_.file("folder.h5");
  on_rank0([&] { fs::create_directory(folder); });
  m = error_of([&] { ts::save(folder, {{"u", ts::zeros<double>({10, 10})}}); });
  EXPECT_TRUE(contains(m, "cannot rename")) << m;
  EXPECT_TRUE(same_on_all_ranks(m));
  EXPECT_EQ(dir_.listing(), (std::vector<std::string>{"ck.h5", "folder.h5"}));
}
