#pragma once
// What the JIT's structural tests share (test_jit_codegen: jit_codegen_check.cpp,
// jit_march_check.cpp): the kernels that launches would compile, recorded while a program runs on
// the CPU interpreter, and counting helpers for the generated sources.

#include <cstddef>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <tessera/fusion/backend.hpp>
#include <tessera/jit/codegen.hpp>

#include "support.hpp"

namespace jit_check {

namespace td = tessera::detail;

// The launch observer while the fuzz corpus and the tests run: each launched program's kernels go
// to the corpus that the test executable compiles with NVRTC at its end (jit_codegen_check.cpp).
void observe(const td::Program& program, int nargs, const td::KernelShape& shape);

// The launches recorded while the observer is `capture` (each also goes to the corpus).
struct Launched {
  td::Program program;
  int nargs;
  td::KernelShape shape;
};
std::vector<Launched>& launched();
void capture(const td::Program& program, int nargs, const td::KernelShape& shape);
// The launches of `work`, run and flushed.
template <class F>
const std::vector<Launched>& launches_of(ts::Runtime& rt, F&& work) {
  launched().clear();
  td::set_launch_observer(&capture);
  work();
  rt.flush();
  td::set_launch_observer(&observe);
  return launched();
}
template <class F>
td::Program longest_program_of(ts::Runtime& rt, F&& work) {
  td::Program longest;
  for (const Launched& l : launches_of(rt, work))
    if (l.program.code.size() > longest.code.size()) longest = l.program;
  return longest;
}

inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
inline std::size_t regex_matches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

}  // namespace jit_check
