#!/usr/bin/env bash
# Session 2026-12-03, call E: the committed sweep kernel (8 lanes, rows unrolled twice, row length
# and threads per row compiled in): logreg benchmark, regression apps, Nsight Compute on the
# sweep, and the tests with the JIT at np 1 and 2.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
for mv in auto blas; do
  export TESSERA_MATVEC=$mv
  mpirun -n 1 --bind-to none bin/tessera-bench logreg --n 10000000 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
  for run in 1 2; do
    mpirun -n 1 --bind-to none bin/tessera-bench logreg --n 10000000 --iters 20 --json > $OUT/logreg-$mv-$run.txt 2>&1 < /dev/null
    echo "bench logreg matvec=$mv run=$run $(grep -o '"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' $OUT/logreg-$mv-$run.txt | tr '\n' ' ')" >> $S
  done
  for app in logreg linreg; do
    for run in 1 2; do
      mpirun -n 1 --bind-to none bin/tessera-$app --n 4000000 --features 32 --iters 100 --warmup 2 > $OUT/app-$app-$mv-$run.txt 2>&1 < /dev/null
      echo "app $app matvec=$mv run=$run rc=$? $(grep -E 'time per|kernels per' $OUT/app-$app-$mv-$run.txt | tr '\n' ' ')" >> $S
    done
  done
  mpirun -n 1 --bind-to none bin/tessera-linreg --n 4000000 --features 32 --iters 100 --warmup 2 --check > $OUT/app-linreg-$mv-check.txt 2>&1 < /dev/null
  echo "app linreg --check matvec=$mv rc=$? $(grep -E 'time per|kernels per|check' $OUT/app-linreg-$mv-check.txt | tr '\n' ' ')" >> $S
done
unset TESSERA_MATVEC
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
timeout 150 $NCU --kernel-name tessera_fused --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
  bin/tessera-bench logreg --n 10000000 --iters 2 --warmup 1 > $OUT/ncu-sweep.txt 2>&1 < /dev/null
echo "ncu rc=$?" >> $S
grep -E "tessera_fused|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Reg|Issued Warp|Eligible Warps" $OUT/ncu-sweep.txt >> $S
for t in ${TESTS:-test_sweeps test_linalg test_axis_reductions test_epilogues test_reductions test_nested_reductions test_fusion_programs}; do
  for np in 1 2; do
    timeout 240 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/$t.np$np.txt | tr '\n' ' ') $(grep -h 'JIT:' $OUT/$t.np$np.txt | head -2)" >> $S
  done
done
TESSERA_FUZZ_PROGRAMS=${FUZZ:-12} timeout 240 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.np1.txt 2>&1 < /dev/null
echo "fuzz rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED|JIT:' $OUT/fuzz.np1.txt | tr '\n' ' ')" >> $S
cat $S
