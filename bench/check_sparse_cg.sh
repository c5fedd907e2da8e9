#!/usr/bin/env bash
# The bench_sparse_cg test: tessera-bench's sparse_cg at 1 and 2 ranks on an uneven grid passes its
# check, and its checksum (||r||^2 after the run) agrees with cg's on the same problem (cg --n c+2
# --rows r+2) and, where petsc-cg is given, with PETSc's KSPCG, to 1e-10 relative.
#   bash bench/check_sparse_cg.sh <tessera-bench> [<petsc-cg>]
# MPIEXEC overrides the mpirun found on PATH.
set -euo pipefail
bench=$1
petsc=${2:-}
mpiexec=${MPIEXEC:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cols=24 rows=17 iters=12
checksum() { python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); assert d["check"] == "ok", d; print(d["checksum"])'; }
want=$("$bench" cg --n $((cols + 2)) --rows $((rows + 2)) --iters $iters --json | checksum)
echo "cg: $want"
for ranks in 1 2; do
  runs=("$bench sparse_cg")
  [[ -n $petsc ]] && runs+=("$petsc")
  for run in "${runs[@]}"; do
    # shellcheck disable=SC2086
    got=$("$mpiexec" -n $ranks --oversubscribe $run --n $cols --rows $rows --iters $iters --json | checksum)
    echo "np $ranks $run: $got"
    python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= 1e-10 * abs(b) else 1)" \
      "$got" "$want" || { echo "checksum $got differs from cg's $want" >&2; exit 1; }
  done
done
