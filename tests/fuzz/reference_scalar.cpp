// The reference's scalar semantics: casts, binary and unary operations on one element, each
// with the error bound of its result (see reference.hpp).

#include <algorithm>
#include <cmath>

#include "fuzz/reference.hpp"

namespace fuzz {
namespace {

// Python's x % y, as NumPy computes it: fmod (exact), moved by one divisor when the signs differ;
// a zero result takes the divisor's sign.
template <class T>
T python_remainder(T x, T y) {
  const T m = std::fmod(x, y);
  if (y == T(0)) return m;  // NaN
  if (m == T(0)) return std::copysign(T(0), y);
  return (m < T(0)) != (y < T(0)) ? m + y : m;
}

}  // namespace

std::int64_t wrap_to(DT t, std::int64_t x) {
  if (t == DT::I32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(x)));
  if (t == DT::B) return x != 0;
  return x;
}
double round_to(DT t, double x) { return t == DT::F32 ? static_cast<double>(static_cast<float>(x)) : x; }
bool dyadic20(double x) { return std::abs(x) < 1e9 && std::floor(x * 1048576.0) == x * 1048576.0; }

// Rejects values outside the program's safe range; NaN only where an input already was NaN.
void check_value(DT t, EV& r, bool nan_in, Ctx& c) {
  if (is_f(t)) {
    if (std::isnan(r.f)) {
      if (!nan_in) c.fail("a NaN that was not introduced deliberately");
      r.e = 0;
      return;
    }
    if (std::isinf(r.f)) return c.fail("an infinite value");
    if (std::abs(r.f) > kMaxFloat) return c.fail("a float beyond 1e6");
  } else if (t == DT::I64) {
    if (r.i > kMaxInt64 || r.i < -kMaxInt64) c.fail("an int64 beyond 2^40");
  }
}

// C++ conversion as tessera (and NumPy's astype) do it: to bool is "nonzero", floats truncate.
EV cast(const EV& v, DT from, DT to, Ctx& c) {
  if (from == to) return v;
  EV r;
  if (is_f(from)) {
    const double x = v.f;
    if (to == DT::B) {
      if (std::isnan(x)) {
        r.i = 1;
      } else {
        if (v.e > 0 && std::abs(x) <= kMargin * v.e) c.fail("float->bool of a value too close to 0");
        r.i = x != 0;
      }
      return r;
    }
    if (kind(to) == 1) {
      if (!std::isfinite(x)) {
        c.fail("a non-finite float cast to an integer");
        return r;
      }
      const double lim = to == DT::I32 ? 2147483647.0 : 4.0e18;
      const double lo = x - kMargin * v.e, hi = x + kMargin * v.e;
      if (std::abs(lo) >= lim || std::abs(hi) >= lim) {
        c.fail("a float out of the integer type's range");
        return r;
      }
      if (std::trunc(lo) != std::trunc(hi)) c.fail("float->int truncation too close to an integer");
      r.i = static_cast<std::int64_t>(std::trunc(x));
      return r;
    }
    r.f = round_to(to, x);
    r.e = v.e > 0 ? v.e + (to == DT::F32 ? kEps32 * std::abs(r.f) : 0.0) : 0.0;
    return r;
  }
  if (to == DT::B) {
    r.i = v.i != 0;
  } else if (kind(to) == 1) {
    r.i = wrap_to(to, v.i);
  } else {
    r.f = to == DT::F32 ? static_cast<double>(static_cast<float>(v.i)) : static_cast<double>(v.i);
  }
  return r;
}

// x op y computed in type t (op already mapped for bool: Add->or, Mul->and). Comparisons give 0/1.
EV binop(Op op, DT t, const EV& a, const EV& b, Ctx& c) {
  EV r;
  if (is_f(t)) {
    const double x = a.f, y = b.f, ea = a.e, eb = b.e, eps = eps_of(t);
    const bool f32 = t == DT::F32;
    const bool nan_in = std::isnan(x) || std::isnan(y);
    const bool approx = ea > 0 || eb > 0;
    auto fl = [](double v) { return static_cast<float>(v); };
    if (is_compare(op)) {
      if (!nan_in && approx && std::abs(x - y) <= kMargin * (ea + eb)) c.fail("a comparison too close to call");
      bool res = false;
      switch (op) {
        case Op::Eq: res = f32 ? fl(x) == fl(y) : x == y; break;
        case Op::Ne: res = f32 ? fl(x) != fl(y) : x != y; break;
        case Op::Lt: res = f32 ? fl(x) < fl(y) : x < y; break;
        case Op::Le: res = f32 ? fl(x) <= fl(y) : x <= y; break;
        case Op::Gt: res = f32 ? fl(x) > fl(y) : x > y; break;
        default: res = f32 ? fl(x) >= fl(y) : x >= y; break;
      }
      r.i = res;
      return r;
    }
    switch (op) {
      case Op::Add:
        r.f = f32 ? static_cast<double>(fl(x) + fl(y)) : x + y;
        r.e = ea + eb + (approx ? eps * std::abs(r.f) : 0.0);
        break;
      case Op::Sub:
        r.f = f32 ? static_cast<double>(fl(x) - fl(y)) : x - y;
        r.e = ea + eb + (approx ? eps * std::abs(r.f) : 0.0);
        break;
      case Op::Mul:
        // Always approximate: a backend may contract a product into a later add (FMA).
        r.f = f32 ? static_cast<double>(fl(x) * fl(y)) : x * y;
        r.e = std::abs(x) * eb + std::abs(y) * ea + ea * eb + eps * std::abs(r.f);
        break;
      case Op::Div:
        if (!nan_in && y == 0) {
          c.fail("division by zero");
          return r;
        }
        if (!nan_in && eb > 0 && std::abs(y) <= kMargin * eb) c.fail("a divisor too close to 0");
        r.f = f32 ? static_cast<double>(fl(x) / fl(y)) : x / y;
        r.e = nan_in ? 0.0 : (ea + std::abs(r.f) * eb) / std::max(std::abs(y) - eb, 1e-300) + eps * std::abs(r.f);
        break;
      case Op::Pow: {
        r.f = f32 ? static_cast<double>(std::pow(fl(x), fl(y))) : std::pow(x, y);
        double e = 4 * eps * std::abs(r.f);
        if (!nan_in && ea > 0) {
          if (y < 1 && std::abs(x) <= kMargin * ea) c.fail("pow with a base too close to 0");
          e += std::abs(y) * std::pow(std::abs(x) + kMargin * ea, y - 1) * ea;
        }
        if (!nan_in && eb > 0) {
          if (x <= 0) c.fail("pow with an approximate exponent and a non-positive base");
          e += std::abs(r.f * std::log(std::abs(x))) * eb * 2;
        }
        r.e = e;
        break;
      }
      case Op::Max:
      case Op::Min:
        if (std::isnan(x))
          r.f = x;
        else if (std::isnan(y))
          r.f = y;
        else  // as np.maximum and np.minimum: y when they compare equal (+0 and -0)
          r.f = op == Op::Max ? (x > y ? x : y) : (x < y ? x : y);
        r.e = std::max(ea, eb);
        break;
      case Op::Mod:
        if (!nan_in && y == 0) {
          c.fail("a floating remainder by zero");
          return r;
        }
        if (!nan_in && eb > 0 && std::abs(y) <= kMargin * eb) c.fail("a divisor too close to 0");
        r.f = f32 ? static_cast<double>(python_remainder(fl(x), fl(y))) : python_remainder(x, y);
        if (!nan_in && approx) {
          // The remainder jumps by y where x crosses a multiple of y.
          const double k = std::round(x / y);
          if (std::abs(x - k * y) <= kMargin * (ea + std::abs(k) * eb))
            c.fail("x too close to a multiple of y in x % y");
          r.e = ea + std::abs(std::floor(x / y)) * eb + eps * std::abs(r.f);
        }
        break;
      case Op::Atan2: {
        r.f = f32 ? static_cast<double>(std::atan2(fl(x), fl(y))) : std::atan2(x, y);
        r.e = 4 * eps * std::max(1.0, std::abs(r.f));
        if (!nan_in && approx) {
          const double near = std::hypot(x, y) - kMargin * (ea + eb);
          if (near <= 0) c.fail("arctan2 too close to the origin");
          // The branch cut: with y < 0 the angle jumps from pi to -pi where x crosses 0.
          if (y <= kMargin * eb && std::abs(x) <= kMargin * ea) c.fail("arctan2 too close to its branch cut");
          r.e +=
              ((std::abs(y) + kMargin * eb) * ea + (std::abs(x) + kMargin * ea) * eb) / std::max(near * near, 1e-300);
        }
        break;
      }
      default: c.fail("internal: bad float op"); break;
    }
    check_value(t, r, nan_in, c);
    return r;
  }
  const std::int64_t x = a.i, y = b.i;
  if (is_compare(op)) {
    switch (op) {
      case Op::Eq: r.i = x == y; break;
      case Op::Ne: r.i = x != y; break;
      case Op::Lt: r.i = x < y; break;
      case Op::Le: r.i = x <= y; break;
      case Op::Gt: r.i = x > y; break;
      default: r.i = x >= y; break;
    }
    return r;
  }
  if (t == DT::B) {
    switch (op) {
      case Op::Add:
      case Op::Max: r.i = (x || y); break;
      case Op::Mul:
      case Op::Min:
      case Op::BitAnd: r.i = (x && y); break;
      case Op::BitOr: r.i = (x || y); break;
      case Op::BitXor: r.i = (x != y); break;
      default: c.fail("an operation bool arrays do not support"); break;
    }
    return r;
  }
  const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
  switch (op) {
    case Op::Add: r.i = wrap_to(t, static_cast<std::int64_t>(ux + uy)); break;
    case Op::Sub: r.i = wrap_to(t, static_cast<std::int64_t>(ux - uy)); break;
    case Op::Mul: r.i = wrap_to(t, static_cast<std::int64_t>(ux * uy)); break;
    case Op::Max: r.i = std::max(x, y); break;
    case Op::Min: r.i = std::min(x, y); break;
    case Op::Mod:  // NumPy: 0 for a zero divisor; x % -1 is 0 (INT_MIN % -1 would trap)
      if (y == 0 || y == -1) {
        r.i = 0;
      } else {
        const std::int64_t m = x % y;
        r.i = m != 0 && (m < 0) != (y < 0) ? m + y : m;
      }
      break;
    case Op::BitAnd: r.i = wrap_to(t, x & y); break;
    case Op::BitOr: r.i = wrap_to(t, x | y); break;
    case Op::BitXor: r.i = wrap_to(t, x ^ y); break;
    case Op::Pow: {
      if (y < 0) {
        c.fail("a negative integer exponent (NumPy raises)");
        return r;
      }
      if (y > 64) {
        c.fail("an integer exponent beyond 64");
        return r;
      }
      std::int64_t p = 1;
      for (std::int64_t k = 0; k < y; ++k)
        p = wrap_to(t, static_cast<std::int64_t>(static_cast<std::uint64_t>(p) * ux));
      r.i = p;
      break;
    }
    default: c.fail("internal: bad integer op"); break;
  }
  check_value(t, r, false, c);
  return r;
}

// Unary op on a value already cast to its compute type t (isnan, isfinite: a bool 0/1).
EV unop(Op op, DT t, const EV& a, Ctx& c) {
  EV r;
  if (op == Op::IsNan || op == Op::IsFinite) {
    const bool nan = is_f(t) && std::isnan(a.f), inf = is_f(t) && std::isinf(a.f);
    r.i = op == Op::IsNan ? nan : !nan && !inf;
    return r;
  }
  if (!is_f(t)) {
    switch (op) {
      case Op::Neg:
        if (t == DT::B) c.fail("negative of a bool array (NumPy raises)");
        r.i = wrap_to(t, static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(a.i)));
        break;
      case Op::Abs:
        r.i = a.i < 0 ? wrap_to(t, static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(a.i))) : a.i;
        break;
      case Op::Sign: r.i = (a.i > 0) - (a.i < 0); break;
      case Op::Square:
        r.i = wrap_to(t, static_cast<std::int64_t>(static_cast<std::uint64_t>(a.i) * static_cast<std::uint64_t>(a.i)));
        break;
      case Op::Invert: r.i = t == DT::B ? !a.i : wrap_to(t, ~a.i); break;  // ~True is False
      default: c.fail("internal: bad integer unary op"); break;
    }
    check_value(t, r, false, c);
    return r;
  }
  const double x = a.f, ea = a.e, eps = eps_of(t);
  const bool f32 = t == DT::F32;
  const bool nan_in = std::isnan(x);
  const auto fx = static_cast<float>(x);
  auto pick = [&](float vf, double vd) { return f32 ? static_cast<double>(vf) : vd; };
  switch (op) {
    case Op::Neg:
      r.f = -x;
      r.e = ea;
      break;
    case Op::Abs:
      r.f = std::abs(x);
      r.e = ea;
      break;
    case Op::Sqrt:
      if (!nan_in && ea > 0 && x - kMargin * ea < 0) c.fail("sqrt of a value that may be negative");
      r.f = pick(std::sqrt(fx), std::sqrt(x));
      r.e = ea > 0 ? std::min(std::sqrt(ea), ea / (2 * std::sqrt(std::max(x, 1e-300)))) + eps * std::abs(r.f) : 0.0;
      break;
    case Op::Exp:
      r.f = pick(std::exp(fx), std::exp(x));
      r.e = std::abs(r.f) * (std::expm1(ea) + 4 * eps);
      break;
    case Op::Log:
      if (!nan_in && ea > 0 && x - kMargin * ea <= 0) c.fail("log of a value that may be non-positive");
      r.f = pick(std::log(fx), std::log(x));
      r.e = ea / std::max(x - ea, 1e-300) + 4 * eps * std::max(1.0, std::abs(r.f));
      break;
    case Op::Sin:
      r.f = pick(std::sin(fx), std::sin(x));
      r.e = ea + 4 * eps;
      break;
    case Op::Cos:
      r.f = pick(std::cos(fx), std::cos(x));
      r.e = ea + 4 * eps;
      break;
    case Op::Tanh:
      r.f = pick(std::tanh(fx), std::tanh(x));
      r.e = ea + 4 * eps;
      break;
    case Op::Erf:
      r.f = pick(std::erf(fx), std::erf(x));
      r.e = 1.13 * ea + 4 * eps;
      break;
    case Op::Floor:
    case Op::Ceil: {  // exact, but a step function
      const auto f = [&](double v) { return op == Op::Floor ? std::floor(v) : std::ceil(v); };
      if (!nan_in && ea > 0 && f(x - kMargin * ea) != f(x + kMargin * ea)) c.fail("floor/ceil too close to an integer");
      r.f = f(x);
      break;
    }
    case Op::Sign:  // exact, but a step function
      if (!nan_in && ea > 0 && std::abs(x) <= kMargin * ea) c.fail("sign of a value too close to 0");
      r.f = nan_in ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
      break;
    case Op::Square:  // always approximate, as Mul: it may be contracted into a later add
      r.f = f32 ? static_cast<double>(fx * fx) : x * x;
      r.e = 2 * std::abs(x) * ea + ea * ea + eps * std::abs(r.f);
      break;
    case Op::Tan: {
      r.f = pick(std::tan(fx), std::tan(x));
      double slope = 1 + r.f * r.f;  // tan' = 1 + tan^2, largest at an end of an interval without a pole
      if (!nan_in && ea > 0) {
        const double lo = x - kMargin * ea, hi = x + kMargin * ea;
        if (std::cos(lo) * std::cos(hi) <= 0) c.fail("tan too close to a pole");
        slope = 1 + std::max(std::tan(lo) * std::tan(lo), std::tan(hi) * std::tan(hi));
      }
      r.e = ea * slope + 4 * eps * std::max(1.0, std::abs(r.f));
      break;
    }
    default: c.fail("internal: bad float unary op"); break;
  }
  check_value(t, r, nan_in, c);
  return r;
}

}  // namespace fuzz
