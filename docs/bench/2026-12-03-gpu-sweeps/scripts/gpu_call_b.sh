#!/usr/bin/env bash
# Session 2026-12-03, call B: sweeps also for narrow column reductions; the sweep kernel's
# elements per thread (TESSERA_SWEEP_LANES) and row-loop unrolling (TESSERA_SWEEP_UNROLL), an
# experiment knob of these binaries only.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
for v in "4 1" "4 2" "8 1" "8 2"; do
  set -- $v
  export TESSERA_SWEEP_LANES=$1 TESSERA_SWEEP_UNROLL=$2
  mpirun -n 1 --bind-to none bin/tessera-bench logreg --n 10000000 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
  for run in 1 2; do
    mpirun -n 1 --bind-to none bin/tessera-bench logreg --n 10000000 --iters 20 --json > $OUT/logreg-l$1-u$2-$run.txt 2>&1 < /dev/null
    echo "bench logreg lanes=$1 unroll=$2 run=$run $(grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' $OUT/logreg-l$1-u$2-$run.txt | tr '\n' ' ')" >> $S
  done
  for app in logreg linreg; do
    mpirun -n 1 --bind-to none bin/tessera-$app --n 4000000 --features 32 --iters 100 --warmup 2 > $OUT/app-$app-l$1-u$2.txt 2>&1 < /dev/null
    echo "app $app lanes=$1 unroll=$2 rc=$? $(grep -E 'time per|kernels per' $OUT/app-$app-l$1-u$2.txt | tr '\n' ' ')" >> $S
  done
done
unset TESSERA_SWEEP_LANES TESSERA_SWEEP_UNROLL
for app in logreg linreg; do
  mpirun -n 1 --bind-to none bin/tessera-$app --n 4000000 --features 32 --iters 100 --warmup 2 --check > $OUT/app-$app-check.txt 2>&1 < /dev/null
  echo "app $app --check rc=$? $(grep -E 'time per|kernels per|check' $OUT/app-$app-check.txt | tr '\n' ' ')" >> $S
done
for t in ${TESTS:-test_sweeps test_linalg test_axis_reductions test_epilogues}; do
  for np in 1 2; do
    timeout 240 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/$t.np$np.txt | tr '\n' ' ') $(grep -h 'JIT:' $OUT/$t.np$np.txt | head -2)" >> $S
  done
done
TESSERA_FUZZ_PROGRAMS=${FUZZ:-12} timeout 240 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.np1.txt 2>&1 < /dev/null
echo "fuzz rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED|JIT:' $OUT/fuzz.np1.txt | tr '\n' ' ')" >> $S
cat $S
