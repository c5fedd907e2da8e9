#!/usr/bin/env bash
# Session 2026-12-04, call F: carrying values wherever rows are paired (TESSERA_EXPERIMENT_CARRY_ANY,
# an experiment knob of this binary only) against the two-thirds rule, on the workloads whose
# kernels the rule keeps from carrying.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
grab() { grep -o '"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
for w in "shallow_water --n 8190" "stencil --n 16384" "cg --n 8192" "black_scholes --n 134217728"; do
  for any in 0 1; do
    if [ $any = 1 ]; then export TESSERA_EXPERIMENT_CARRY_ANY=1; else unset TESSERA_EXPERIMENT_CARRY_ANY; fi
    mpirun -n 1 --bind-to none bin/tessera-bench $w --iters 3 --warmup 5 > /dev/null 2>&1 < /dev/null
  done
  for round in 1 2; do
    for any in 0 1; do
      if [ $any = 1 ]; then export TESSERA_EXPERIMENT_CARRY_ANY=1; else unset TESSERA_EXPERIMENT_CARRY_ANY; fi
      mpirun -n 1 --bind-to none bin/tessera-bench $w --iters 20 --warmup 5 --json > $OUT/r.txt 2>&1 < /dev/null
      echo "$w carry_any=$any round $round $(grab $OUT/r.txt)" >> $S
    done
  done
done
cat $S
