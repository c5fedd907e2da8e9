#pragma once
// Shared helpers for tessera tests: a fixture that owns a Runtime per test, host reference arrays
// and comparisons. Every test computes its expected values serially on the host.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <tessera/tessera.hpp>

namespace ts = tessera;

class TesseraTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int argc = 0;
    char** argv = nullptr;
    rt_ = std::make_unique<ts::Runtime>(argc, argv, config());
  }
  void TearDown() override { rt_.reset(); }
  virtual ts::Config config() const { return ts::Config{}; }
  ts::Runtime& rt() { return *rt_; }

 private:
  std::unique_ptr<ts::Runtime> rt_;
};

// A row-major host array: the serial reference.
template <class T>
struct HostArray {
  std::vector<std::int64_t> shape;
  std::vector<T> data;

  HostArray() = default;
  HostArray(std::vector<std::int64_t> s, std::vector<T> d) : shape(std::move(s)), data(std::move(d)) {}
  std::int64_t size() const {
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    return n;
  }
};

// Relative comparison scaled by the magnitude of the reference (exact for integers and bool).
template <class T>
::testing::AssertionResult close(const std::vector<T>& got, const std::vector<T>& want, double rtol = 1e-12) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(want[i]) && std::isnan(got[i])) continue;
      if (std::isinf(want[i]) && got[i] == want[i]) continue;
      double tol = rtol * std::max(1.0, std::abs(static_cast<double>(want[i])));
      if (!(std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <= tol))
        return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << ", want " << want[i];
    } else {
      if (got[i] != want[i])
        return ::testing::AssertionFailure() << "element " << i << ": got " << +got[i] << ", want " << +want[i];
    }
  }
  return ::testing::AssertionSuccess();
}
