#pragma once
// What the JIT's structural tests share (test_jit_codegen: jit_codegen_check.cpp,
// jit_march_check.cpp): the kernels that launches would compile, recorded while a program runs on
// the CPU interpreter.

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

}  // namespace jit_check
