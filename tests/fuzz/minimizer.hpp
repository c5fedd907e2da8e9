#pragma once
// Minimizing a failing program while the mismatch persists: the prefix up to the failing check,
// then dropping chunks and single steps, aliases, slices, generated data and subexpressions.
// Every decision rests on to_host() results, identical on all ranks, and is agreed with an
// MPI_Allreduce (check_program), so every rank takes the same path.

#include <string>

#include "fuzz/program.hpp"

namespace fuzz {

struct Minimizer {
  int runs = 0;
  int max_runs = 500;
  std::string detail;

  // True if q (valid on the reference) still mismatches; q.window becomes the failing window.
  bool fails(Program& q);
  // The smallest failing program found from p, whose first failing check is at first_bad_step.
  Program run(Program p, int first_bad_step);
};

}  // namespace fuzz
