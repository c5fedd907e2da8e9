// & | ^ ~ and &= |= ^= on bool arrays (logical) and integer arrays (bitwise, two's complement),
// checked with fusion on and off against serial host references: scalars on either side, the
// types NumPy gives mixed operands, masks built from comparisons, overlapping views. Floating
// operands do not compile (tests/compile_fail/).

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "support.hpp"

namespace {

const std::vector<ts::Shape> kShapes = {{10}, {7, 5}, {5, 3, 7}};

// Integer test values with every bit pattern class: negatives, the extremes, powers of two.
template <class T>
std::vector<T> bit_values(std::int64_t n, int salt) {
  std::vector<T> out = test_values<T>(n, salt);
  if constexpr (!std::is_same_v<T, bool>) {
    const T special[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(-1), T(1) << 20, T(0x5a5a)};
    for (std::size_t i = static_cast<std::size_t>(salt) % 3; i < out.size(); i += 4) out[i] = special[i % 5];
  }
  return out;
}

// x op y computed in R (for bool R: the logical operation).
template <class R>
R host_bitwise(char op, R x, R y) {
  switch (op) {
    case '&': return static_cast<R>(x & y);
    case '|': return static_cast<R>(x | y);
    default: return static_cast<R>(x ^ y);
  }
}

template <class R, class A, class B>
std::vector<R> host_bitwise(char op, const std::vector<A>& a, const std::vector<B>& b) {
  std::vector<R> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(host_bitwise<R>(op, static_cast<R>(a[i]), static_cast<R>(b[i])));
  return out;
}

template <class R, class A>
std::vector<R> host_bitwise(char op, const std::vector<A>& a, R s) {
  return host_bitwise<R>(op, a, std::vector<R>(a.size(), s));
}

template <class T>
class Bitwise : public ::testing::Test {};
using BitTypes = ::testing::Types<bool, std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(Bitwise, BitTypes);

}  // namespace

TYPED_TEST(Bitwise, ArraysAndScalars) {
  using T = TypeParam;
  using I = std::conditional_t<std::is_same_v<T, bool>, std::int64_t, T>;  // with a C++ int
  fused_and_unfused([] {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(::testing::PrintToString(shape));
      const std::int64_t n = volume_of(shape);
      const auto ha = bit_values<T>(n, 1), hb = bit_values<T>(n, 2);
      auto a = ts::from_host<T>(shape, ha);
      auto b = ts::from_host<T>(shape, hb);
      static_assert(std::is_same_v<decltype(a & b), ts::Array<T>>);
      static_assert(std::is_same_v<decltype(~a), ts::Array<T>>);
      static_assert(std::is_same_v<decltype(a | true), ts::Array<T>>);  // a C++ bool takes the array's type
      static_assert(std::is_same_v<decltype(a & 6), ts::Array<I>>);
      EXPECT_EQ((a & b).to_host(), host_bitwise<T>('&', ha, hb));
      EXPECT_EQ((a | b).to_host(), host_bitwise<T>('|', ha, hb));
      EXPECT_EQ((a ^ b).to_host(), host_bitwise<T>('^', ha, hb));
      EXPECT_EQ((a ^ true).to_host(), host_bitwise<T>('^', ha, T(true)));
      EXPECT_EQ((false | a).to_host(), host_bitwise<T>('|', ha, T(false)));
      EXPECT_EQ((a & 6).to_host(), host_bitwise<I>('&', ha, I(6)));
      EXPECT_EQ((-3 ^ b).to_host(), host_bitwise<I>('^', hb, I(-3)));
      std::vector<T> want_not;
      for (T x : ha) want_not.push_back(std::is_same_v<T, bool> ? T(!x) : static_cast<T>(~x));  // ~True is False
      EXPECT_EQ((~a).to_host(), want_not);
      EXPECT_EQ((~~a).to_host(), ha);
    }
  });
}

TEST(BitwiseTypes, MixedOperandsPromoteAsNumPy) {
  const ts::Shape shape{5, 3, 7};
  const std::int64_t n = volume_of(shape);
  const auto hi = bit_values<std::int32_t>(n, 3);
  const auto hl = bit_values<std::int64_t>(n, 4);
  const auto hp = test_values<bool>(n, 5);
  fused_and_unfused([&] {
    auto i = ts::from_host<std::int32_t>(shape, hi);
    auto l = ts::from_host<std::int64_t>(shape, hl);
    auto p = ts::from_host<bool>(shape, hp);
    auto il = i | l;
    auto pi = p & i;
    auto pl = l ^ p;
    static_assert(std::is_same_v<decltype(il), ts::Array<std::int64_t>>);
    static_assert(std::is_same_v<decltype(pi), ts::Array<std::int32_t>>);
    static_assert(std::is_same_v<decltype(pl), ts::Array<std::int64_t>>);
    EXPECT_EQ(il.to_host(), host_bitwise<std::int64_t>('|', hi, hl));
    EXPECT_EQ(pi.to_host(), host_bitwise<std::int32_t>('&', hp, hi));
    EXPECT_EQ(pl.to_host(), host_bitwise<std::int64_t>('^', hl, hp));
  });
}

TEST(BitwiseMasks, ComparisonsCombineAndUpdateInPlace) {
  const ts::Shape shape{7, 5};
  const auto hd = test_values<double>(35, 6);
  const auto hi = bit_values<std::int32_t>(35, 7);
  fused_and_unfused([&] {
    auto d = ts::from_host<double>(shape, hd);
    auto i = ts::from_host<std::int32_t>(shape, hi);
    auto in_band = (d > -1.0) & (d < 2.0) | ~((i & 1) == 0);
    auto mask = d > 0.0;
    mask &= i > 0;
    mask |= ts::isnan(d);
    mask ^= d == 1.5;
    std::vector<bool> want_band, want_mask;
    for (int k = 0; k < 35; ++k) {
      want_band.push_back((hd[k] > -1.0 && hd[k] < 2.0) || (hi[k] & 1) != 0);
      want_mask.push_back(((hd[k] > 0.0 && hi[k] > 0) || std::isnan(hd[k])) != (hd[k] == 1.5));
    }
    EXPECT_EQ(in_band.to_host(), want_band);
    EXPECT_EQ(mask.to_host(), want_mask);
    // Flags into integers: i &= 0xff, i |= 1 << 12, i ^= a bool array (promotes to int32).
    auto flags = ts::from_host<std::int32_t>(shape, hi);
    flags &= 0xff;
    flags |= 1 << 12;
    flags ^= mask;
    std::vector<std::int32_t> want_flags;
    for (int k = 0; k < 35; ++k) want_flags.push_back(((hi[k] & 0xff) | (1 << 12)) ^ (want_mask[k] ? 1 : 0));
    EXPECT_EQ(flags.to_host(), want_flags);
  });
}

TEST(BitwiseInPlace, WiderRightHandSidesAndOverlappingViews) {
  const auto hi = bit_values<std::int32_t>(35, 8);
  const auto hl = bit_values<std::int64_t>(35, 9);
  fused_and_unfused([&] {
    auto i = ts::from_host<std::int32_t>({7, 5}, hi);
    i ^= ts::from_host<std::int64_t>({7, 5}, hl);  // int64 result cast back to int32: same kind
    std::vector<std::int32_t> want;
    for (int k = 0; k < 35; ++k) want.push_back(static_cast<std::int32_t>(static_cast<std::int64_t>(hi[k]) ^ hl[k]));
    EXPECT_EQ(i.to_host(), want);
    // Columns 1.. xor columns ..-1 of the same array: the right-hand side is read before the write.
    auto j = ts::from_host<std::int64_t>({7, 5}, hl);
    j(ts::all, ts::slice(1, ts::end)) ^= j(ts::all, ts::slice(0, -1));
    std::vector<std::int64_t> want_j = hl;
    for (int r = 0; r < 7; ++r)
      for (int c = 1; c < 5; ++c) want_j[r * 5 + c] = hl[r * 5 + c] ^ hl[r * 5 + c - 1];
    EXPECT_EQ(j.to_host(), want_j);
  });
}
