#pragma once
// The reference: a serial NumPy-semantics emulator (host arrays with shapes, views as boxes into
// shared bases), with NumPy's promotion rules (NEP 50 weak C++ scalars), integer wraparound,
// true division, bool or/and, NaN-propagating maximum/minimum, Python's remainder, bitwise ops on
// bools and integers, and signed zeros as NumPy gives them (arctan2 and % tell them apart).
//
// It also tracks, per element, a bound on how far any correct implementation may differ (0 =
// bit-exact: the value only went through correctly rounded operations that cannot be
// contracted); a step whose outcome could flip within that bound (a comparison, a where()
// condition, a float->int cast), or that would be undefined (integer overflow beyond 2^40, a
// float cast to an integer out of range, NaN or inf not introduced deliberately), is rejected:
// Ctx::reject says why. The generator keeps only steps that the reference accepts.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fuzz/program.hpp"

namespace fuzz {

constexpr double kMargin = 4.0;                // decisions must be safe by this multiple of the error bound
constexpr double kBudget64 = 1e-13;            // per-element error bound allowed, relative to max(1, |v|)
constexpr double kBudget32 = 1e-6;             // (a tenth of the comparison tolerance)
constexpr double kMaxFloat = 1e6;              // larger float results are rejected
constexpr std::int64_t kMaxInt64 = 1LL << 40;  // larger int64 results are rejected (int32 may wrap)

struct Base {
  DT t = DT::F64;
  Shape shape;
  std::vector<EV> v;
};

struct RSlot {
  std::shared_ptr<Base> base;
  Shape lo, hi;  // the view, in base coordinates
  Shape shape() const {
    Shape s(lo.size());
    for (std::size_t d = 0; d < lo.size(); ++d) s[d] = hi[d] - lo[d];
    return s;
  }
  int ndim() const { return static_cast<int>(lo.size()); }
};

struct RState {
  std::vector<std::optional<RSlot>> slots = std::vector<std::optional<RSlot>>(kSlots);
  RState clone() const {
    RState out;
    std::unordered_map<const Base*, std::shared_ptr<Base>> map;
    for (int k = 0; k < kSlots; ++k) {
      if (!slots[k]) continue;
      auto& b = map[slots[k]->base.get()];
      if (!b) b = std::make_shared<Base>(*slots[k]->base);
      out.slots[k] = RSlot{b, slots[k]->lo, slots[k]->hi};
    }
    return out;
  }
};

// A materialized value: an array (0-d when shape is empty) or a weak C++ scalar.
struct RArr {
  DT t = DT::F64;
  Shape shape;
  std::vector<EV> v;
  bool weak = false;
  bool zero_d() const { return shape.empty(); }
};

struct Ctx {
  std::string reject;  // first reason the step is not acceptable
  std::int64_t ops = 0;
  void fail(const std::string& why) {
    if (reject.empty()) reject = why;
  }
  bool ok() const { return reject.empty(); }
};

// A checkpoint: what to_host()/item() returned (or the reference's values).
struct Snap {
  int step = -1;
  DT t = DT::F64;
  Shape shape;
  std::vector<double> f;
  std::vector<std::int64_t> i;
  std::string error;  // an exception thrown by tessera
};

// Scalar semantics, with error bounds (reference_scalar.cpp).
std::int64_t wrap_to(DT t, std::int64_t x);
double round_to(DT t, double x);
void check_value(DT t, EV& r, bool nan_in, Ctx& c);
EV cast(const EV& v, DT from, DT to, Ctx& c);
EV binop(Op op, DT t, const EV& a, const EV& b, Ctx& c);
EV unop(Op op, DT t, const EV& a, Ctx& c);

// Arrays, expressions and steps (reference.cpp).
std::size_t volume(const Shape& s);
RArr eval(const Expr& e, const RState& st, Ctx& c);
void apply_step(RState& st, const Step& s, int index, Ctx& c, std::vector<Snap>* snaps);
// Runs a whole program on the reference; false (with the reason) if some step is not acceptable.
// notes: per step, the type and shape of the handle it binds or writes.
bool run_reference(const Program& p, std::vector<Snap>& snaps, std::string* why = nullptr,
                   std::vector<std::string>* notes = nullptr);

}  // namespace fuzz
