#!/usr/bin/env bash
# Session 2026-12-03c, call B: why NVRTC took about 9x longer per kernel on the launching thread
# than on a pool worker in call A. t2: NVRTC alone, main thread against a worker thread, before and
# after CUDA is initialized. Then call A's binaries (a/: TESSERA_JIT_WAIT=1 compiles on the
# launching thread) with and without MALLOC_ARENA_MAX=1, and this call's (b/: every compile on a
# pool worker, TESSERA_JIT_WAIT=1 only waits), each cold, twice.
set -u
cd "$(dirname "$0")"
mkdir -p a b && tar xJf bins-a.tar.xz -C a && tar xJf bins-b.tar.xz -C b
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/b/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TESSERA_BACKEND=jit
S=$OUT/summary.txt
nvidia-smi -L > $S
(cd b/nv && ./t2 k0.cu k1.cu k2.cu k3.cu k4.cu) >> $S 2>&1
(cd b/nv && ./t2 k0.cu k1.cu k2.cu k3.cu k4.cu) >> $S 2>&1
K='"ms_per_iter": [0-9.]*\|"first_iter_ms": [0-9.a-z]*\|"compile_s": [0-9.]*\|"kernel_compiles": [0-9]*\|"check": "[a-z]*"'
now() { date +%s.%N; }
run() {  # tag, env assignments..., command (cold: an empty cache)
  local tag=$1; shift
  rm -rf /tmp/cache-x
  local t0=$(now)
  timeout 120 env TESSERA_CACHE_DIR=/tmp/cache-x "$@" > $OUT/$tag.txt 2>&1 < /dev/null
  local rc=$? t1=$(now)
  echo "$tag rc=$rc wall_s=$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") $(grep -o "$K" $OUT/$tag.txt | tr '\n' ' ') $(grep -E 'time per' $OUT/$tag.txt | tr '\n' ' ')" >> $S
}
SW="shallow_water --n 62 --iters 40 --warmup 1 --json"
for round in 1 2; do
  run a-wait-$round TESSERA_JIT_WAIT=1 mpirun -n 1 --bind-to none a/bin/tessera-bench $SW
  run a-wait-arena1-$round TESSERA_JIT_WAIT=1 MALLOC_ARENA_MAX=1 mpirun -x MALLOC_ARENA_MAX -n 1 --bind-to none a/bin/tessera-bench $SW
  run a-bg-$round mpirun -n 1 --bind-to none a/bin/tessera-bench $SW
  run a-bg-arena1-$round MALLOC_ARENA_MAX=1 mpirun -x MALLOC_ARENA_MAX -n 1 --bind-to none a/bin/tessera-bench $SW
  run b-wait-$round TESSERA_JIT_WAIT=1 mpirun -n 1 --bind-to none b/bin/tessera-bench $SW
  run b-bg-$round mpirun -n 1 --bind-to none b/bin/tessera-bench $SW
  run b-bg-t1-$round TESSERA_JIT_THREADS=1 mpirun -n 1 --bind-to none b/bin/tessera-bench $SW
  run a-wait-direct-$round TESSERA_JIT_WAIT=1 a/bin/tessera-bench $SW
done
for app in "tessera-shallow-water --n 64 --iters 40" "tessera-multigrid --n 257 --iters 5"; do
  for mode in "TESSERA_JIT_WAIT=1" "TESSERA_JIT_WAIT=0"; do
    tag="b-$(echo $app | cut -d' ' -f1)-$mode"
    run "$tag" $mode mpirun -n 1 --bind-to none b/bin/$app
  done
done
export TESSERA_CACHE_DIR=/tmp/tessera-tests
for t in test_compile_pool test_fusion_programs test_sweeps test_reductions; do
  for np in 1 2; do
    TESSERA_JIT_WAIT=1 timeout 200 mpirun -n $np --bind-to none --oversubscribe b/bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t wait=1 np$np rc=$? $(grep -E 'PASSED|FAILED|SKIPPED' $OUT/$t.np$np.txt | tr '\n' ' ')" >> $S
  done
done
TESSERA_JIT_WAIT=1 TESSERA_FUZZ_PROGRAMS=6 timeout 200 mpirun -n 1 --bind-to none b/bin/test_fuzz > $OUT/fuzz.txt 2>&1 < /dev/null
echo "fuzz wait=1 rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED' $OUT/fuzz.txt | tr '\n' ' ')" >> $S
cat $S
