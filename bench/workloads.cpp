#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace bench {

namespace black_scholes {

Check check_sample(const std::vector<std::int64_t>& index, const std::vector<double>& call,
                   const std::vector<double>& put) {
  Check c{!index.empty(), true, ""};
  double worst = 0;
  for (std::size_t k = 0; k < index.size(); ++k) {
    double cr = 0, pr = 0;
    price(spot(index[k]), strike(index[k]), years(index[k]), cr, pr);
    const double err = std::max(std::abs(call[k] - cr) / std::max(1.0, std::abs(cr)),
                                std::abs(put[k] - pr) / std::max(1.0, std::abs(pr)));
    if (!(err <= 1e-9)) {  // NaN fails too
      c.ok = false;
      c.detail = "option " + std::to_string(index[k]) + ": call " + format("%.17g", call[k]) + " put " +
                 format("%.17g", put[k]) + ", host " + format("%.17g", cr) + " " + format("%.17g", pr);
      return c;
    }
    worst = std::max(worst, err);
  }
  c.detail =
      std::to_string(index.size()) + " sampled options match the host (max rel. error " + format("%.1e", worst) + ")";
  return c;
}

}  // namespace black_scholes

namespace {

// Where to look along one dimension: next to both edges, the middle, and where the tiles of
// `ranks` ranks meet (tessera's balanced cuts and the baselines' are within a row or two of
// k * extent / ranks).
std::vector<std::int64_t> samples(std::int64_t extent, int ranks) {
  std::vector<std::int64_t> v = {1, extent / 2, extent - 2};
  for (int k = 1; k < ranks; ++k) v.push_back(k * extent / ranks);
  for (auto& x : v) x = std::clamp<std::int64_t>(x, 0, extent - 1);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

namespace stencil {

Check check(std::int64_t rows, std::int64_t cols, int steps, int ranks, const Fetch& final_values) {
  // A value outside a patch reaches a point of it only after as many steps as it is far away.
  const int w = 3;
  const std::int64_t h = steps + w + 1;
  const std::vector<std::int64_t> rs = samples(rows, ranks), cs = samples(cols, ranks);
  const double cost = static_cast<double>(rs.size() * cs.size()) * static_cast<double>(std::min(2 * h + 1, rows)) *
                      static_cast<double>(std::min(2 * h + 1, cols)) * steps;
  if (cost > 4e9) return {true, false, "not validated: too many steps for the host recomputation"};

  Check c{true, true, ""};
  std::int64_t compared = 0, patches = 0;
  for (std::int64_t ci : rs)
    for (std::int64_t cj : cs) {
      const std::int64_t r0 = std::max<std::int64_t>(0, ci - h), r1 = std::min(rows, ci + h + 1);
      const std::int64_t c0 = std::max<std::int64_t>(0, cj - h), c1 = std::min(cols, cj + h + 1);
      const std::int64_t pr = r1 - r0, pc = c1 - c0;
      std::vector<double> u(static_cast<std::size_t>(pr * pc));
      for (std::int64_t i = 0; i < pr; ++i)
        for (std::int64_t j = 0; j < pc; ++j) u[i * pc + j] = uniform(kSeed, (r0 + i) * cols + c0 + j);
      // Edge rows and columns of the patch are not updated: grid boundary, or unknown values.
      std::vector<double> next = u;
      for (int s = 0; s < steps; ++s) {
        for (std::int64_t i = 1; i < pr - 1; ++i)
          for (std::int64_t j = 1; j < pc - 1; ++j)
            next[i * pc + j] = 0.2 * (u[i * pc + j] + u[(i - 1) * pc + j] + u[i * pc + j + 1] + u[i * pc + j - 1] +
                                      u[(i + 1) * pc + j]);
        std::swap(u, next);
      }
      const std::vector<double> got = final_values(r0, r1, c0, c1);
      ++patches;
      auto exact = [&](std::int64_t x, std::int64_t lo, std::int64_t hi, std::int64_t extent) {
        return (lo == 0 || x - lo > steps) && (hi == extent || hi - 1 - x > steps);
      };
      for (std::int64_t i = r0; i < r1; ++i) {
        if (!exact(i, r0, r1, rows)) continue;
        for (std::int64_t j = c0; j < c1; ++j) {
          if (!exact(j, c0, c1, cols)) continue;
          const double want = u[(i - r0) * pc + j - c0], have = got[(i - r0) * pc + j - c0];
          ++compared;
          if (c.ok && !(std::abs(have - want) <= 1e-12 * std::max(1.0, std::abs(want)))) {
            c.ok = false;
            c.detail = "point (" + std::to_string(i) + ", " + std::to_string(j) + ") is " + format("%.17g", have) +
                       ", the host says " + format("%.17g", want);
          }
        }
      }
    }
  if (c.ok)
    c.detail = std::to_string(compared) + " points in " + std::to_string(patches) +
               " patches match a host recomputation of " + std::to_string(steps) + " steps";
  return c;
}

}  // namespace stencil

namespace cg {

namespace {

// The same iterations as the benchmarks, in the same order, serially.
double host_cg(std::int64_t rows, std::int64_t cols, int steps, std::vector<double>& x) {
  const std::size_t size = static_cast<std::size_t>(rows * cols);
  std::vector<double> r(size, 0.0), p, q(size, 0.0);
  x.assign(size, 0.0);
  for (std::int64_t i = 1; i < rows - 1; ++i)
    for (std::int64_t j = 1; j < cols - 1; ++j) r[i * cols + j] = rhs(i, j, cols);
  p = r;
  auto dot = [&](const std::vector<double>& u, const std::vector<double>& v) {
    double s = 0;
    for (std::int64_t i = 1; i < rows - 1; ++i)
      for (std::int64_t j = 1; j < cols - 1; ++j) s += u[i * cols + j] * v[i * cols + j];
    return s;
  };
  double rr = dot(r, r);
  for (int it = 0; it < steps; ++it) {
    for (std::int64_t i = 1; i < rows - 1; ++i)
      for (std::int64_t j = 1; j < cols - 1; ++j) {
        const std::int64_t k = i * cols + j;
        q[k] = 4.0 * p[k] - p[k - cols] - p[k + cols] - p[k - 1] - p[k + 1];
      }
    const double alpha = rr / dot(p, q);
    for (std::size_t k = 0; k < size; ++k) {
      x[k] += alpha * p[k];
      r[k] -= alpha * q[k];
    }
    const double rr_new = dot(r, r);
    const double beta = rr_new / rr;
    for (std::size_t k = 0; k < size; ++k) p[k] = r[k] + beta * p[k];
    rr = rr_new;
  }
  return rr;
}

}  // namespace

// The largest |r - (b - A x)| over the interior points of patches around the sample points,
// relative to 1 + 8 max|x| (the size of the rounding in A x); collective.
double pointwise_residual(std::int64_t rows, std::int64_t cols, int ranks, const Final& f, std::string& where) {
  const int w = 4;
  double worst = 0;
  for (std::int64_t ci : samples(rows, ranks))
    for (std::int64_t cj : samples(cols, ranks)) {
      const std::int64_t r0 = std::max<std::int64_t>(0, ci - w), r1 = std::min(rows, ci + w + 1);
      const std::int64_t c0 = std::max<std::int64_t>(0, cj - w), c1 = std::min(cols, cj + w + 1);
      const std::int64_t pc = c1 - c0;
      const std::vector<double> x = f.x(r0, r1, c0, c1), r = f.r(r0, r1, c0, c1);
      double scale = 0;
      for (double v : x) scale = std::max(scale, std::abs(v));
      for (std::int64_t i = std::max<std::int64_t>(r0 + 1, 1); i < std::min(r1 - 1, rows - 1); ++i)
        for (std::int64_t j = std::max<std::int64_t>(c0 + 1, 1); j < std::min(c1 - 1, cols - 1); ++j) {
          const std::int64_t k = (i - r0) * pc + (j - c0);
          const double ax = 4.0 * x[k] - x[k - pc] - x[k + pc] - x[k - 1] - x[k + 1];
          const double err = std::abs(r[k] - (rhs(i, j, cols) - ax)) / (1.0 + 8.0 * scale);
          if (!(err <= worst)) {  // NaN is the worst
            worst = std::isnan(err) ? err : std::max(worst, err);
            where = "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
          }
        }
    }
  return worst;
}

Check check(std::int64_t rows, std::int64_t cols, int steps, int ranks, const Final& f) {
  const double drift = std::abs(f.rr - f.rr_true) / std::max(f.rr0, f.rr_true);
  std::string where;
  const double pointwise = pointwise_residual(rows, cols, ranks, f, where);
  Check c{true, true, ""};
  c.detail = "||r||^2 " + format("%.6e", f.rr0) + " -> " + format("%.6e", f.rr) + " after " + std::to_string(steps) +
             " iterations, recomputed " + format("%.6e (rel. diff %.1e)", f.rr_true, drift) + ", energy " +
             format("%.6e", f.energy) + ", conjugacy " + format("%.1e", f.conjugacy) +
             ", r = b - A x on the host near tile edges to " + format("%.1e", pointwise);
  if (!std::isfinite(f.rr) || !std::isfinite(f.rr_true) || !std::isfinite(f.energy) || !(f.rr0 > 0)) {
    c.ok = false;
    c.detail = "not finite: " + c.detail;
  } else if (!(drift <= 1e-8)) {
    c.ok = false;
    c.detail = "recurrence and recomputed residual differ: " + c.detail;
  } else if (!(f.energy < 0)) {
    c.ok = false;
    c.detail = "energy did not decrease: " + c.detail;
  } else if (!(std::abs(f.conjugacy) <= 1e-8)) {
    c.ok = false;
    c.detail = "consecutive directions not A-conjugate: " + c.detail;
  } else if (!(pointwise <= 1e-10)) {
    c.ok = false;
    c.detail = "r differs from b - A x at " + where + ": " + c.detail;
  }
  if (!c.ok || rows * cols > kHostPoints) return c;
  std::vector<double> xh;
  const double rrh = host_cg(rows, cols, steps, xh);
  const std::vector<double> x = f.x(0, rows, 0, cols);
  double dx = 0, scale = 0;
  for (std::size_t k = 0; k < xh.size(); ++k) {
    dx = std::max(dx, std::abs(x[k] - xh[k]));
    scale = std::max(scale, std::abs(xh[k]));
  }
  const double drr = std::abs(f.rr - rrh) / f.rr0;
  c.detail += "; host CG: max|x - x_host|/max|x_host| " + format("%.1e", dx / scale) + ", ||r||^2 rel. diff " +
              format("%.1e", drr);
  if (!(dx <= 1e-8 * scale) || !(drr <= 1e-10)) {
    c.ok = false;
    c.detail = "differs from the host CG: " + c.detail;
  }
  return c;
}

}  // namespace cg

namespace sparse_cg {

void poisson_rows(std::int64_t rows, std::int64_t cols, std::int64_t lo, std::int64_t hi,
                  std::vector<std::int64_t>& indptr, std::vector<std::int64_t>& indices, std::vector<double>& values) {
  indptr.assign(1, 0);
  indices.clear();
  values.clear();
  indptr.reserve(static_cast<std::size_t>(hi - lo + 1));
  indices.reserve(static_cast<std::size_t>(5 * (hi - lo)));
  values.reserve(static_cast<std::size_t>(5 * (hi - lo)));
  auto entry = [&](std::int64_t col, double v) {
    indices.push_back(col);
    values.push_back(v);
  };
  for (std::int64_t k = lo; k < hi; ++k) {
    const std::int64_t i = k / cols, j = k % cols;
    if (i > 0) entry(k - cols, -1.0);
    if (j > 0) entry(k - 1, -1.0);
    entry(k, 4.0);
    if (j < cols - 1) entry(k + 1, -1.0);
    if (i < rows - 1) entry(k + cols, -1.0);
    indptr.push_back(static_cast<std::int64_t>(indices.size()));
  }
}

}  // namespace sparse_cg

namespace jacobi {

Check check_rows(std::int64_t n, const std::vector<std::int64_t>& index, const std::vector<double>& x,
                 const std::vector<double>& x_next) {
  Check c{!index.empty(), true, ""};
  const double tolerance = 2.0 * static_cast<double>(n + 2) * std::numeric_limits<double>::epsilon();  // both sums
  double worst = 0;
  for (std::size_t k = 0; k < index.size(); ++k) {
    const std::int64_t i = index[k];
    double rx = 0, scale = 0;  // (R x)_i, and the sum of its terms' magnitudes for the tolerance
    for (std::int64_t j = 0; j < n; ++j)
      if (j != i) {
        const double term = a(n, i, j) * x[static_cast<std::size_t>(j)];
        rx += term;
        scale += std::abs(term);
      }
    const double want = (uniform(kSeedB, i) - rx) / a(n, i, i);
    // Any order of summing n terms errs by at most about n eps of their magnitudes.
    const double err = std::abs(x_next[k] - want) / ((1.0 + scale) / a(n, i, i));
    if (!(err <= tolerance)) {
      c.ok = false;
      c.detail = "row " + std::to_string(i) + ": x " + format("%.17g", x_next[k]) + ", host " + format("%.17g", want);
      return c;
    }
    worst = std::max(worst, err);
  }
  c.detail = "the last iteration at " + std::to_string(index.size()) + " rows matches the host (max error " +
             format("%.1e", worst) + " of the row's terms)";
  return c;
}

}  // namespace jacobi

namespace gemm {

Check check_entries(std::int64_t n, const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& cols,
                    const std::vector<double>& got) {
  Check c{!rows.empty(), true, ""};
  const double tolerance = 2.0 * static_cast<double>(n + 2) * std::numeric_limits<double>::epsilon();  // both sums
  double worst = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    double want = 0;  // all terms are positive: any order of summing them errs by n eps of the sum at most
    for (std::int64_t l = 0; l < n; ++l) want += uniform(kSeedA, rows[k] * n + l) * uniform(kSeedB, l * n + cols[k]);
    const double err = std::abs(got[k] - want) / want;
    if (!(err <= tolerance)) {
      c.ok = false;
      c.detail = "C[" + std::to_string(rows[k]) + ", " + std::to_string(cols[k]) + "] " + format("%.17g", got[k]) +
                 ", host " + format("%.17g", want);
      return c;
    }
    worst = std::max(worst, err);
  }
  c.detail =
      std::to_string(rows.size()) + " entries of C match the host (max rel. error " + format("%.1e", worst) + ")";
  return c;
}

}  // namespace gemm

namespace logreg {

std::vector<double> host_weights(std::int64_t n, int steps) {
  const std::int64_t f = kFeatures;
  std::vector<double> X(static_cast<std::size_t>(n * f)), y(static_cast<std::size_t>(n)), w(f, 0.0);
  for (std::int64_t i = 0; i < n * f; ++i) X[static_cast<std::size_t>(i)] = uniform(kSeedX, i);
  for (std::int64_t i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = uniform(kSeedY, i);
  std::vector<double> gradient(f);
  for (int s = 0; s < steps; ++s) {
    std::fill(gradient.begin(), gradient.end(), 0.0);
    for (std::int64_t i = 0; i < n; ++i) {
      const double* row = &X[static_cast<std::size_t>(i * f)];
      double score = 0;
      for (std::int64_t k = 0; k < f; ++k) score += row[k] * w[static_cast<std::size_t>(k)];
      const double error = y[static_cast<std::size_t>(i)] - 1.0 / (1.0 + std::exp(-score));
      for (std::int64_t k = 0; k < f; ++k) gradient[static_cast<std::size_t>(k)] += error * row[k];
    }
    for (std::int64_t k = 0; k < f; ++k) w[static_cast<std::size_t>(k)] += kRate / static_cast<double>(n) * gradient[k];
  }
  return w;
}

}  // namespace logreg

}  // namespace bench
