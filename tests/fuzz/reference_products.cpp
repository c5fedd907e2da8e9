// The reference's products, float64 only: NumPy's matmul of 1-D and 2-D operands ((n,k)@(k,),
// (k,)@(k,m), (n,k)@(k,m) and (k,)@(k,) to 0-d) and the SpMV y = A x by the program's sparse
// matrix. Each element is an inner product: BLAS, the SpMV kernel and the sums across ranks add
// its terms in orders of their own (blocked, fused multiply-adds, partial rows), so its bound is
// a sum's in any order (sum_any_order: exact only for small dyadic terms). Dense products with a
// NaN or inf operand are rejected: BLAS need not propagate them (reference BLAS skips the column
// of a zero x_j, and NaN * 0 with it); the SpMV kernel multiplies every stored entry.

#include <cmath>

#include "fuzz/reference.hpp"

namespace fuzz {
namespace {

std::vector<EV> as_f64(const RArr& a, Ctx& c) {
  std::vector<EV> out;
  for (const EV& x : a.v) out.push_back(cast(x, a.t, DT::F64, c));
  return out;
}

RArr spmv(const RArr& x, const Csr* a, Ctx& c) {
  RArr out;
  if (!a) {
    c.fail("an SpMV in a program without a sparse matrix");
    return out;
  }
  if (x.t != DT::F64) {
    c.fail("an SpMV of a non-float64 vector (a CsrMatrix<double> multiplies Array<double>)");
    return out;
  }
  if (x.shape != Shape{a->cols}) {
    c.fail("an SpMV of a vector of another length than the matrix's columns");
    return out;
  }
  out.shape = {a->rows};
  std::vector<EV> terms;
  for (std::int64_t i = 0; i < a->rows && c.ok(); ++i) {
    terms.clear();
    for (std::int64_t k = a->indptr[i]; k < a->indptr[i + 1]; ++k)
      terms.push_back(binop(Op::Mul, DT::F64, EV{a->values[k], 0, 0}, x.v[a->indices[k]], c));
    out.v.push_back(sum_any_order(terms, c));
  }
  return out;
}

RArr matmul(const RArr& a, const RArr& b, Ctx& c) {
  RArr out;
  const std::size_t na = a.shape.size(), nb = b.shape.size();
  if (na < 1 || na > 2 || nb < 1 || nb > 2) {
    c.fail("matmul of operands that are not 1-D or 2-D");
    return out;
  }
  const std::int64_t k = a.shape.back();
  if (b.shape[0] != k) {
    c.fail("matmul of operands whose core dimensions differ");
    return out;
  }
  if (promote(a.t, b.t) != DT::F64) {
    c.fail("matmul with a result other than float64 (the fuzzer's products are float64)");
    return out;
  }
  for (const RArr* x : {&a, &b})
    for (const EV& v : x->v)
      if (is_f(x->t) && !std::isfinite(v.f)) {
        c.fail("matmul of a NaN or inf operand (BLAS need not propagate it)");
        return out;
      }
  const std::vector<EV> av = as_f64(a, c), bv = as_f64(b, c);
  const std::int64_t n = na == 2 ? a.shape[0] : 1, m = nb == 2 ? b.shape[1] : 1;
  if (na == 2) out.shape.push_back(n);
  if (nb == 2) out.shape.push_back(m);
  std::vector<EV> terms(static_cast<std::size_t>(k));
  for (std::int64_t i = 0; i < n && c.ok(); ++i)
    for (std::int64_t j = 0; j < m && c.ok(); ++j) {
      for (std::int64_t p = 0; p < k; ++p) terms[p] = binop(Op::Mul, DT::F64, av[i * k + p], bv[p * m + j], c);
      out.v.push_back(sum_any_order(terms, c));
    }
  return out;
}

}  // namespace

RArr product(const Expr& e, const std::vector<RArr>& kids, const Csr* csr, Ctx& c) {
  RArr out = e.op == Op::SpMV ? spmv(kids[0], csr, c) : matmul(kids[0], kids[1], c);
  out.t = DT::F64;
  return out;
}

}  // namespace fuzz
