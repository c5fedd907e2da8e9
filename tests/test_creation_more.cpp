// random_normal, eye and the *_like routines against serial host references, with fusion on and
// off. random_normal is Box-Muller on random()'s uniforms (element i uses those at 2i and 2i+1),
// so its host reference is computed from random()'s own values: the array must be the same at
// every rank count, and the sample must look standard normal.

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "support.hpp"

namespace {

const std::vector<ts::Shape> kShapes = {{10}, {7, 5}, {5, 3, 7}, {1, 5}};

template <class T>
class CreationLike : public ::testing::Test {};
using AllTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(CreationLike, AllTypes);

template <class T>
class RandomNormal : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RandomNormal, FloatTypes);

// Box-Muller in float64, as documented in creation.hpp, from two uniforms in [0, 1).
double box_muller(double u1, double u2) {
  return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586476925286766559 * u2);
}

}  // namespace

TYPED_TEST(RandomNormal, BoxMullerOnTheUniformsOfRandom) {
  using T = TypeParam;
  fused_and_unfused([] {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      const std::int64_t n = volume_of(shape);
      const auto u = ts::random<double>({2 * n}, 17).to_host();
      std::vector<T> want;
      for (std::int64_t i = 0; i < n; ++i) want.push_back(static_cast<T>(box_muller(u[2 * i], u[2 * i + 1])));
      auto z = ts::random_normal<T>(shape, 17);
      static_assert(std::is_same_v<decltype(z), ts::Array<T>>);
      EXPECT_EQ(z.shape(), shape);
      EXPECT_TRUE(close(z.to_host(), want, std::is_same_v<T, float> ? 1e-6 : 1e-12));
    }
  });
}

TYPED_TEST(RandomNormal, SeedsDifferAndTheSampleIsStandardNormal) {
  using T = TypeParam;
  fused_and_unfused([] {
    const std::int64_t n = 200000;
    auto z = ts::random_normal<T>({n}, 3);
    const double mean = static_cast<double>(ts::mean(z).item());
    const double deviation = std::sqrt(static_cast<double>(ts::mean(z * z).item()) - mean * mean);
    EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(static_cast<double>(n)));  // 5 standard errors
    EXPECT_NEAR(deviation, 1.0, 5.0 * std::sqrt(0.5 / static_cast<double>(n)));
    // About 68.3% within one standard deviation, 95.4% within two.
    const double within1 = static_cast<double>(ts::sum(ts::abs(z) < T(1)).item()) / static_cast<double>(n);
    const double within2 = static_cast<double>(ts::sum(ts::abs(z) < T(2)).item()) / static_cast<double>(n);
    EXPECT_NEAR(within1, std::erf(1.0 / std::sqrt(2.0)), 0.005);
    EXPECT_NEAR(within2, std::erf(2.0 / std::sqrt(2.0)), 0.005);
    EXPECT_TRUE(ts::isfinite(z).to_host() == std::vector<bool>(n, true)) << "log(0) is never taken";
    const auto other = ts::random_normal<T>({n}, 4).to_host(), same = ts::random_normal<T>({n}, 3).to_host();
    EXPECT_EQ(same, z.to_host());
    EXPECT_NE(other, same);
  });
}

TYPED_TEST(CreationLike, EyeIsTheIdentity) {
  using T = TypeParam;
  fused_and_unfused([] {
    for (const std::int64_t n : {1, 2, 5, 9}) {
      auto id = ts::eye<T>(n);
      static_assert(std::is_same_v<decltype(id), ts::Array<T>>);
      EXPECT_EQ(id.shape(), (ts::Shape{n, n}));
      std::vector<T> want;
      for (std::int64_t r = 0; r < n; ++r)
        for (std::int64_t c = 0; c < n; ++c) want.push_back(static_cast<T>(r == c));
      EXPECT_EQ(id.to_host(), want);
    }
    EXPECT_EQ(ts::eye<T>(0).shape(), (ts::Shape{0, 0}));
  });
}

TYPED_TEST(CreationLike, ShapeAndTypeOfTheArgument) {
  using T = TypeParam;
  fused_and_unfused([] {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      const std::int64_t n = volume_of(shape);
      auto a = ts::from_host<T>(shape, test_values<T>(n, 1));
      auto z = ts::zeros_like(a);
      auto o = ts::ones_like(a);
      auto f = ts::full_like(a, 2.75);  // the value is cast to T, as NumPy's full_like
      auto e = ts::empty_like(a);
      static_assert(std::is_same_v<decltype(z), ts::Array<T>>);
      static_assert(std::is_same_v<decltype(f), ts::Array<T>>);
      static_assert(std::is_same_v<decltype(e), ts::Array<T>>);
      EXPECT_EQ(z.shape(), shape);
      EXPECT_EQ(e.shape(), shape);
      EXPECT_EQ(z.to_host(), std::vector<T>(n, T(0)));
      EXPECT_EQ(o.to_host(), std::vector<T>(n, T(1)));
      EXPECT_EQ(f.to_host(), std::vector<T>(n, static_cast<T>(2.75)));
      e.assign(a);
      EXPECT_EQ(e.to_host(), a.to_host());
    }
  });
}

TEST(CreationLikeViews, LikeAViewAndLikeAZeroDimArray) {
  const auto h = test_values<double>(35, 2);
  fused_and_unfused([&](ts::Runtime& rt) {
    auto a = ts::from_host<double>({7, 5}, h);
    auto inner = a(ts::slice(1, -1), ts::slice(2, ts::end));
    auto z = ts::full_like(inner, -1.5);  // tiled like the view: inner + z moves no data
    EXPECT_EQ(z.shape(), (ts::Shape{5, 3}));
    reset_stats_now(rt);
    auto both = inner + z;
    const ts::Stats stats = stats_now(rt);
    EXPECT_EQ(stats.redistributions, 0);
    EXPECT_EQ(stats.halo_exchanges, 0);
    const auto sum = both.to_host();
    std::vector<double> want;
    for (int r = 1; r < 6; ++r)
      for (int c = 2; c < 5; ++c) want.push_back(h[r * 5 + c] - 1.5);
    EXPECT_TRUE(close(sum, want));
    auto s = ts::sum(a);
    auto s0 = ts::zeros_like(s);
    EXPECT_EQ(s0.ndim(), 0);
    double want_sum = 1.0;  // the values are multiples of 1/16: every sum is exact
    for (double x : h) want_sum += x;
    EXPECT_EQ((s + ts::ones_like(s) + s0).item(), want_sum);
  });
}

TEST(VdotAndDot, InnerProductOfAnyShapeAndMixedTypes) {
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    const std::int64_t n = volume_of(shape);
    const auto ha = test_values<std::int32_t>(n, 3);
    const auto hb = test_values<float>(n, 4);
    fused_and_unfused([&] {
      auto a = ts::from_host<std::int32_t>(shape, ha);
      auto b = ts::from_host<float>(shape, hb);
      auto v = ts::vdot(a, b);  // int32 with float32: float64
      // dot is the inner product of 1-D arrays (of 2-D ones it is matmul): vdot of the flattened arrays
      auto d = ts::dot(ts::reshape(a, {n}), ts::reshape(b, {n}));
      static_assert(std::is_same_v<decltype(v), ts::Array<double>>);
      static_assert(std::is_same_v<decltype(d), ts::Array<double>>);
      double want = 0;
      for (std::int64_t i = 0; i < n; ++i) want += static_cast<double>(ha[i]) * static_cast<double>(hb[i]);
      EXPECT_EQ(v.ndim(), 0);
      EXPECT_NEAR(v.item(), want, 1e-12 * std::max(1.0, std::abs(want)));
      EXPECT_EQ(d.item(), v.item());
      auto ints = ts::vdot(a, a);
      static_assert(std::is_same_v<decltype(ints), ts::Array<std::int32_t>>);
      std::int64_t want_ints = 0;
      for (std::int32_t x : ha) want_ints += static_cast<std::int64_t>(x) * x;
      EXPECT_EQ(ints.item(), want_ints);
    });
  }
}
