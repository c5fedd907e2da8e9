#!/usr/bin/env bash
# Session 2026-12-03b, call H: finish-kernel lanes (TESSERA_EXP_FINISH_PER_LANE), chunks of column
# reductions (TESSERA_EXP_ALONG_THREADS, log2), elements per thread, the sweep at 2 blocks per SM
# (compiled in), the tests with the JIT at np 1 and 2, the fuzzer.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
B="bin/tessera-bench"
K='"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"'
bench() {  # tag, env assignments and command
  local tag=$1; shift
  env "$@" --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
  for run in 1 2; do
    env "$@" --json > $OUT/b-$tag-$run.txt 2>&1 < /dev/null
    echo "$tag run=$run $(grep -o "$K" $OUT/b-$tag-$run.txt | tr '\n' ' ')" >> $S
  done
}
C="$B center --n 4096 --rows 32768 --iters 50"
bench center X=0 $C
for v in 17 16; do bench center-along$v TESSERA_EXP_ALONG_THREADS=$v $C; done
for v in 2 8 16; do bench center-perlane$v TESSERA_EXP_FINISH_PER_LANE=$v $C; done
bench center-e4 TESSERA_JIT_ELEMENTS=4 $C
bench axis_sum X=0 $B axis_sum --n 4096 --rows 32768 --iters 50
bench logreg X=0 $B logreg --n 10000000 --iters 20
bench logreg-sb1 TESSERA_EXP_SWEEP_BLOCKS=1 $B logreg --n 10000000 --iters 20
bench kmeans X=0 $B kmeans_assign --n 10000000 --iters 20
for app in logreg linreg; do
  for run in 1 2; do
    bin/tessera-$app --n 4000000 --features 32 --iters 100 --warmup 2 > $OUT/app-$app-$run.txt 2>&1 < /dev/null
    echo "app $app run=$run rc=$? $(grep -E 'time per|kernels per' $OUT/app-$app-$run.txt | tr '\n' ' ')" >> $S
  done
done
bin/tessera-linreg --n 4000000 --features 32 --iters 100 --warmup 2 --check > $OUT/app-linreg-check.txt 2>&1 < /dev/null
echo "app linreg --check rc=$? $(grep -E 'time per|kernels per|check' $OUT/app-linreg-check.txt | tr '\n' ' ')" >> $S
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
F='Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Reg|Grid Size'
timeout 90 $NCU --kernel-name tessera_fused --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
  $B logreg --n 10000000 --iters 2 --warmup 1 > $OUT/ncu-sweep.txt 2>&1 < /dev/null
echo "== ncu sweep rc=$?" >> $S; grep -E "$F" $OUT/ncu-sweep.txt >> $S
timeout 90 $NCU --kernel-name tessera_finish --launch-skip 1 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  $B center --n 4096 --rows 32768 --iters 2 --warmup 1 > $OUT/ncu-finish.txt 2>&1 < /dev/null
echo "== ncu center finish rc=$?" >> $S; grep -E "$F|Stall|Warp Cycles" $OUT/ncu-finish.txt >> $S
for t in test_axis_reductions test_sweeps test_reductions test_linalg test_epilogues test_fusion_programs test_nested_reductions; do
  for np in 1 2; do
    timeout 200 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/$t.np$np.txt | tr '\n' ' ') $(grep -h 'JIT:' $OUT/$t.np$np.txt | head -2)" >> $S
  done
done
TESSERA_FUZZ_PROGRAMS=16 timeout 240 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.np1.txt 2>&1 < /dev/null
echo "fuzz rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED|JIT:' $OUT/fuzz.np1.txt | tr '\n' ' ')" >> $S
cat $S
