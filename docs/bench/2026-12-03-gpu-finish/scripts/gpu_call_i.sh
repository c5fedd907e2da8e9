#!/usr/bin/env bash
# Session 2026-12-03b, call I: the final code (finish kernel shared by full reductions too): the
# tests with the JIT at np 1 and 2, the fuzzer, the benchmarks; CG with its reducing kernels
# bounded to N blocks per SM (TESSERA_EXP_REDUCE_BLOCKS, an experiment switch of this build) or 2
# elements per thread.
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
K='"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"checksum": [-0-9.e+]*\|"check": "[a-z]*"'
bench() {  # tag, env assignments and command
  local tag=$1; shift
  env "$@" --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
  for run in 1 2; do
    env "$@" --json > $OUT/b-$tag-$run.txt 2>&1 < /dev/null
    echo "$tag run=$run $(grep -o "$K" $OUT/b-$tag-$run.txt | tr '\n' ' ')" >> $S
  done
}
bench center X=0 $B center --n 4096 --rows 32768 --iters 50
bench axis_sum X=0 $B axis_sum --n 4096 --rows 32768 --iters 50
bench logreg X=0 $B logreg --n 10000000 --iters 20
bench kmeans X=0 $B kmeans_assign --n 10000000 --iters 20
bench stencil X=0 $B stencil --n 16384 --iters 20
bench cg X=0 $B cg --n 8192 --iters 50
for rb in 3 4; do bench cg-rb$rb TESSERA_EXP_REDUCE_BLOCKS=$rb $B cg --n 8192 --iters 50; done
bench cg-e2 TESSERA_JIT_ELEMENTS=2 $B cg --n 8192 --iters 50
for app in logreg linreg; do
  bin/tessera-$app --n 4000000 --features 32 --iters 100 --warmup 2 > $OUT/app-$app.txt 2>&1 < /dev/null
  echo "app $app rc=$? $(grep -E 'time per|kernels per' $OUT/app-$app.txt | tr '\n' ' ')" >> $S
done
for t in test_axis_reductions test_sweeps test_reductions test_linalg test_epilogues test_fusion_programs test_nested_reductions; do
  for np in 1 2; do
    timeout 200 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/$t.np$np.txt | tr '\n' ' ') $(grep -h 'JIT:' $OUT/$t.np$np.txt | head -2)" >> $S
  done
done
TESSERA_FUZZ_PROGRAMS=12 timeout 200 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.np1.txt 2>&1 < /dev/null
echo "fuzz rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED|JIT:' $OUT/fuzz.np1.txt | tr '\n' ' ')" >> $S
cat $S
