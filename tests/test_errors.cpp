// User errors: each must throw tessera::Error on every rank, at the same operation, with the same
// message naming the offending values; afterwards every rank is still in step (a collective
// reduction completes and is right).

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support.hpp"

namespace {

using ts::end;
using ts::slice;

}  // namespace

TEST_F(TesseraTest, ShapeMismatchInArithmetic) {
  auto a = ts::zeros<double>({10});
  auto b = ts::ones<double>({9});
  expect_collective_error("a + b", [&] { auto c = a + b; }, {"(10,)", "(9,)"});
  auto u = ts::zeros<double>({3, 4});
  auto v = ts::zeros<double>({4, 3});
  expect_collective_error("u * v", [&] { auto c = u * v; }, {"(3, 4)", "(4, 3)"});
  expect_collective_error("u view - v", [&] { auto c = u(slice(0, 2), ts::all) - v(slice(0, 3), ts::all); },
                          {"(2, 4)", "(3, 3)"});
  expect_collective_error("where", [&] { auto c = ts::where(a > 0.0, a, b); }, {"(10,)", "(9,)"});
  expect_collective_error("dot", [&] { auto c = ts::dot(a, b); }, {"(10,)", "(9,)"});
  expect_collective_error("1-D + 2-D", [&] { auto c = a + u; }, {"(10,)", "(3, 4)"});
}

TEST_F(TesseraTest, ShapeMismatchInAssign) {
  const auto h = host_values(10, 1);
  auto a = ts::from_host<double>({10}, h);
  auto b = ts::ones<double>({9});
  expect_collective_error("assign", [&] { a.assign(b); }, {"(9,)", "(10,)"});
  expect_collective_error("view assign", [&] { a(slice(0, 5)).assign(b(slice(0, 4))); }, {"(4,)", "(5,)"});
  expect_collective_error("+=", [&] { a += b; }, {"(9,)", "(10,)"});
  expect_collective_error("view -=", [&] { a(slice(2, end)) -= a(slice(0, 5)); }, {"(5,)", "(8,)"});
  // Nothing was written.
  EXPECT_TRUE(close(a.to_host(), h));
}

TEST_F(TesseraTest, BadSlices) {
  auto a = ts::arange<double>(10);
  expect_collective_error("stop past end", [&] { auto v = a(slice(0, 11)); }, {"11", "10"});
  expect_collective_error("start before 0", [&] { auto v = a(slice(-11, 5)); }, {"-11", "10"});
  expect_collective_error("start past end", [&] { auto v = a(slice(12, end)); }, {"12", "10"});
  expect_collective_error("reversed", [&] { auto v = a(slice(7, 3)); }, {"slice(7, 3)", "[7, 3)"});
  expect_collective_error("reversed negative", [&] { auto v = a(slice(-2, -5)); }, {"slice(-2, -5)", "[8, 5)"});
  auto u = ts::zeros<double>({4, 5});
  expect_collective_error("second dimension", [&] { auto v = u(ts::all, slice(0, 6)); }, {"axis 1", "6", "(4, 5)"});
  expect_collective_error("view of a view", [&] { auto v = u(slice(1, 3), ts::all)(slice(0, 3), ts::all); },
                          {"3", "(2, 5)"});
  expect_collective_error("too many slices 1-D", [&] { auto v = a(slice(0, 1), slice(0, 1)); },
                          {"too many indices", "(10,)", "2 were indexed"});
  expect_collective_error("too many slices 2-D", [&] { auto v = u(ts::all, ts::all, slice(0, 1)); },
                          {"too many indices", "(4, 5)", "3 were indexed"});
  // The valid edges are fine.
  auto ok = a(slice(-10, end)) + a(slice(0, 10));
  std::vector<double> want;
  for (int i = 0; i < 10; ++i) want.push_back(2.0 * i);
  EXPECT_TRUE(close(ok.to_host(), want));
}

TEST_F(TesseraTest, BadShapes) {
  expect_collective_error("0 dims", [] { auto a = ts::zeros<double>({}); }, {"1 to 3 dimensions", "()"});
  expect_collective_error("4 dims",
                          [] {
                            auto a = ts::ones<float>({2, 2, 2, 2});
                          },
                          {"1 to 3 dimensions", "(2, 2, 2, 2)"});
  expect_collective_error("negative", [] { auto a = ts::full<double>({3, -1}, 2.0); }, {"negative", "(3, -1)"});
  expect_collective_error("negative empty", [] { auto a = ts::empty<std::int32_t>({-4}); }, {"(-4,)"});
  expect_collective_error("random 4 dims", [] { auto a = ts::random<double>({1, 1, 1, 1}, 3); }, {"(1, 1, 1, 1)"});
  expect_collective_error("arange", [] { auto a = ts::arange<double>(-4); }, {"-4"});
  expect_collective_error("linspace", [] { auto a = ts::linspace<double>(0.0, 1.0, -2); }, {"-2"});
  expect_collective_error("from_host 0 dims", [] { auto a = ts::from_host<double>({}, {1.0}); }, {"()"});
}

TEST_F(TesseraTest, FromHostWrongBufferSize) {
  std::vector<double> h(11, 1.0);
  expect_collective_error("from_host 3x4", [&] { auto a = ts::from_host<double>({3, 4}, h); }, {"(3, 4)", "12", "11"});
  std::vector<std::int64_t> hi(7, 2);
  expect_collective_error("from_host 8", [&] { auto a = ts::from_host<std::int64_t>({8}, hi); }, {"(8,)", "8", "7"});
  std::vector<bool> hb(5, true);
  expect_collective_error("from_host bool", [&] { auto a = ts::from_host<bool>({2, 2}, hb); }, {"(2, 2)", "4", "5"});
}

TEST_F(TesseraTest, ItemOnMultiElementArray) {
  auto a = ts::zeros<double>({2, 3});
  expect_collective_error("item", [&] { (void)a.item(); }, {"(2, 3)", "6"});
  auto e = ts::zeros<double>({0});
  expect_collective_error("item empty", [&] { (void)e.item(); }, {"(0,)", "0 elements"});
  // One element is fine, whatever the shape.
  auto one = ts::full<double>({1, 1}, 2.5) * 2.0;
  EXPECT_EQ(one.item(), 2.5 * 2.0);
}

TEST_F(TesseraTest, MinMaxOfEmptyArray) {
  auto e = ts::zeros<double>({0});
  expect_collective_error("min", [&] { auto m = ts::min(e); }, {"min", "(0,)"});
  expect_collective_error("max", [&] { auto m = ts::max(e); }, {"max", "(0,)"});
  auto a = ts::arange<std::int32_t>(9);
  expect_collective_error("max of empty view", [&] { auto m = ts::max(a(slice(4, 4))); }, {"max", "(0,)"});
  auto u = ts::zeros<float>({3, 0});
  expect_collective_error("min 2-D", [&] { auto m = ts::min(u); }, {"min", "(3, 0)"});
  // sum of an empty array is 0, as NumPy.
  EXPECT_EQ(ts::sum(e).item(), 0.0);
}

TEST_F(TesseraTest, RandomNeedsFloatingType) {
  expect_collective_error("int32", [] { auto r = ts::random<std::int32_t>({4}, 1); }, {"random", "int32"});
  expect_collective_error("int64", [] { auto r = ts::random<std::int64_t>({4}, 1); }, {"random", "int64"});
  expect_collective_error("bool", [] { auto r = ts::random<bool>({4}, 1); }, {"random", "bool"});
}

TEST_F(TesseraTest, BoolSubtractAndNegate) {
  auto x = ts::from_host<double>({6}, host_values(6, 2));
  auto b = x > 0.0;
  expect_collective_error("bool - bool", [&] { auto c = b - b; }, {"subtract", "bool"});
  expect_collective_error("bool - true", [&] { auto c = b - true; }, {"subtract", "bool"});
  expect_collective_error("-bool", [&] { auto c = -b; }, {"negative", "bool"});
  expect_collective_error("bool -=", [&] { b -= b; }, {"subtract", "bool"});
  // bool + bool is logical or, as NumPy; subtracting after astype works.
  auto h = x.to_host();
  auto s = b.astype<std::int32_t>() - b.astype<std::int32_t>()(slice(0, 6));
  std::vector<std::int32_t> zeros(6, 0);
  EXPECT_TRUE(close(s.to_host(), zeros));
  std::vector<bool> wb;
  for (double v : h) wb.push_back(v > 0.0);
  EXPECT_EQ((b + b).to_host(), wb);
}

TEST_F(TesseraTest, InPlaceSameKindViolations) {
  auto i = ts::arange<std::int32_t>(7);
  std::vector<std::int32_t> want;
  for (int k = 0; k < 7; ++k) want.push_back(k);
  expect_collective_error("int32 += 0.5", [&] { i += 0.5; }, {"add", "float64", "int32", "same_kind"});
  expect_collective_error("int32 /= 2", [&] { i /= 2; }, {"divide", "float64", "int32"});
  auto d = ts::ones<double>({7});
  expect_collective_error("int32 *= double array", [&] { i *= d; }, {"multiply", "float64", "int32"});
  auto l = ts::arange<std::int64_t>(7);
  expect_collective_error("int64 -= float array", [&] { l -= ts::ones<float>({7}); }, {"subtract", "float64", "int64"});
  auto b = ts::zeros<bool>({7});
  expect_collective_error("bool += 1", [&] { b += 1; }, {"int64", "bool"});
  // Nothing was written; same-kind updates still work.
  EXPECT_TRUE(close(i.to_host(), want));
  i += 2;
  i *= ts::full<std::int32_t>({7}, 3);
  for (auto& w : want) w = (w + 2) * 3;
  EXPECT_TRUE(close(i.to_host(), want));
}

TEST_F(TesseraTest, DefaultConstructedArray) {
  ts::Array<double> a;
  EXPECT_EQ(a.size(), 0);
  EXPECT_EQ(a.ndim(), 0);
  auto b = ts::ones<double>({4});
  expect_collective_error("a + 1", [&] { auto c = a + 1.0; }, {"empty"});
  expect_collective_error("b + a", [&] { auto c = b + a; }, {"empty"});
  expect_collective_error("sum", [&] { auto c = ts::sum(a); }, {"empty"});
  expect_collective_error("to_host", [&] { (void)a.to_host(); }, {"empty"});
  expect_collective_error("item", [&] { (void)a.item(); }, {"empty"});
  expect_collective_error("slice", [&] { auto v = a(slice(0, 1)); }, {"empty"});
  expect_collective_error("copy", [&] { auto c = ts::copy(a); }, {"empty"});
  expect_collective_error("astype", [&] { auto c = a.astype<float>(); }, {"empty"});
  expect_collective_error("assign array", [&] { a.assign(b); }, {"empty"});
  expect_collective_error("assign scalar", [&] { a.assign(2.0); }, {"empty"});
  expect_collective_error("+=", [&] { a += 1.0; }, {"empty"});
  expect_collective_error("*= array", [&] { a *= b; }, {"empty"});
  expect_collective_error("b.assign(a)", [&] { b.assign(a); }, {"empty"});
  // Once assigned a handle, it works.
  a = b * 2.0;
  EXPECT_TRUE(close(a.to_host(), std::vector<double>(4, 2.0)));
}

TEST_F(TesseraTest, SecondRuntimeWhileOneExists) {
  int argc = 0;
  char** argv = nullptr;
  expect_collective_error("second runtime", [&] { ts::Runtime again(argc, argv); }, {"already exists"});
  // The first one is untouched.
  auto a = ts::arange<double>(5);
  EXPECT_TRUE(close((a + a).to_host(), {0.0, 2.0, 4.0, 6.0, 8.0}));
}

// Arrays that outlive their Runtime keep their shape; using them is an error, before and after a
// new Runtime is created, and the new Runtime works.
TEST(RuntimeLifetime, ArrayUsedAfterRuntimeDestroyed) {
  int argc = 0;
  char** argv = nullptr;
  ts::Array<double> a, view;
  const std::int64_t n = 12;
  {
    ts::Runtime rt(argc, argv);
    a = ts::arange<double>(n);
    view = a(slice(2, 6));
  }
  EXPECT_EQ(a.shape(), (ts::Shape{n}));
  EXPECT_EQ(view.shape(), (ts::Shape{4}));
  auto expect_error = [](const char* what, auto&& f, const char* part) {
    std::string message;
    try {
      f();
    } catch (const ts::Error& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(part), std::string::npos) << what << ": " << message;
    EXPECT_TRUE(same_on_all_ranks(message)) << what << ": " << message;
  };
  expect_error(
      "to_host", [&] { (void)a.to_host(); }, "Runtime");
  expect_error(
      "add", [&] { auto c = a + 1.0; }, "Runtime");
  expect_error(
      "view add", [&] { auto c = view * view; }, "Runtime");
  expect_error(
      "sum", [&] { auto c = ts::sum(a); }, "Runtime");
  expect_error(
      "slice", [&] { auto c = a(slice(0, 2)); }, "Runtime");
  expect_error(
      "assign", [&] { a.assign(1.0); }, "Runtime");
  expect_error(
      "+=", [&] { a += 1.0; }, "Runtime");
  expect_error(
      "new array", [&] { auto c = ts::zeros<double>({3}); }, "Runtime");
  {
    ts::Runtime rt(argc, argv);
    expect_error(
        "old array in new runtime", [&] { (void)a.to_host(); }, "destroyed");
    expect_error(
        "old view in new runtime", [&] { auto c = view + 1.0; }, "destroyed");
    expect_error(
        "old array assign", [&] { a.assign(0.0); }, "destroyed");
    auto b = ts::arange<double>(n) * 2.0;
    std::vector<double> want;
    for (std::int64_t i = 0; i < n; ++i) want.push_back(2.0 * static_cast<double>(i));
    EXPECT_TRUE(close(b.to_host(), want));
    expect_ranks_in_step();
    // Handles to dead data can be replaced by live ones.
    a = b;
    EXPECT_TRUE(close(a.to_host(), want));
  }
}
