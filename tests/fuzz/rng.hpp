#pragma once
// Deterministic random numbers (the same on every rank and every platform): SplitMix64.

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace fuzz {

struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL) {}
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  int below(std::int64_t n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  double real() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  bool chance(double p) { return real() < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(below(static_cast<std::int64_t>(v.size())))];
  }
  int weighted(std::initializer_list<double> w) {
    double total = 0;
    for (double x : w) total += x;
    double u = real() * total;
    int i = 0;
    for (double x : w) {
      if (u < x) return i;
      u -= x;
      ++i;
    }
    return i - 1;
  }
};

}  // namespace fuzz
