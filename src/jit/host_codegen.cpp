#include "tessera/jit/host_codegen.hpp"

#include <sstream>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/jit/emitter.hpp"

namespace tessera::detail {
namespace {

using namespace codegen;

// The host side of element_ops.hpp's needs (after kStdPrelude): libm's functions, declared rather
// than included (no header is parsed), the same ones the interpreter calls through Kokkos; and
// the bit casts that the CUDA tier's literals use.
constexpr const char* kHostPrelude = R"(#define KOKKOS_FORCEINLINE_FUNCTION inline __attribute__((always_inline))
extern "C" {
double sqrt(double); float sqrtf(float); double exp(double); float expf(float);
double log(double); float logf(float); double sin(double); float sinf(float);
double cos(double); float cosf(float); double tanh(double); float tanhf(float);
double tan(double); float tanf(float); double floor(double); float floorf(float);
double ceil(double); float ceilf(float); double erf(double); float erff(float);
double atan2(double, double); float atan2f(float, float); double fabs(double); float fabsf(float);
double pow(double, double); float powf(float, float); double fmod(double, double); float fmodf(float, float);
}
namespace tessera_math {
inline double fabs(double x) { return ::fabs(x); }
inline float fabs(float x) { return ::fabsf(x); }
inline double pow(double x, double y) { return ::pow(x, y); }
inline float pow(float x, float y) { return ::powf(x, y); }
inline double fmod(double x, double y) { return ::fmod(x, y); }
inline float fmod(float x, float y) { return ::fmodf(x, y); }
}  // namespace tessera_math
#define TESSERA_KOKKOS_MATH tessera_math
inline double __longlong_as_double(long long x) { double d; __builtin_memcpy(&d, &x, sizeof d); return d; }
inline float __int_as_float(int x) { float f; __builtin_memcpy(&f, &x, sizeof f); return f; }
)";

// The type each argument is read and written as (every access of an argument has its store's
// type); -1: not accessed.
std::vector<int> argument_types(const Program& program, int nargs) {
  std::vector<int> types(static_cast<std::size_t>(nargs), -1);
  for (const Instr& in : program.code) {
    if (in.op != OpCode::Load && in.op != OpCode::Store) continue;
    if (in.a >= nargs) raise("internal: ", program.describe(), " accesses argument ", in.a, " of ", nargs);
    int& t = types[in.a];
    if (t >= 0 && t != static_cast<int>(in.type))
      raise("internal: argument ", in.a, " of ", program.describe(), " is accessed as two types");
    t = static_cast<int>(in.type);
  }
  return types;
}

// Each accessed argument's pointer to row (i0, i1), and its stride along the row where the shape
// does not fix it.
void row_pointers(std::ostream& s, const std::vector<int>& types, const KernelShape& shape, const std::string& indent) {
  for (std::size_t a = 0; a < types.size(); ++a) {
    if (types[a] < 0) continue;
    const std::uint64_t bit = std::uint64_t(1) << a;
    const char* T = ctype(static_cast<DType>(types[a]));
    const std::string x = "p.args[" + std::to_string(a) + "]";
    s << indent << T << "* const a" << a << " = reinterpret_cast<" << T << "*>(" << x << ".ptr) + " << x << ".origin";
    if (!(shape.scalar & bit)) s << " + i0 * " << x << ".stride[0] + i1 * " << x << ".stride[1]";
    s << ";\n";
    if (!(shape.scalar & bit) && !(shape.unit & bit))
      s << indent << "const long s" << a << " = " << x << ".stride[2];\n";
  }
}

std::string signature(const std::string& name) {
  return "extern \"C\" void " + name + "(const KernelParams& p, long first, long last, Value* acc) {\n";
}

// The outputs of slot k for `e` (reductions along a dimension and nested ones: ReductionTarget).
void store_outputs(std::ostream& s, const Program& program, const std::string& e, const std::string& indent) {
  for (int k = 0; k < output_slots(program); ++k)
    s << indent << "out[" << 2 * k << " * p.count + " << e << "]." << acc_member(program, static_cast<int>(k))
      << " = acc" << k << "; out[" << 2 * k + 1 << " * p.count + " << e << "].i64 = idx" << k << ";\n";
}

// Elementwise programs and full reductions: rows [first, last), the row's elements in order. A
// full reduction's accumulators come from acc and go back to it, so that the items of a launch
// fold into one sequence (the interpreter's order on one thread).
void emit_rows(std::ostream& s, const Program& program, const std::vector<int>& types, const KernelShape& shape) {
  const int nreduce = static_cast<int>(program.reduce_kinds.size());
  s << "  (void)acc;\n  const long n1 = p.domain.n[1], n2 = p.domain.n[2];\n";
  for (int k = 0; k < nreduce; ++k)
    s << "  " << (program.reduce_float[k] ? "double" : "long") << " acc" << k << " = acc[" << 2 * k << "]."
      << acc_member(program, k) << "; long idx" << k << " = acc[" << 2 * k + 1 << "].i64;\n";
  s << "  for (long row = first; row < last; ++row) {\n    const long i0 = row / n1, i1 = row - i0 * n1;\n";
  row_pointers(s, types, shape, "    ");
  // A reduction's elements are folded in order (no simd reduction: it would reorder the sum).
  if (nreduce == 0) s << "#pragma omp simd\n";
  s << "    for (long j = 0; j < n2; ++j) {\n";
  Emitter(program, shape, false, Placement{0, 0, "p.domain", true}).body(s, {{"j", ""}}, "      ");
  s << "    }\n  }\n";
  for (int k = 0; k < nreduce; ++k)
    s << "  acc[" << 2 * k << "]." << acc_member(program, k) << " = acc" << k << "; acc[" << 2 * k + 1 << "].i64 = idx"
      << k << ";\n";
}

// Reductions along dimension R. Along the last one: rows [first, last), each folded in order into
// its own output. Along an outer one: outer indices [first, last); the accumulators of the
// row's n2 outputs are the outputs themselves (slot k's values and indices as double or long
// arrays in the ReductionTarget), folded over the reduced dimension in order, each row of it a
// vectorizable loop over independent outputs.
void emit_along(std::ostream& s, const Program& program, const std::vector<int>& types, const KernelShape& shape) {
  const int R = program.reduce_dim;
  const int nreduce = static_cast<int>(program.reduce_kinds.size());
  s << "  (void)acc;\n  const long n1 = p.domain.n[1], n2 = p.domain.n[2];\n  (void)n1;\n"
    << "  Value* const out = static_cast<Value*>(p.partials);\n";
  if (R == 2) {
    s << "  for (long row = first; row < last; ++row) {\n    const long i0 = row / n1, i1 = row - i0 * n1;\n    "
      << accumulators(program, "") << "\n";
    row_pointers(s, types, shape, "    ");
    const int n = static_cast<int>(program.code.size()), body_end = program.epilogue >= 0 ? program.epilogue : n;
    Emitter emitter(program, shape, false, Placement{0, 0, "p.domain", true});
    if (const int L = row_lanes(program); L > 1) {
      // The interpreter's order (row_lanes, program/interpreter.hpp): L columns at a time, each
      // into its lane's accumulators, the columns after the last full group into lane 0, then
      // the lanes joined in order.
      std::vector<Lane> lanes;
      for (int l = 0; l < L; ++l) {
        lanes.push_back({"j_" + std::to_string(l), "_" + std::to_string(l)});
        s << "    " << accumulators_of(program, 0, nreduce, "_" + std::to_string(l)) << "\n";
      }
      s << "    long j = 0;\n    for (; j + " << L << " <= n2; j += " << L << ") {\n      const long ";
      for (int l = 0; l < L; ++l) s << (l ? ", " : "") << "j_" << l << " = j + " << l;
      s << ";\n";
      emitter.set_per_lane(true);
      emitter.body(s, lanes, "      ", 0, body_end);
      s << "    }\n    for (; j < n2; ++j) {\n";
      emitter.body(s, {{"j", "_r", "_0"}}, "      ", 0, body_end);
      s << "    }\n";
      emitter.set_per_lane(false);
      for (int k = 0; k < nreduce; ++k)
        for (int l = 0; l < L; ++l) {
          const std::string lane = std::to_string(k) + "_" + std::to_string(l);
          s << "    "
            << fold(program, k, "acc" + std::to_string(k), "idx" + std::to_string(k), "acc" + lane, "idx" + lane)
            << "\n";
        }
    } else {
      s << "    for (long j = 0; j < n2; ++j) {\n";
      emitter.body(s, {{"j", ""}}, "      ", 0, body_end);
      s << "    }\n";
    }
    if (program.epilogue >= 0) {  // once per row, on the finalized results (Program::epilogue)
      s << "    {\n      const long j = 0;\n      (void)j;\n";
      emitter.body(s, {{"j", ""}}, "      ", body_end, n);
      s << "    }\n  }\n";
      return;
    }
    store_outputs(s, program, "row", "    ");
    s << "  }\n";
    return;
  }
  s << "  const long nr = p.domain.n[" << R << "];\n  for (long outer = first; outer < last; ++outer) {\n";
  for (int k = 0; k < output_slots(program); ++k) {
    const char* T = program.reduce_float[k] ? "double" : "long";
    s << "    " << T << "* const acc" << k << " = reinterpret_cast<" << T << "*>(out + " << 2 * k
      << " * p.count + outer * n2);\n    long* const idx" << k << " = reinterpret_cast<long*>(out + " << 2 * k + 1
      << " * p.count + outer * n2);\n    for (long j = 0; j < n2; ++j) { acc" << k
      << "[j] = " << identity(program.reduce_kinds[k], program.reduce_float[k]) << "; idx" << k
      << "[j] = 0x7fffffffffffffffL; }\n";
  }
  s << "    for (long r = 0; r < nr; ++r) {\n      const long i0 = " << (R == 0 ? "r" : "outer")
    << ", i1 = " << (R == 0 ? "outer" : "r") << ";\n";
  row_pointers(s, types, shape, "      ");
  Emitter emitter(program, shape, true, Placement{0, 0, "p.domain", true});
  if (program.sweep >= 0) {
    // A sweep (Program::sweep): the row folded in order into the row slots, the code the same
    // along the row once, then every element again into the outputs.
    for (int k = output_slots(program); k < nreduce; ++k)
      s << "      " << (program.reduce_float[k] ? "double" : "long") << " acc" << k << " = "
        << identity(program.reduce_kinds[k], program.reduce_float[k]) << "; long idx" << k
        << " = 0x7fffffffffffffffL;\n";
    emitter.set_per_lane(false);
    s << "      for (long j = 0; j < n2; ++j) {\n";
    emitter.body(s, {{"j", ""}}, "        ", 0, program.epilogue);
    s << "      }\n      const long je = 0;\n      (void)je;\n";
    emitter.body(s, {{"je", ""}}, "      ", program.epilogue, program.sweep);
    emitter.set_per_lane(true);
    s << "#pragma omp simd\n      for (long j = 0; j < n2; ++j) {\n";
    emitter.body(s, {{"j", "", "[j]"}}, "        ", program.sweep, static_cast<int>(program.code.size()));
    s << "      }\n    }\n  }\n";
    return;
  }
  s << "#pragma omp simd\n      for (long j = 0; j < n2; ++j) {\n";
  emitter.body(s, {{"j", "", "[j]"}}, "        ");
  s << "      }\n    }\n  }\n";
}

// A nested reduction (Program::nested): outputs [first, last), each as the interpreter folds it
// (generate_nested's loops, on one thread). Addresses in full: the element moves along two
// dimensions inside an output.
void emit_nested(std::ostream& s, const Program& program, const KernelShape& shape) {
  const NestedReduction& n = program.nested;
  const int R = program.reduce_dim, D = n.dim, K = 3 - R - D;
  s << "  (void)acc;\n  const long nD = p.domain.n[" << D
    << "];\n  Value* const out = static_cast<Value*>(p.partials);\n"
    << "  for (long e = first; e < last; ++e) {\n    " << accumulators(program, "") << "\n"
    << "    for (long jo = 0; jo < p.domain.n[" << R << "]; ++jo) {\n      " << (n.is_float ? "double" : "long")
    << " nacc = " << identity(n.kind, n.is_float) << "; long nidx = 0x7fffffffffffffffL;\n"
    << "      for (long ji = 0; ji < nD; ++ji) {\n        " << coords_of("e", "jo", "ji", K, R, D);
  Emitter emitter(program, shape);
  emitter.body(s, {{"jc", ""}}, "        ", 0, n.end);
  s << "      }\n      {\n        " << coords_of("e", "jo", "0L", K, R, D);
  emitter.body(s, {{"jc", ""}}, "        ", n.end, static_cast<int>(program.code.size()));
  s << "      }\n    }\n";
  store_outputs(s, program, "e", "    ");
  s << "  }\n";
}

void emit_function(std::ostream& s, const Program& program, int nargs, const KernelShape& shape,
                   const std::string& name) {
  s << "\n" << signature(name);
  if (program.nested.dim >= 0)
    emit_nested(s, program, shape);
  else if (!program.reduce_kinds.empty() && program.reduce_dim >= 0)
    emit_along(s, program, argument_types(program, nargs), shape);
  else
    emit_rows(s, program, argument_types(program, nargs), shape);
  s << "}\n";
}

}  // namespace

KernelShape host_shape(const KernelShape& shape) {
  KernelShape h;
  h.unit = shape.unit;
  h.scalar = shape.scalar;
  return h;
}

HostSource generate_host(const Program& program, int nargs, const KernelShape& launch_shape) {
  if (nargs > kMaxArgs) raise("a program with ", nargs, " arguments exceeds the parameter block (", kMaxArgs, ")");
  HostSource h;
  h.shape = host_shape(launch_shape);
  const std::uint64_t used = nargs >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << nargs) - 1;
  h.shape.unit &= used;
  h.shape.scalar &= used;
  std::ostringstream s;
  s << "// tessera host kernel: " << program.describe() << "\n#define KMAX_CONSTANTS " << kMaxJitConstants
    << "\n#define KMAX_ARGS " << kMaxArgs << "\n"
    << kStdPrelude << kHostPrelude << element_ops_body() << kParams
    << "static_assert(sizeof(long) == 8 && sizeof(void*) == 8, \"tessera's host kernels assume LP64\");\n";
  emit_function(s, program, nargs, h.shape, "tessera_host");
  h.has_any = h.shape.unit != 0 || h.shape.scalar != 0;
  if (h.has_any) emit_function(s, program, nargs, KernelShape{}, "tessera_host_any");
  h.source = s.str();
  h.hash = fnv1a(h.source);
  return h;
}

std::int64_t host_items(const Program& program, const Domain& domain, std::int64_t outputs) {
  if (program.nested.dim >= 0) return outputs;
  if (!program.reduce_kinds.empty() && program.reduce_dim >= 0 && program.reduce_dim < 2)
    return domain.n[1 - program.reduce_dim];
  return domain.n[0] * domain.n[1];
}

}  // namespace tessera::detail
