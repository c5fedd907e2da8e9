// Creation routines (zeros, ones, full, empty, arange, linspace, random, from_host) checked
// against serial host references on 1-, 2- and 3-D shapes, including uneven sizes and shapes with
// fewer rows than ranks (some ranks then own empty tiles).

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "support.hpp"

namespace {

const std::vector<ts::Shape> kShapes = {{10}, {7, 5}, {5, 3, 7}, {2, 9}, {1, 5}, {2}, {3, 1, 2}};

template <class T>
std::vector<T> filled(std::int64_t n, T v) {
  return std::vector<T>(static_cast<std::size_t>(n), v);
}

template <class T>
class CreationTyped : public TesseraTest {};
using AllTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(CreationTyped, AllTypes);

template <class T>
class CreationNumeric : public TesseraTest {};
using NumericTypes = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(CreationNumeric, NumericTypes);

// Host reimplementation of the counter-based generator of src/program/element_ops.hpp.
std::uint64_t host_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

template <class T>
T host_uniform(std::uint64_t seed, std::uint64_t counter) {
  const std::uint64_t h = host_mix(host_mix(seed + 0x9e3779b97f4a7c15ULL) ^ (counter * 0x9e3779b97f4a7c15ULL + 1));
  if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
  else
    return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

// NumPy's linspace: i * step + lo in float64, the last sample exactly hi, floor for integers.
template <class T>
std::vector<T> host_linspace(double lo, double hi, std::int64_t n) {
  std::vector<T> out;
  const double step = n > 1 ? (hi - lo) / static_cast<double>(n - 1) : 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    double y = static_cast<double>(i) * step + lo;
    if (n > 1 && i == n - 1) y = hi;
    if constexpr (std::is_integral_v<T>)
      out.push_back(static_cast<T>(std::floor(y)));
    else
      out.push_back(static_cast<T>(y));
  }
  return out;
}

}  // namespace

TYPED_TEST(CreationTyped, ZerosOnesFull) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    auto z = ts::zeros<T>(shape);
    auto o = ts::ones<T>(shape);
    auto f = ts::full<T>(shape, 3);
    auto g = ts::full<T>(shape, 2.5);  // converted to T as np.full(shape, 2.5, dtype=T)
    auto h = ts::full<T>(shape, false);
    static_assert(std::is_same_v<decltype(z), ts::Array<T>>);
    EXPECT_EQ(z.shape(), shape);
    EXPECT_EQ(o.shape(), shape);
    EXPECT_EQ(z.size(), n);
    EXPECT_EQ(f.ndim(), static_cast<int>(shape.size()));
    EXPECT_TRUE(close(z.to_host(), filled<T>(n, static_cast<T>(0))));
    EXPECT_TRUE(close(o.to_host(), filled<T>(n, static_cast<T>(1))));
    EXPECT_TRUE(close(f.to_host(), filled<T>(n, static_cast<T>(3))));
    EXPECT_TRUE(close(g.to_host(), filled<T>(n, static_cast<T>(2.5))));
    EXPECT_TRUE(close(h.to_host(), filled<T>(n, static_cast<T>(0))));
  }
}

TYPED_TEST(CreationTyped, EmptyHasShapeOnly) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    auto e = ts::empty<T>(shape);
    EXPECT_EQ(e.shape(), shape);
    EXPECT_EQ(e.size(), volume_of(shape));
    EXPECT_EQ(e.ndim(), static_cast<int>(shape.size()));
    EXPECT_EQ(static_cast<std::int64_t>(e.to_host().size()), volume_of(shape));
  }
}

TYPED_TEST(CreationTyped, ZeroExtentShapes) {
  using T = TypeParam;
  for (const ts::Shape& shape : std::vector<ts::Shape>{{0}, {3, 0}, {0, 4, 2}}) {
    auto z = ts::zeros<T>(shape);
    EXPECT_EQ(z.shape(), shape);
    EXPECT_EQ(z.size(), 0);
    EXPECT_TRUE(z.to_host().empty());
    auto f = ts::full<T>(shape, 1);
    EXPECT_TRUE(f.to_host().empty());
  }
}

TYPED_TEST(CreationTyped, FromHostRoundTrip) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::vector<T> host = test_values<T>(volume_of(shape), 3);
    auto a = ts::from_host<T>(shape, host);
    EXPECT_EQ(a.shape(), shape);
    EXPECT_TRUE(close(a.to_host(), host));
    // A second round trip through a copy must give the same buffer again.
    auto b = ts::from_host<T>(shape, ts::copy(a).to_host());
    EXPECT_TRUE(close(b.to_host(), host));
  }
}

TYPED_TEST(CreationTyped, FromHostExtremes) {
  using T = TypeParam;
  std::vector<T> host = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0), T(1),
                         std::numeric_limits<T>::min()};
  auto a = ts::from_host<T>({5}, host);
  EXPECT_TRUE(close(a.to_host(), host, 0.0));
}

TYPED_TEST(CreationTyped, FromHostWrongSizeThrows) {
  using T = TypeParam;
  std::vector<T> host = test_values<T>(11);
  EXPECT_THROW(ts::from_host<T>({10}, host), ts::Error);
  EXPECT_THROW(ts::from_host<T>({2, 5}, std::vector<T>(9)), ts::Error);
}

TYPED_TEST(CreationNumeric, Arange) {
  using T = TypeParam;
  for (std::int64_t n : {0, 1, 2, 3, 10, 13, 100}) {
    auto a = ts::arange<T>(n);
    EXPECT_EQ(a.shape(), ts::Shape{n});
    std::vector<T> want;
    for (std::int64_t i = 0; i < n; ++i) want.push_back(static_cast<T>(i));
    EXPECT_TRUE(close(a.to_host(), want, 0.0)) << "n = " << n;
  }
}

TYPED_TEST(CreationNumeric, Linspace) {
  using T = TypeParam;
  struct Case {
    double lo, hi;
    std::int64_t n;
  };
  const std::vector<Case> cases = {{0, 1, 11},     {0, 1, 10},     {-5, 5, 7},     {-5, 5, 8}, {2.5, -3.25, 9},
                                   {3, 3, 4},      {1.5, 7, 1},    {1.5, 7, 0},    {-1, 1, 2}, {0, 10, 7},
                                   {-2.5, 2.5, 3}, {0.1, 0.7, 13}, {-7.5, -0.5, 5}};
  for (const Case& c : cases) {
    auto a = ts::linspace<T>(c.lo, c.hi, c.n);
    EXPECT_EQ(a.shape(), ts::Shape{c.n});
    const double rtol = std::is_same_v<T, float> ? 1e-7 : 1e-15;
    EXPECT_TRUE(close(a.to_host(), host_linspace<T>(c.lo, c.hi, c.n), rtol))
        << "linspace(" << c.lo << ", " << c.hi << ", " << c.n << ")";
  }
}

TEST_F(TesseraTest, LinspaceEndpointsAndFloor) {
  // Exact endpoints, and floor (not truncation) for negative samples of integer dtypes.
  auto d = ts::linspace<double>(0.1, 0.7, 7).to_host();
  ASSERT_EQ(d.size(), 7u);
  EXPECT_EQ(d.front(), 0.1);
  EXPECT_EQ(d.back(), 0.7);
  auto i = ts::linspace<std::int32_t>(-5, 5, 7).to_host();
  auto want = host_linspace<std::int32_t>(-5, 5, 7);
  EXPECT_EQ(i, want);
  EXPECT_EQ(i[1], static_cast<std::int32_t>(std::floor(-5.0 + 10.0 / 6.0)));
  EXPECT_EQ(ts::linspace<std::int64_t>(4, 9, 1).to_host(), std::vector<std::int64_t>{4});
  EXPECT_TRUE(ts::linspace<float>(4, 9, 0).to_host().empty());
  EXPECT_THROW(ts::linspace<double>(0, 1, -1), ts::Error);
  EXPECT_THROW(ts::arange<double>(-1), ts::Error);
}

template <class T>
class CreationRandom : public TesseraTest {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CreationRandom, FloatTypes);

TYPED_TEST(CreationRandom, MatchesGlobalGenerator) {
  using T = TypeParam;
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, 0xdeadbeefcafeULL}) {
      auto r = ts::random<T>(shape, seed);
      EXPECT_EQ(r.shape(), shape);
      const std::vector<T> got = r.to_host();
      std::vector<T> want;
      for (std::int64_t i = 0; i < volume_of(shape); ++i) want.push_back(host_uniform<T>(seed, i));
      EXPECT_TRUE(close(got, want, 0.0)) << "seed " << seed;
      for (T v : got) {
        EXPECT_GE(v, T(0));
        EXPECT_LT(v, T(1));
      }
    }
  }
}

TYPED_TEST(CreationRandom, SeedsDifferAndRepeat) {
  using T = TypeParam;
  const ts::Shape shape{7, 5};
  auto a = ts::random<T>(shape, 7).to_host();
  auto b = ts::random<T>(shape, 7).to_host();
  auto c = ts::random<T>(shape, 8).to_host();
  auto d = ts::random<T>(shape).to_host();  // default seed 0
  EXPECT_EQ(a, b);
  std::size_t differ = 0, differ_default = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ += a[i] != c[i], differ_default += a[i] != d[i];
  EXPECT_GT(differ, a.size() / 2);
  EXPECT_GT(differ_default, a.size() / 2);
  std::vector<T> seed0;
  for (std::int64_t i = 0; i < 35; ++i) seed0.push_back(host_uniform<T>(0, i));
  EXPECT_EQ(d, seed0);
  // Not all the same value, and a rough uniformity check of the mean over a larger sample.
  auto big = ts::random<T>({4000}, 3).to_host();
  double mean = 0;
  for (T v : big) mean += v;
  mean /= static_cast<double>(big.size());
  EXPECT_NEAR(mean, 0.5, 0.05);
}

TEST_F(TesseraTest, RandomNeedsFloatType) {
  EXPECT_THROW(ts::random<std::int32_t>({4}, 1), ts::Error);
  EXPECT_THROW(ts::random<bool>({4}, 1), ts::Error);
}

TEST_F(TesseraTest, RandomSameSeedDifferentShapesShareGlobalIndex) {
  // Element i of the row-major order depends only on (seed, i): a 7x5 array and a 35-vector agree.
  auto a = ts::random<double>({7, 5}, 11).to_host();
  auto b = ts::random<double>({35}, 11).to_host();
  auto c = ts::random<double>({5, 7, 1}, 11).to_host();
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

TEST_F(TesseraTest, BadShapesThrow) {
  EXPECT_THROW(ts::zeros<double>({}), ts::Error);
  EXPECT_THROW(ts::zeros<double>({2, 2, 2, 2}), ts::Error);
  EXPECT_THROW(ts::ones<float>({3, -1}), ts::Error);
}
