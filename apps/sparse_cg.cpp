// Conjugate gradients and BiCGSTAB on CSR matrices (ts::CsrMatrix, SpMV by ts::matmul), on two
// systems: the 2-D Poisson matrix (5-point, 4 on the diagonal, -1 off it) of an n x n grid, which
// each rank builds for its own block of rows (ts::csr_from_rows), and a matrix read from a Matrix
// Market file (--matrix PATH; coordinate real, general or symmetric), of which each rank reads
// only its own rows. Both solvers run --iters iterations from x = 0 with b[i] = 1 + sin(0.1 i).
//
//   mpirun -n 4 ./tessera-sparse-cg --n 512 --iters 200 [--matrix apps/data/diffusion.mtx] [--warmup 2] [--check]
//
// Prints, per system and solver, the relative residual |r| / |b| of the recurrence and the
// 2-norm of x, and the time per iteration of the Poisson system's CG. --check fails unless the
// recurrence's residual agrees with b - A x computed anew (to 1e-10 of |b|), and the Poisson
// matrix built whole on every rank (ts::csr_from_host) gives the same products as the one built by
// rows. The SciPy twin is sparse_cg.py.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

namespace {

struct Rows {  // a block of CSR rows: local indptr from 0, global column indices
  std::int64_t first = 0;
  std::vector<std::int64_t> indptr{0}, indices;
  std::vector<double> values;
};

// Rows [first, last) of the Poisson matrix of an n x n grid, row i * n + j for point (i, j).
Rows poisson_rows(std::int64_t n, std::int64_t first, std::int64_t last) {
  Rows r;
  r.first = first;
  for (std::int64_t row = first; row < last; ++row) {
    const std::int64_t i = row / n, j = row % n;
    auto add = [&](std::int64_t col, double v) {
      r.indices.push_back(col);
      r.values.push_back(v);
    };
    if (i > 0) add(row - n, -1.0);
    if (j > 0) add(row - 1, -1.0);
    add(row, 4.0);
    if (j < n - 1) add(row + 1, -1.0);
    if (i < n - 1) add(row + n, -1.0);
    r.indptr.push_back(static_cast<std::int64_t>(r.indices.size()));
  }
  return r;
}

// This rank's rows [rows * rank / size, rows * (rank + 1) / size) of a Matrix Market file. Every
// rank reads the file and keeps its own entries (and, for a symmetric file, the mirror images of
// the others). Throws std::runtime_error on a malformed file: every rank reads the same bytes, so
// every rank throws alike.
ts::CsrMatrix<double> read_matrix_market(const std::string& path, int rank, int size) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) throw std::runtime_error("cannot read " + path);
  std::istringstream banner(line);
  std::string word, object, format, field, symmetry;
  banner >> word >> object >> format >> field >> symmetry;
  if (word != "%%MatrixMarket" || object != "matrix" || format != "coordinate" || field != "real" ||
      (symmetry != "general" && symmetry != "symmetric"))
    throw std::runtime_error(path + ": not a coordinate real general or symmetric Matrix Market file");
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
  }
  std::int64_t rows = 0, cols = 0, nnz = 0;
  if (!(std::istringstream(line) >> rows >> cols >> nnz)) throw std::runtime_error(path + ": bad size line");
  const std::int64_t lo = rows * rank / size, hi = rows * (rank + 1) / size;
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> mine;
  for (std::int64_t k = 0; k < nnz; ++k) {
    std::int64_t i, j;
    double v;
    if (!(in >> i >> j >> v)) throw std::runtime_error(path + ": fewer entries than its size line says");
    --i, --j;  // 1-based in the file
    if (i >= lo && i < hi) mine.emplace_back(i, j, v);
    if (symmetry == "symmetric" && i != j && j >= lo && j < hi) mine.emplace_back(j, i, v);
  }
  std::sort(mine.begin(), mine.end());
  Rows r;
  r.first = lo;
  std::size_t k = 0;
  for (std::int64_t row = lo; row < hi; ++row) {
    for (; k < mine.size() && std::get<0>(mine[k]) == row; ++k) {
      r.indices.push_back(std::get<1>(mine[k]));
      r.values.push_back(std::get<2>(mine[k]));
    }
    r.indptr.push_back(static_cast<std::int64_t>(r.indices.size()));
  }
  return ts::csr_from_rows<double>({rows, cols}, r.first, r.indptr, r.indices, r.values);
}

struct Solution {
  ts::Array<double> x, r;  // the iterate and the residual of the recurrence
};

Solution cg(const ts::CsrMatrix<double>& A, const ts::Array<double>& b, std::int64_t iters) {
  auto x = ts::zeros_like(b), r = ts::copy(b), p = ts::copy(b);
  auto rr = ts::vdot(r, r);
  for (std::int64_t it = 0; it < iters; ++it) {
    auto q = ts::matmul(A, p);
    auto alpha = rr / ts::dot(p, q);
    x += alpha * p;
    r -= alpha * q;
    auto rr_next = ts::vdot(r, r);
    p = r + (rr_next / rr) * p;
    rr = rr_next;
  }
  return {x, r};
}

// Unpreconditioned BiCGSTAB (van der Vorst), with the shadow residual r_hat = b, written so that
// the first direction is r itself (tessera makes 0-d arrays only by reductions, so there is no
// rho = alpha = omega = 1 to start from as in the textbook).
Solution bicgstab(const ts::CsrMatrix<double>& A, const ts::Array<double>& b, std::int64_t iters) {
  auto x = ts::zeros_like(b), r = ts::copy(b), r_hat = ts::copy(b), p = ts::copy(b);
  auto rho = ts::vdot(r_hat, r);
  for (std::int64_t it = 0; it < iters; ++it) {
    auto v = ts::matmul(A, p);
    auto alpha = rho / ts::vdot(r_hat, v);
    auto s = r - alpha * v;
    auto t = ts::matmul(A, s);
    auto omega = ts::vdot(t, s) / ts::vdot(t, t);
    x += alpha * p + omega * s;
    r = s - omega * t;
    auto rho_next = ts::vdot(r_hat, r);
    p = r + ((rho_next / rho) * (alpha / omega)) * (p - omega * v);
    rho = rho_next;
  }
  return {x, r};
}

// Removes `--name PATH` or `--name=PATH` from the arguments and returns PATH ("" if absent).
std::string take_path(std::vector<char*>& words, const std::string& name) {
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string w = words[i];
    if (w == name && i + 1 < words.size()) {
      std::string value = words[i + 1];
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(i), words.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      return value;
    }
    if (w.rfind(name + "=", 0) == 0) {
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
      return w.substr(name.size() + 1);
    }
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  std::vector<char*> words(argv, argv + argc);
  const std::string matrix_path = take_path(words, "--matrix");
  ExampleArgs args("tessera-sparse-cg", static_cast<int>(words.size()), words.data());
  const std::int64_t n = args.integer("--n", 512, 1);
  const std::int64_t iters = args.integer("--iters", 200, 0);
  const std::int64_t warmup = args.integer("--warmup", 0, 0);
  const bool check = args.flag("--check");
  if (!args.ok()) {
    if (rt.rank() == 0) {
      args.report();
      std::fprintf(stderr, "       [--matrix PATH]\n");
    }
    return args.help() ? 0 : 2;
  }

  // The Poisson matrix by rows; the blocks are uneven on purpose (rank r from n^2 r^2 / size^2):
  // csr_from_rows moves rows to their balanced tiles.
  const std::int64_t N = n * n, size = rt.size(), rank = rt.rank();
  const Rows mine = poisson_rows(n, N * rank * rank / (size * size), N * (rank + 1) * (rank + 1) / (size * size));
  std::vector<std::pair<std::string, ts::CsrMatrix<double>>> systems{
      {"poisson", ts::csr_from_rows<double>({N, N}, mine.first, mine.indptr, mine.indices, mine.values)}};
  if (!matrix_path.empty()) {
    try {
      systems.emplace_back("mtx", read_matrix_market(matrix_path, rt.rank(), rt.size()));
    } catch (const std::exception& e) {  // thrown on every rank alike
      if (rt.rank() == 0) std::fprintf(stderr, "tessera-sparse-cg: %s\n", e.what());
      return 1;
    }
  }

  bool ok = true;
  double cg_ms = 0;  // the Poisson system's CG, timed from the solver's start to its last residual
  if (rt.rank() == 0)
    std::printf("sparse-cg: n=%lld iters=%lld ranks=%d\n", static_cast<long long>(n), static_cast<long long>(iters),
                rt.size());
  for (const auto& [name, A] : systems) {
    const std::int64_t rows = A.shape()[0];
    auto b = 1.0 + ts::sin(0.1 * ts::arange<double>(rows));
    const double b_norm = ts::norm(b).item();
    for (const auto& [solver, solve] : {std::pair{"cg", &cg}, std::pair{"bicgstab", &bicgstab}}) {
      // Untimed (kernels loaded, memory pool grown), from x = 0 as the timed solve.
      if (warmup > 0) ts::norm(solve(A, b, std::min(warmup, iters)).r).item();
      rt.flush();
      LoopCounts loop;
      loop.start(rt);
      const auto start = std::chrono::steady_clock::now();
      const Solution s = solve(A, b, iters);
      const double residual = ts::norm(s.r).item() / b_norm;  // waits for the solve
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      loop.stop(rt);
      const double x_norm = ts::norm(s.x).item();
      if (name == "poisson" && std::string(solver) == "cg") cg_ms = ms;
      if (check) {
        const double gap = ts::norm(b - ts::matmul(A, s.x) - s.r).item() / b_norm;
        if (!(gap <= 1e-10)) {
          ok = false;
          if (rt.rank() == 0)
            std::printf("check FAILED: %s %s: |b - A x - r| / |b| = %.3g\n", name.c_str(), solver, gap);
        }
      }
      if (rt.rank() == 0) {
        std::printf("%s_%s_residual %.17g\n", name.c_str(), solver, residual);
        std::printf("%s_%s_x_norm %.17g\n", name.c_str(), solver, x_norm);
        loop.print(iters, (name + " " + solver + " iteration").c_str());
      }
    }
  }
  if (rt.rank() == 0)
    std::printf("time per iteration %.3f ms\n", iters > 0 ? cg_ms / static_cast<double>(iters) : 0.0);  // Poisson, CG
  if (check) {  // the whole Poisson matrix on every rank, as csr_from_host takes it
    const Rows whole = poisson_rows(n, 0, N);
    const auto H = ts::csr_from_host<double>({N, N}, whole.indptr, whole.indices, whole.values);
    auto x = ts::cos(0.3 * ts::arange<double>(N));
    const double gap = ts::norm(ts::matmul(H, x) - ts::matmul(systems[0].second, x)).item();
    ok = ok && gap <= 1e-14 && H.nnz() == systems[0].second.nnz();
    if (rt.rank() == 0)
      std::printf("check %s: residuals recomputed; csr_from_host and csr_from_rows products differ by %.3g\n",
                  ok ? "passed" : "FAILED", gap);
  }
  return ok ? 0 : 1;
}
