#!/usr/bin/env bash
# Session 2026-12-03c, call A: background compiles (jit/compile_pool.hpp). Cold starts (an empty
# kernel cache) with TESSERA_JIT_WAIT=1 (each kernel compiled at its first launch, on the launching
# thread: the behaviour before this change), the default (4 threads in the background) and 1
# thread; the same warm (cache filled) and interpreted. Then the steady state of three workloads,
# and the tests with the JIT at np 1 and 2, waiting (compiled code) and in the background.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TESSERA_BACKEND=jit
S=$OUT/summary.txt
nvidia-smi -L > $S
nproc >> $S
K='"ms_per_iter": [0-9.]*\|"allocs_per_iter": [0-9.]*\|"first_iter_ms": [0-9.a-z]*\|"compile_s": [0-9.]*\|"kernel_compiles": [0-9]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"'
now() { date +%s.%N; }
# tag mode command...: mode cold-wait | cold | cold-1 | warm | interp
run() {
  local tag=$1 mode=$2; shift 2
  local envs=(TESSERA_CACHE_DIR=/tmp/cache-$tag)
  case $mode in
    cold-wait) rm -rf /tmp/cache-$tag; envs+=(TESSERA_JIT_WAIT=1) ;;
    cold) rm -rf /tmp/cache-$tag ;;
    cold-1) rm -rf /tmp/cache-$tag; envs+=(TESSERA_JIT_THREADS=1) ;;
    warm) ;;
    interp) envs+=(TESSERA_BACKEND=interp) ;;
  esac
  local t0=$(now)
  timeout 120 env "${envs[@]}" "$@" > $OUT/$tag-$mode.txt 2>&1 < /dev/null
  local rc=$? t1=$(now)
  echo "$tag $mode rc=$rc wall_s=$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") $(grep -o "$K" $OUT/$tag-$mode.txt | tr '\n' ' ') $(grep -E 'time per|passed|FAILED' $OUT/$tag-$mode.txt | tr '\n' ' ')" >> $S
}
B="mpirun -n 1 --bind-to none bin/tessera-bench"
for mode in cold-wait cold cold-1 warm interp; do
  run bs $mode $B black_scholes --n 134217728 --iters 5 --warmup 1 --json
  run sw-bench $mode $B shallow_water --n 62 --iters 40 --warmup 1 --json
  run sw-app $mode mpirun -n 1 --bind-to none bin/tessera-shallow-water --n 64 --iters 40
  run cfd $mode mpirun -n 1 --bind-to none bin/tessera-cfd --n 41 --iters 20 --nit 50
  run mg $mode mpirun -n 1 --bind-to none bin/tessera-multigrid --n 257 --iters 5
done
run sw-app-np2 cold-wait mpirun -n 2 --bind-to none bin/tessera-shallow-water --n 64 --iters 40
run sw-app-np2 cold mpirun -n 2 --bind-to none bin/tessera-shallow-water --n 64 --iters 40
# Steady state, warm cache, default settings: against the figures of earlier calls.
run bs-steady cold $B black_scholes --n 134217728 --iters 20 --json
run bs-steady warm $B black_scholes --n 134217728 --iters 20 --json
run cg-steady cold $B cg --n 8192 --iters 50 --json
run stencil-steady cold $B stencil --n 16384 --iters 20 --json
run apps-sw warm mpirun -n 1 --bind-to none bin/tessera-shallow-water --n 512 --iters 50 --warmup 2 --check
export TESSERA_CACHE_DIR=/tmp/tessera-tests
tests() {  # wait, test...
  local wait=$1; shift
  for t in "$@"; do
    for np in 1 2; do
      TESSERA_JIT_WAIT=$wait timeout 200 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.w$wait.np$np.txt 2>&1 < /dev/null
      echo "$t wait=$wait np$np rc=$? $(grep -E 'PASSED|FAILED|SKIPPED' $OUT/$t.w$wait.np$np.txt | tr '\n' ' ') $(grep -h 'JIT:' $OUT/$t.w$wait.np$np.txt | head -2)" >> $S
    done
  done
}
tests 0 test_compile_pool test_fusion test_stencils test_broadcasting
tests 1 test_fusion_programs test_sweeps test_reductions
for wait in 0 1; do
  TESSERA_JIT_WAIT=$wait TESSERA_FUZZ_PROGRAMS=6 timeout 200 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.w$wait.txt 2>&1 < /dev/null
  echo "fuzz wait=$wait rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED|JIT:' $OUT/fuzz.w$wait.txt | tr '\n' ' ')" >> $S
done
cat $S
