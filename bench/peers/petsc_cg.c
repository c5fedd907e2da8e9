// tessera-bench's sparse_cg workload (bench/workloads.hpp) in PETSc: KSPCG without a
// preconditioner (PCNONE) on the 2-D Poisson 5-point matrix of a rows x cols grid of unknowns in
// MPIAIJ form, b the interior of ts::random's grid with cg's seed, x0 = 0, exactly warmup + iters
// iterations (no convergence test), one KSPSolve. The timed part is the last `iters` iterations,
// timed by a monitor (PETSc calls it after each iteration; it only reads the clock), in 5 rounds
// as tessera-bench's. Prints tessera-bench's JSON keys (system "petsc") or a table row.
//
//   mpiexec -n 2 petsc-cg --n 1024 --iters 50 --json
//
// Each rank builds its rows (the balanced split tessera uses) and gives them to
// MatCreateMPIAIJWithArrays. The checksum is ||r||^2 by CG's recurrence after the run (KSP's
// natural norm: r.z, with z = r under PCNONE), as tessera's sparse_cg and cg report it. PETSc's
// own options (-log_view, ...) go in the PETSC_OPTIONS environment variable.

#include <math.h>
#include <petscksp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ts::random's generator (src/program/element_ops.hpp): element i of seed s.
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double uniform(uint64_t seed, uint64_t i) {
  const uint64_t h = mix(mix(seed + 0x9e3779b97f4a7c15ULL) ^ (i * 0x9e3779b97f4a7c15ULL + 1));
  return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

enum { kSeed = 9, kRounds = 5 };  // cg::kSeed; tessera-bench's rounds

typedef struct {
  PetscInt boundary[kRounds];  // the iteration that ends each round
  double at[kRounds + 1];      // the clock at the start (iteration `warmup`) and at each boundary
  PetscInt warmup, rounds;
  PetscReal last_norm;
  PetscInt last_it;
} Timer;

static PetscErrorCode monitor(KSP ksp, PetscInt it, PetscReal rnorm, void* ctx) {
  Timer* t = (Timer*)ctx;
  (void)ksp;
  if (it == t->warmup) t->at[0] = MPI_Wtime();
  for (PetscInt k = 0; k < t->rounds; ++k)
    if (it == t->boundary[k]) t->at[k + 1] = MPI_Wtime();
  t->last_norm = rnorm;
  t->last_it = it;
  return 0;
}

static void usage(const char* why) {
  fprintf(stderr, "petsc-cg: %s\nusage: petsc-cg [--n N] [--rows R] [--iters K] [--warmup W] [--json]\n", why);
  exit(2);
}

static long long integer(int argc, char** argv, int* i, int allow_zero) {
  if (*i + 1 >= argc) usage("missing value");
  char* end = NULL;
  const long long v = strtoll(argv[++*i], &end, 10);
  if (!*argv[*i] || *end || v < (allow_zero ? 0 : 1)) usage("bad value");
  return v;
}

static void number(char* out, size_t size, const char* fmt, double v) {
  if (isfinite(v))
    snprintf(out, size, fmt, v);
  else
    snprintf(out, size, "null");
}

int main(int argc, char** argv) {
  long long cols = 256, rows = 0, iters = 50, warmup = 3;
  int json = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--n"))
      cols = integer(argc, argv, &i, 0);
    else if (!strcmp(argv[i], "--rows"))
      rows = integer(argc, argv, &i, 0);
    else if (!strcmp(argv[i], "--iters"))
      iters = integer(argc, argv, &i, 0);
    else if (!strcmp(argv[i], "--warmup"))
      warmup = integer(argc, argv, &i, 1);
    else if (!strcmp(argv[i], "--json"))
      json = 1;
    else
      usage("unknown option");
  }
  if (rows == 0) rows = cols;
  if (rows < 3 || cols < 3) usage("the grid needs at least 3 x 3 unknowns");

  PetscCall(PetscInitialize(NULL, NULL, NULL, NULL));
  PetscMPIInt rank, size;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  const long long unknowns = rows * cols;
  if (unknowns > PETSC_MAX_INT / 5) usage("too large for 32-bit PetscInt");
  const PetscInt lo = (PetscInt)(unknowns / size * rank + (rank < unknowns % size ? rank : unknowns % size));
  const PetscInt local = (PetscInt)(unknowns / size + (rank < unknowns % size ? 1 : 0));

  // This rank's rows of the matrix, columns ascending (sparse_cg::poisson_rows).
  PetscInt *ptr, *col;
  PetscScalar* val;
  PetscCall(PetscMalloc3(local + 1, &ptr, 5 * (size_t)local, &col, 5 * (size_t)local, &val));
  PetscInt nz = 0;
  ptr[0] = 0;
  for (PetscInt k = lo; k < lo + local; ++k) {
    const PetscInt i = k / (PetscInt)cols, j = k % (PetscInt)cols;
#define ENTRY(c, v) (col[nz] = (c), val[nz] = (v), ++nz)
    if (i > 0) ENTRY(k - (PetscInt)cols, -1.0);
    if (j > 0) ENTRY(k - 1, -1.0);
    ENTRY(k, 4.0);
    if (j < cols - 1) ENTRY(k + 1, -1.0);
    if (i < rows - 1) ENTRY(k + (PetscInt)cols, -1.0);
#undef ENTRY
    ptr[k - lo + 1] = nz;
  }
  Mat A;
  PetscCall(MatCreateMPIAIJWithArrays(PETSC_COMM_WORLD, local, local, (PetscInt)unknowns, (PetscInt)unknowns, ptr, col,
                                      val, &A));
  PetscCall(PetscFree3(ptr, col, val));

  Vec b, x, w;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &w));
  PetscScalar* bs;
  PetscCall(VecGetArray(b, &bs));
  for (PetscInt k = lo; k < lo + local; ++k) {
    const long long i = k / cols, j = k % cols;
    bs[k - lo] = uniform(kSeed, (uint64_t)((i + 1) * (cols + 2) + j + 1));
  }
  PetscCall(VecRestoreArray(b, &bs));
  PetscReal rr0;
  PetscCall(VecNorm(b, NORM_2, &rr0));
  rr0 *= rr0;
  PetscCall(VecSet(x, 0.0));

  KSP ksp;
  PC pc;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NATURAL));  // ||r|| from CG's own r.z: no extra reduction
  PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, PETSC_DEFAULT, (PetscInt)(warmup + iters)));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  Timer t;
  memset(&t, 0, sizeof t);
  t.warmup = (PetscInt)warmup;
  t.rounds = iters < kRounds ? (PetscInt)iters : kRounds;
  for (PetscInt k = 0; k < t.rounds; ++k) t.boundary[k] = (PetscInt)(warmup + iters * (k + 1) / t.rounds);
  PetscCall(KSPMonitorSet(ksp, monitor, &t, NULL));
  PetscCall(KSPSetUp(ksp));
  MPI_Barrier(PETSC_COMM_WORLD);
  PetscCall(KSPSolve(ksp, b, x));
  PetscInt its;
  KSPConvergedReason reason;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));

  double total = t.at[t.rounds] - t.at[0], slowest_total = 0, round[kRounds], slowest[kRounds];
  for (PetscInt k = 0; k < t.rounds; ++k) round[k] = t.at[k + 1] - t.at[k];
  MPI_Allreduce(&total, &slowest_total, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  MPI_Allreduce(round, slowest, (int)t.rounds, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  const double ms_per_iter = 1e3 * slowest_total / (double)iters;
  double ms_min = INFINITY;
  for (PetscInt k = 0; k < t.rounds; ++k) {
    const PetscInt count = t.boundary[k] - (k ? t.boundary[k - 1] : t.warmup);
    const double ms = 1e3 * slowest[k] / (double)count;
    if (ms < ms_min) ms_min = ms;
  }

  // The check: CG's recurrence against b - A x recomputed, the energy below phi(0) = 0, and the
  // iteration count.
  const double rr = (double)t.last_norm * (double)t.last_norm;
  PetscReal rr_true, xb, xw;
  PetscCall(MatMult(A, x, w));
  PetscCall(VecAYPX(w, -1.0, b));  // w = b - A x
  PetscCall(VecNorm(w, NORM_2, &rr_true));
  rr_true *= rr_true;
  PetscCall(VecDot(x, b, &xb));
  PetscCall(VecDot(x, w, &xw));
  const double energy = -0.5 * (xb + xw);
  const double scale = rr0 > rr_true ? rr0 : rr_true;
  const double drift = fabs(rr - rr_true) / scale;
  char detail[512];
  snprintf(detail, sizeof detail,
           "||r||^2 %.6e -> %.6e after %d iterations, recomputed %.6e (rel. diff %.1e), energy %.6e; KSP reason %d",
           (double)rr0, rr, (int)its, (double)rr_true, drift, energy, (int)reason);
  const int ok = its == warmup + iters && t.last_it == its && isfinite(rr) && drift <= 1e-8 && energy < 0;

  // Entries of x each rank receives per MatMult: the columns of its off-diagonal block.
  Mat Ad, Ao;
  const PetscInt* colmap;
  PetscInt ghosts = 0;
  if (size > 1) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &colmap));
    PetscCall(MatGetSize(Ao, NULL, &ghosts));
  }
  double halo = 8.0 * (double)ghosts, halo_sum = 0;
  MPI_Allreduce(&halo, &halo_sum, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
  MatInfo info;
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  const double nnz = info.nz_used;
  // sparse_cg::min_bytes: 12 B per nonzero (value, int32 index), 4 + 80 B per row.
  const double min_bytes = 12.0 * nnz + 84.0 * (double)unknowns;

  if (rank == 0) {
    char ms[32], msmin[32], gbps[32], halo_s[32], checksum[40];
    number(ms, sizeof ms, "%.6f", ms_per_iter);
    number(msmin, sizeof msmin, "%.6f", ms_min);
    number(gbps, sizeof gbps, "%.3f", min_bytes / (ms_per_iter * 1e-3) / 1e9);
    number(halo_s, sizeof halo_s, "%.1f", halo_sum);
    number(checksum, sizeof checksum, "%.17g", rr);
    if (json) {
      printf(
          "{\"workload\": \"sparse_cg\", \"system\": \"petsc\", \"ranks\": %d, \"n\": %lld, \"rows\": %lld, "
          "\"iters\": %lld, \"warmup\": %lld, \"ms_per_iter\": %s, \"ms_per_iter_min\": %s, \"gbps\": %s, "
          "\"kernels_per_iter\": null, \"bytes_per_iter\": null, \"min_bytes_per_iter\": %.1f, "
          "\"halo_bytes_per_iter\": %s, \"allocs_per_iter\": null, \"us_per_op\": null, \"record_us_per_op\": null, "
          "\"plan_cache_hit_rate\": null, \"kernel_compiles\": 0, \"kernel_disk_hits\": 0, \"backend\": "
          "\"petsc\", \"backend_requested\": \"petsc\", \"checksum\": %s, \"check\": \"%s\", \"check_detail\": "
          "\"%s; %.0f nonzeros (int%d indices), PETSc %d.%d.%d\"}\n",
          (int)size, cols, rows, iters, warmup, ms, msmin, gbps, min_bytes, halo_s, checksum, ok ? "ok" : "FAILED",
          detail, nnz, (int)(8 * sizeof(PetscInt)), PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR);
    } else {
      printf("%-13s %-15s %-6s ranks %-2d n %-9lld rows %-6lld %10.4f ms/iter (min %.4f) %9.2f GB/s check %s\n",
             "sparse_cg", "petsc", "petsc", (int)size, cols, rows, ms_per_iter, ms_min,
             min_bytes / (ms_per_iter * 1e-3) / 1e9, ok ? "ok" : "FAILED");
      printf("  check: %s\n", detail);
    }
    if (!ok) fprintf(stderr, "petsc-cg: CHECK FAILED: %s\n", detail);
    fflush(stdout);
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return ok ? 0 : 1;
}
