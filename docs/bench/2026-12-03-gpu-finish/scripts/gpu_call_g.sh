#!/usr/bin/env bash
# Session 2026-12-03b, call G: the finish kernel's lanes, alternating band directions
# (TESSERA_EXP_ALTERNATE=1, experiment switch) and the sweep's blocks per SM (TESSERA_EXP_SWEEP_BLOCKS).
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
bench() {  # tag, env..., -- workload args
  local tag=$1; shift
  env "$@" --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
  for run in 1 2; do
    env "$@" --json > $OUT/b-$tag-$run.txt 2>&1 < /dev/null
    echo "$tag run=$run $(grep -o "$K" $OUT/b-$tag-$run.txt | tr '\n' ' ')" >> $S
  done
}
for alt in 0 1; do
  bench axis_sum-alt$alt TESSERA_EXP_ALTERNATE=$alt $B axis_sum --n 4096 --rows 32768 --iters 50
  bench center-alt$alt TESSERA_EXP_ALTERNATE=$alt $B center --n 4096 --rows 32768 --iters 50
  bench stencil-alt$alt TESSERA_EXP_ALTERNATE=$alt $B stencil --n 16384 --iters 20
  bench cg-alt$alt TESSERA_EXP_ALTERNATE=$alt $B cg --n 8192 --iters 50
  bench logreg-alt$alt TESSERA_EXP_ALTERNATE=$alt $B logreg --n 10000000 --iters 20
done
for sb in 2 3 4; do
  bench logreg-sb$sb TESSERA_EXP_SWEEP_BLOCKS=$sb $B logreg --n 10000000 --iters 20
done
for app in logreg linreg; do
  bin/tessera-$app --n 4000000 --features 32 --iters 100 --warmup 2 > $OUT/app-$app.txt 2>&1 < /dev/null
  echo "app $app rc=$? $(grep -E 'time per|kernels per' $OUT/app-$app.txt | tr '\n' ' ')" >> $S
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
F='Duration|DRAM Throughput'
timeout 60 $NCU --launch-skip 3 --launch-count 5 --section SpeedOfLight $B center --n 4096 --rows 32768 --iters 2 --warmup 1 > $OUT/ncu-center.txt 2>&1 < /dev/null
echo "== ncu center rc=$?" >> $S; grep -E "^  [a-zA-Z_]+.*\(|$F" $OUT/ncu-center.txt | cut -c1-90 >> $S
timeout 60 $NCU --launch-skip 0 --launch-count 40 --section SpeedOfLight $B logreg --n 10000000 --iters 2 --warmup 1 > $OUT/ncu-logreg.txt 2>&1 < /dev/null
echo "== ncu logreg rc=$?" >> $S; grep -E "^  [a-zA-Z_]+.*\(|Duration" $OUT/ncu-logreg.txt | cut -c1-90 | tail -24 >> $S
for t in test_axis_reductions test_sweeps test_reductions test_linalg test_epilogues test_fusion_programs test_nested_reductions; do
  for np in 1 2; do
    TESSERA_EXP_ALTERNATE=1 timeout 200 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/$t.np$np.txt | tr '\n' ' ') $(grep -h 'JIT:' $OUT/$t.np$np.txt | head -2)" >> $S
  done
done
cat $S
