#include "support.hpp"

TEST_F(TesseraTest, ShiftedSumMatchesHost) {
  const std::int64_t n = 10;
  auto a = ts::arange<double>(n);
  auto b = a(ts::slice(1, -1)) + a(ts::slice(0, -2));
  std::vector<double> want;
  for (std::int64_t i = 1; i < n - 1; ++i) want.push_back(double(i) + double(i - 1));
  EXPECT_TRUE(close(b.to_host(), want));
  EXPECT_EQ(rt().stats().redistributions, 0);
}
