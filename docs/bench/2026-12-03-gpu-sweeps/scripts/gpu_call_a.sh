#!/usr/bin/env bash
# Session 2026-12-03, call A: sweeps (issue 18). Tests with the JIT at np 1 and 2, the logreg
# benchmark and the regression apps with TESSERA_MATVEC=auto (sweep) and blas.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
for t in ${TESTS:-test_sweeps test_epilogues test_linalg}; do
  for np in 1 2; do
    timeout 240 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/$t.np$np.txt | tr '\n' ' ')" >> $S
    grep -h "JIT:" $OUT/$t.np$np.txt | head -3 >> $S
  done
done
if [ -n "${FUZZ:-1}" ]; then
  TESSERA_FUZZ_PROGRAMS=${FUZZ:-16} timeout 300 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.np1.txt 2>&1 < /dev/null
  echo "fuzz rc=$? $(grep -E '\[fuzz\]|PASSED|FAILED|JIT:' $OUT/fuzz.np1.txt | tr '\n' ' ')" >> $S
fi
for mv in ${MATVECS:-auto blas}; do
  export TESSERA_MATVEC=$mv
  mpirun -n 1 --bind-to none bin/tessera-bench logreg --n 10000000 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
  mpirun -n 1 --bind-to none bin/tessera-bench logreg --n 10000000 --iters 20 --json > $OUT/logreg-$mv.txt 2>&1 < /dev/null
  echo "## bench logreg matvec=$mv" >> $S; grep -v "^\s*$" $OUT/logreg-$mv.txt | tail -4 >> $S
  for app in logreg linreg; do
    for run in 1 2; do
      mpirun -n 1 --bind-to none bin/tessera-$app --n 4000000 --features 32 --iters 100 --warmup 2 --check > $OUT/app-$app-$mv-$run.txt 2>&1 < /dev/null
      echo "app $app matvec=$mv run=$run rc=$? $(tail -3 $OUT/app-$app-$mv-$run.txt | tr '\n' ' ')" >> $S
    done
  done
done
unset TESSERA_MATVEC
cat $S
