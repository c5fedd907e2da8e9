#!/usr/bin/env bash
# Session 2026-12-03c, call C: the committed code (one NVRTC worker by default; every compile on
# the worker, TESSERA_JIT_WAIT=1 only waits for it). Cold starts with and without waiting, taken
# in turns after a warm-up run (the machine's first ~20 s are slow: calls A and B), and the tests
# with the JIT at np 1 and 2.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TESSERA_BACKEND=jit
S=$OUT/summary.txt
nvidia-smi -L > $S
K='"ms_per_iter": [0-9.]*\|"first_iter_ms": [0-9.a-z]*\|"compile_s": [0-9.]*\|"kernel_compiles": [0-9]*\|"allocs_per_iter": [0-9.]*\|"check": "[a-z]*"'
now() { date +%s.%N; }
run() {  # tag, env assignments..., command (cold: an empty cache)
  local tag=$1; shift
  rm -rf /tmp/cache-x
  local t0=$(now)
  timeout 120 env TESSERA_CACHE_DIR=/tmp/cache-x "$@" > $OUT/$tag.txt 2>&1 < /dev/null
  local rc=$? t1=$(now)
  echo "$tag rc=$rc wall_s=$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") $(grep -o "$K" $OUT/$tag.txt | tr '\n' ' ') $(grep -E 'time per|check' $OUT/$tag.txt | grep -v '"check"' | tr '\n' ' ')" >> $S
}
run warmup-machine mpirun -n 1 --bind-to none bin/tessera-multigrid --n 257 --iters 5
run warmup-machine-2 mpirun -n 1 --bind-to none bin/tessera-shallow-water --n 64 --iters 10
for round in 1 2; do
  for wait in 1 0; do
    run sw-app-w$wait-$round TESSERA_JIT_WAIT=$wait mpirun -n 1 --bind-to none bin/tessera-shallow-water --n 64 --iters 40
    run mg-w$wait-$round TESSERA_JIT_WAIT=$wait mpirun -n 1 --bind-to none bin/tessera-multigrid --n 257 --iters 5
    run cfd-w$wait-$round TESSERA_JIT_WAIT=$wait mpirun -n 1 --bind-to none bin/tessera-cfd --n 41 --iters 20 --nit 50
    run sw-bench-w$wait-$round TESSERA_JIT_WAIT=$wait mpirun -n 1 --bind-to none bin/tessera-bench shallow_water --n 62 --iters 40 --warmup 1 --json
    run bs-w$wait-$round TESSERA_JIT_WAIT=$wait mpirun -n 1 --bind-to none bin/tessera-bench black_scholes --n 134217728 --iters 5 --warmup 1 --json
  done
done
run sw-app-np2-w1 TESSERA_JIT_WAIT=1 mpirun -n 2 --bind-to none bin/tessera-shallow-water --n 64 --iters 40
run sw-app-np2-w0 TESSERA_JIT_WAIT=0 mpirun -n 2 --bind-to none bin/tessera-shallow-water --n 64 --iters 40
run cg-steady mpirun -n 1 --bind-to none bin/tessera-bench cg --n 8192 --iters 50 --json
export TESSERA_CACHE_DIR=/tmp/tessera-tests
tests() {  # wait, test...
  local wait=$1; shift
  for t in "$@"; do
    for np in 1 2; do
      TESSERA_JIT_WAIT=$wait timeout 200 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.w$wait.np$np.txt 2>&1 < /dev/null
      echo "$t wait=$wait np$np rc=$? $(grep -E 'PASSED|FAILED|SKIPPED' $OUT/$t.w$wait.np$np.txt | tr '\n' ' ')" >> $S
    done
  done
}
tests 0 test_compile_pool test_fusion test_stencils
tests 1 test_compile_pool test_fusion_programs test_sweeps
TESSERA_FUZZ_PROGRAMS=6 timeout 200 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.txt 2>&1 < /dev/null
echo "fuzz wait=0 rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED' $OUT/fuzz.txt | tr '\n' ' ')" >> $S
cat $S
