// Rows and planes in the JIT's kernels, from the launches of programs run on the CPU interpreter
// (linked into test_jit_codegen, whose corpus also compiles these kernels with NVRTC): views of one
// store sharing their row offsets, values carried from the row or plane before, planes marched,
// and a plane's views staged in shared memory (docs/JIT.md, "Planes marched").

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <tessera/jit/kernel_cache.hpp>

#include "jit_codegen_support.hpp"
#include "support.hpp"

namespace td = tessera::detail;
using namespace jit_check;

namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
std::size_t regex_matches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

}  // namespace

// The 27-point stencil: the 27 views of one grid and the store into its interior (or into the
// fresh buffer the grid is renamed to: the same layout) step alike along rows, so the kernel
// computes one row offset per row for all 28 arguments (KernelShape::same_rows) and, with 27
// loads live at once, runs one element per thread. On a domain of many planes it marches through
// planes (KernelShape::march_planes), views a plane apart paired (row_carry); on one of few planes
// it steps through rows, views a row apart paired. `by_planes`: the sum as cuPyNumeric's
// stencil_27.py writes it (rows of three views, planes of three rows, the three planes), else
// one view after the other.
// reversed (by_planes only): each row's views and each plane's rows summed from the last.
std::vector<Launched> stencil27_launches(ts::Runtime& rt, std::int64_t planes, std::int64_t m, bool by_planes,
                                         bool reversed = false) {
  auto grid = ts::random<double>({planes, m, m}, 3);
  rt.flush();
  auto s = [](int k) { return k == 0 ? ts::slice(0, -2) : k == 1 ? ts::slice(1, -1) : ts::slice(2, ts::end); };
  auto g = [&](int a, int b, int c) { return grid(s(a), s(b), s(c)); };
  std::vector<Launched> rows;
  for (const Launched& l : launches_of(rt, [&] {
         // The sums die before the window runs: temporaries of one group, as in the program.
         ts::Array<double> sum = g(0, 0, 0);
         if (by_planes) {
           ts::Array<double> plane[3];
           for (int a = 0; a < 3; ++a) {
             ts::Array<double> row[3];
             for (int b = 0; b < 3; ++b) {
               const int r = reversed ? 2 - b : b, c0 = reversed ? 2 : 0, c2 = 2 - c0;
               row[b] = g(a, r, c0) + g(a, r, 1) + g(a, r, c2);
             }
             plane[a] = row[0] + row[1] + row[2];
           }
           sum = plane[0] + plane[1] + plane[2];
         } else {
           for (int k = 1; k < 27; ++k) sum = sum + g(k / 9, k / 3 % 3, k % 3);
         }
         grid(s(1), s(1), s(1)).assign(0.037 * sum);
       })) {
    EXPECT_EQ(l.nargs, 28);
    if (!l.shape.flat) rows.push_back(l);
  }
  return rows;
}

// A carrying kernel's code after its refill (`if (!carry) { ... }`): what a row (or plane) whose
// predecessor this thread ran computes.
std::string after_refill(const std::string& source, const std::string& indent) {
  const std::size_t refill = source.find(indent + "if (!carry) {\n");
  if (refill == std::string::npos) return "";
  return source.substr(source.find("\n" + indent + "}\n", refill) + indent.size() + 3);
}
const char* const kGlobalLoad = "= *(reinterpret_cast<const double*>";
const char* const kCarriedValue = R"(const double v\d+(_\d+)? = c\d+(_\d+)?;)";

TEST_F(TesseraTest, ViewsOfOneStoreShareTheirRowOffsets) {
  const std::int64_t m = 20;  // rows longer than kMaxColumnShift: only views of one row are column shifts
  // One launch per rank (np 1: this test runs at np 1 only), over 18 planes.
  const std::vector<Launched> launches = stencil27_launches(rt(), m, m, false);
  ASSERT_FALSE(launches.empty()) << "no launch over several rows";
  const Launched& l = launches.back();
  for (int a = 1; a < l.nargs; ++a) EXPECT_EQ(l.shape.same_rows[a], 1) << "argument " << a;
  // View (a, b, c) is argument 9 a + 3 b + c: one plane further on, views a = 0 and 1 read what
  // a + 1 read, so 18 of the 27 loads come from the plane before; the store is never carried.
  EXPECT_TRUE(l.shape.march_planes);
  for (int a = 0; a < 27; ++a) EXPECT_EQ(l.shape.row_carry[a], a / 9 < 2 ? a + 9 + 1 : 0) << "argument " << a;
  EXPECT_EQ(l.shape.row_carry[27], 0);
  // Views c = 1, 2 of a row are view c = 0 shifted by c columns: addressed from it.
  for (int a = 0; a < 27; ++a) {
    EXPECT_EQ(l.shape.column_of[a], a % 3 ? a - a % 3 + 1 : 0) << "argument " << a;
    EXPECT_EQ(l.shape.column_shift[a], a % 3) << "argument " << a;
  }
  EXPECT_EQ(l.shape.column_of[27], 0);
  EXPECT_EQ(td::elements_per_thread(l.program), 1);
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  // The marching kernel: a tile of a plane per block, one row offset per plane read by all 28
  // addresses. Views summed one after the other: only the 18 loads of the planes before are
  // carried (no sum of the plane before is one of this plane), loaded from global memory only in
  // a band's first plane (one branch per plane).
  const td::GeneratedKernel march = td::generate_cuda(l.program, l.nargs, l.shape, 1);
  EXPECT_TRUE(march.marches);
  EXPECT_TRUE(march.carries);
  EXPECT_EQ(occurrences(march.source, "for (long i0 = first; i0 < last; ++i0) {"), 1u) << march.source;
  EXPECT_EQ(occurrences(march.source, "const long r0 = i0 * p.args[0].stride[0] + i1 * p.args[0].stride[1];"), 1u);
  EXPECT_EQ(occurrences(march.source, "].origin + r0 + j)"), 28u) << march.source;
  EXPECT_EQ(occurrences(march.source, "if (!carry) {"), 1u) << march.source;
  EXPECT_EQ(occurrences(march.source, "carry = true;"), 1u) << march.source;
  // Each thread takes kMarchElements elements of its row (lanes _0, _1, ...).
  const std::size_t E = td::kMarchElements;
  const std::string marched = after_refill(march.source, "    ");
  EXPECT_EQ(regex_matches(marched, kCarriedValue), 18 * E) << march.source;
  EXPECT_EQ(occurrences(marched, kGlobalLoad), 9 * E) << march.source;
  EXPECT_EQ(occurrences(marched, "el::wrap_add"), 26 * E) << march.source;
  EXPECT_FALSE(cache.cubin(march, stats).empty()) << march.source;

  // Four planes: too few to march; rows are stepped, views a row apart paired.
  const std::vector<Launched> flat_launches = stencil27_launches(rt(), 6, m, false);
  ASSERT_FALSE(flat_launches.empty());
  const Launched& r = flat_launches.back();
  EXPECT_FALSE(r.shape.march_planes);
  for (int a = 0; a < 27; ++a) EXPECT_EQ(r.shape.row_carry[a], a / 3 % 3 < 2 ? a + 3 + 1 : 0) << "argument " << a;
  EXPECT_EQ(r.shape.row_carry[27], 0);
  const td::GeneratedKernel g = td::generate_cuda(r.program, r.nargs, r.shape, 1);
  EXPECT_FALSE(g.marches);
  // One definition in the row loop (with one element per thread, its only copy), read by all.
  EXPECT_EQ(occurrences(g.source, "const long r0 = i0 * p.args[0].stride[0] + i1 * p.args[0].stride[1];"), 1u)
      << g.source;
  EXPECT_EQ(occurrences(g.source, ".stride[1]"), 1u) << g.source;
  EXPECT_EQ(occurrences(g.source, "].origin + r0 + j)"), 28u) << g.source;
  // The 18 carried loads read registers, loaded from global memory only where the row before did
  // not run (one branch per row).
  const std::string stepped = after_refill(g.source, "      ");
  EXPECT_EQ(regex_matches(stepped, kCarriedValue), 18u) << g.source;
  EXPECT_EQ(occurrences(stepped, kGlobalLoad), 9u) << g.source;
  EXPECT_EQ(occurrences(g.source, "if (!carry) {"), 1u) << g.source;
  // The shifted views' 6 loads and 12 refills: their row's first view's address plus a literal.
  EXPECT_EQ(regex_matches(g.source, R"(\.origin \+ r0 \+ j\) \+ [12]\))"), 18u) << g.source;
  EXPECT_EQ(occurrences(g.source, "carry = next1 != 0;"), 1u) << g.source;
  EXPECT_TRUE(g.carries);
  EXPECT_FALSE(cache.cubin(g, stats).empty()) << g.source;
  // Arguments of different strides keep their own offsets.
  td::KernelShape own = r.shape;
  std::fill(std::begin(own.same_rows), std::end(own.same_rows), 0);
  const std::string separate = td::generate_cuda(r.program, r.nargs, own, 1).source;
  EXPECT_NE(separate.find("const long r27 = i0 * p.args[27].stride[0]"), std::string::npos) << separate;
  EXPECT_NE(separate.find("p.args[27].origin + r27 + j)"), std::string::npos) << separate;
  // Without the pairs every row loads all 27 views.
  td::KernelShape uncarried = r.shape;
  std::fill(std::begin(uncarried.row_carry), std::end(uncarried.row_carry), 0);
  const td::GeneratedKernel plain = td::generate_cuda(r.program, r.nargs, uncarried, 1);
  EXPECT_EQ(plain.source.find("carry"), std::string::npos);
  EXPECT_FALSE(plain.carries);
  // A marching shape compiled with several elements per thread (TESSERA_JIT_ELEMENTS) steps
  // through rows and carries nothing: its pairs are a plane apart.
  const td::GeneratedKernel forced = td::generate_cuda(l.program, l.nargs, l.shape, 2);
  EXPECT_FALSE(forced.marches);
  EXPECT_FALSE(forced.carries);
}

// Summed as cuPyNumeric writes it, a plane's sum of 9 views (planes[0], planes[1]) is the sum
// the plane before computed for the views a plane further on (planes[1], planes[2]): the marching
// kernel carries those two sums, not 18 loads, and computes per plane only planes[2] (9 loads, 8
// additions) and the total (2 additions, 1 multiplication). Stepping through rows, the rows' sums
// of three views are carried the same way (6 of the 9). Their values are those of the program,
// bit for bit (the same operations on the same values; tests/test_fusion_programs.cpp checks the
// results against the host on GPU builds).
TEST_F(TesseraTest, SumsOfThePlaneBeforeAreCarried) {
  const std::int64_t m = 20;
  const std::vector<Launched> launches = stencil27_launches(rt(), m, m, true);
  ASSERT_FALSE(launches.empty());
  const Launched& l = launches.back();
  ASSERT_TRUE(l.shape.march_planes);
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  const td::GeneratedKernel march = td::generate_cuda(l.program, l.nargs, l.shape, 1);
  ASSERT_TRUE(march.carries) << march.source;
  const std::size_t E = td::kMarchElements;  // per thread, lanes _0, _1, ...
  const std::string marched = after_refill(march.source, "    ");
  EXPECT_EQ(regex_matches(march.source, R"(\n  double c\d+(_\d+)? = 0;)"), 2 * E) << march.source;
  EXPECT_EQ(regex_matches(marched, kCarriedValue), 2 * E) << march.source;
  EXPECT_EQ(occurrences(marched, kGlobalLoad), 9 * E) << march.source;
  EXPECT_EQ(occurrences(marched, "el::wrap_add"), 10 * E) << march.source;
  EXPECT_EQ(occurrences(marched, "el::wrap_mul"), E) << march.source;
  // The refill computes the two sums of the band's first plane from their 18 loads.
  EXPECT_EQ(occurrences(march.source, kGlobalLoad), 27 * E) << march.source;
  // Six blocks resident per SM (at most 40 registers a thread: the kernel waits on memory).
  EXPECT_NE(march.source.find("__launch_bounds__(256, 6)"), std::string::npos) << march.source;
  // Elements past the domain's last column store nothing.
  if (E > 1)
    EXPECT_EQ(occurrences(marched, "if (j + " + std::to_string(td::kMarchColumns) + " < n2) *("), 1u) << march.source;
  EXPECT_FALSE(cache.cubin(march, stats).empty()) << march.source;

  const std::vector<Launched> flat_launches = stencil27_launches(rt(), 6, m, true);
  ASSERT_FALSE(flat_launches.empty());
  const Launched& r = flat_launches.back();
  ASSERT_FALSE(r.shape.march_planes);
  const td::GeneratedKernel stepped = td::generate_cuda(r.program, r.nargs, r.shape, 1);
  const std::string rows = after_refill(stepped.source, "      ");
  EXPECT_EQ(regex_matches(rows, kCarriedValue), 6u) << stepped.source;
  EXPECT_EQ(occurrences(rows, kGlobalLoad), 9u) << stepped.source;
  EXPECT_EQ(occurrences(rows, "el::wrap_add"), 3 * (2 + 2) + 2u) << stepped.source;
  EXPECT_FALSE(cache.cubin(stepped, stats).empty()) << stepped.source;
}

// Rows longer than twice the largest column shift: the 9 views of the plane each step loads are
// one store shifted by -1..1 rows and columns from its first (KernelShape::tile_of), so the
// marching kernel stages the part of that plane its tile reads in shared memory (a 10 x 66 tile,
// two buffers) and the 9 loads read it there, at literal offsets from one pointer a plane; only
// the refill, once before the loop, reads global memory, and the next plane is loaded into
// registers in a block of its own while this one computes.
TEST_F(TesseraTest, ViewsOfOnePlaneAreStagedInTiles) {
  const std::int64_t m = 40;
  const std::vector<Launched> launches = stencil27_launches(rt(), 10, m, true);
  ASSERT_FALSE(launches.empty());
  const Launched& l = launches.back();
  ASSERT_TRUE(l.shape.march_planes);
  // View (a, b, c) is argument 9 a + 3 b + c: views of a plane (a) are its first view shifted by
  // b rows and c columns; the store (argument 27) is not staged.
  for (int a = 0; a < 27; ++a) {
    EXPECT_EQ(l.shape.tile_of[a], a % 9 ? a - a % 9 + 1 : 0) << "argument " << a;
    EXPECT_EQ(l.shape.tile_rows[a], a / 3 % 3) << "argument " << a;
    EXPECT_EQ(l.shape.tile_columns[a], a % 3) << "argument " << a;
  }
  EXPECT_EQ(l.shape.tile_of[27], 0);
  const td::GeneratedKernel march = td::generate_cuda(l.program, l.nargs, l.shape, 1);
  ASSERT_TRUE(march.marches && march.carries) << march.source;
  // DUMP_MARCH=<file> writes the kernel (docs/bench/2026-12-07d-gpu-h100/scripts/h27r-gen6.cu).
  if (std::getenv("DUMP_MARCH")) std::ofstream(std::getenv("DUMP_MARCH")) << march.source;
  const int E = td::kMarchElements, C = td::kMarchColumns;
  const int width = C * E + 2, height = td::kMarchRows + 2;
  EXPECT_EQ(occurrences(march.source, "__shared__ double tile0[2][" + std::to_string(width * height) + "];"), 1u)
      << march.source;
  EXPECT_EQ(occurrences(march.source, "__shared__"), 1u) << march.source;  // the other planes are carried
  // The refill (once, before the loop) and the loop.
  const std::size_t loop = march.source.find("  for (long i0 = first; i0 < last; ++i0) {\n");
  ASSERT_NE(loop, std::string::npos) << march.source;
  const std::string refill = march.source.substr(0, loop), marched = march.source.substr(loop);
  EXPECT_EQ(occurrences(march.source, "carry"), 0u) << march.source;  // no flag, no branch per plane
  EXPECT_EQ(occurrences(marched, kGlobalLoad), 0u) << march.source;
  // Lane e reads view (2, b, c) at b * width + c + e * C from the thread's first element.
  for (int e = 0; e < E; ++e)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 3; ++c)
        EXPECT_EQ(occurrences(marched, "= tl0[" + std::to_string(b * width + c + e * C) + "];"), 1u)
            << "lane " << e << ", row " << b << ", column " << c << "\n"
            << march.source;
  EXPECT_EQ(regex_matches(marched, R"(= tl0\[\d+\];)"), static_cast<std::size_t>(9 * E)) << march.source;
  // The refill loads the band's first two planes' 18 views from global memory.
  EXPECT_EQ(occurrences(refill, kGlobalLoad), static_cast<std::size_t>(18 * E)) << march.source;
  // The next plane's part in a block of its own, before the plane's code.
  EXPECT_LT(marched.find("    if (more) {\n      const double* const plane0"), marched.find("= tl0[")) << march.source;
  // One barrier per plane and one after the band's first plane is staged.
  EXPECT_EQ(occurrences(march.source, "__syncthreads();"), 2u) << march.source;
  // Elements past the domain store nothing.
  EXPECT_EQ(occurrences(marched, "if (inside) *("), 1u) << march.source;
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  EXPECT_FALSE(cache.cubin(march, stats).empty()) << march.source;
}

// Summed from each plane's last row and column, the views of a plane are its first view shifted
// up and left: the tile starts two rows above and two columns left of the first view's element,
// and its slots' offsets count from there (never negative: a negative offset marks a slot past
// what the tile reads).
TEST_F(TesseraTest, ViewsStagedFromTheirLastRowAndColumn) {
  const std::vector<Launched> launches = stencil27_launches(rt(), 10, 40, true, true);
  ASSERT_FALSE(launches.empty());
  const Launched& l = launches.back();
  ASSERT_TRUE(l.shape.march_planes);
  int above = 0;
  for (int a = 0; a < 27; ++a) above += l.shape.tile_rows[a] == -2 && l.shape.tile_columns[a] == -2;
  EXPECT_EQ(above, 3) << "one view of each plane two rows up and two columns left of its first";
  const td::GeneratedKernel march = td::generate_cuda(l.program, l.nargs, l.shape, 1);
  EXPECT_EQ(regex_matches(march.source, R"(\.stride\[0\] \+ \(-2\) \* p\.args\[\d+\]\.stride\[1\] \+ \(-2\);)"), 2u)
      << march.source;  // the band's first plane and the loop's next one
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  EXPECT_FALSE(cache.cubin(march, stats).empty()) << march.source;
}

// The 5-point stencil's views a row apart are 2 of its 5 loads and nothing computed from them is
// computed again a row on: too little to pay for the registers and longer bands of a carrying
// kernel (jit/carry_plan.cpp, worth_carrying), so the pairs are found but not carried.
TEST_F(TesseraTest, FewRowPairsAreNotCarried) {
  const std::int64_t m = 16;
  auto u = ts::random<double>({m, m}, 5);
  rt().flush();
  ts::Array<double> out;
  const std::vector<Launched>& launches = launches_of(rt(), [&] {
    out = u(ts::slice(0, -2), ts::slice(1, -1)) + u(ts::slice(2, ts::end), ts::slice(1, -1)) +
          u(ts::slice(1, -1), ts::slice(0, -2)) + u(ts::slice(1, -1), ts::slice(2, ts::end)) -
          4.0 * u(ts::slice(1, -1), ts::slice(1, -1));
  });
  ASSERT_FALSE(launches.empty());
  for (const Launched& l : launches) {
    EXPECT_EQ(std::count_if(std::begin(l.shape.row_carry), std::end(l.shape.row_carry), [](auto c) { return c != 0; }),
              2);
    EXPECT_FALSE(td::generate_cuda(l.program, l.nargs, l.shape, td::elements_per_thread(l.program)).carries);
  }
}

// A value computed again one row on is carried even where few loads pair: sqrt(u[:-1]) +
// sqrt(u[1:]) pairs 1 of its 2 loaded views, and each row after a band's first takes one load and
// one square root (the shallow-water step's half-step fluxes, docs/JIT.md "Rows carried").
TEST_F(TesseraTest, ComputedValuesOfTheRowBeforeAreCarried) {
  const std::int64_t m = 16;
  auto u = ts::random<double>({m, m}, 6);
  rt().flush();
  ts::Array<double> out;
  const std::vector<Launched>& launches = launches_of(
      rt(), [&] { out = ts::sqrt(u(ts::slice(0, -1), ts::all)) + ts::sqrt(u(ts::slice(1, ts::end), ts::all)); });
  ASSERT_EQ(launches.size(), 1u);
  const Launched& l = launches.back();
  const td::GeneratedKernel g = td::generate_cuda(l.program, l.nargs, l.shape, 1);
  ASSERT_TRUE(g.carries) << g.source;
  const std::string rows = after_refill(g.source, "      ");
  EXPECT_EQ(regex_matches(rows, kCarriedValue), 1u) << g.source;
  EXPECT_EQ(occurrences(rows, kGlobalLoad), 1u) << g.source;
  EXPECT_EQ(occurrences(rows, "sqrt("), 1u) << g.source;
  td::KernelCache cache("", 90);
  tessera::Stats stats;
  EXPECT_FALSE(cache.cubin(g, stats).empty()) << g.source;
}
