#!/usr/bin/env bash
# Session 2026-12-06 (seventh), call P (call O cut to fit the device time left). bin-o: HEAD 0b79df4
# + row groups (a row reduction with an operand that is the same in every row folds G rows per
# segment; knobs TESSERA_EXPERIMENT_ROW_GROUP / _ELEMENTS) + an experiment knob that keeps such
# operands of elementwise kernels in registers through a band of rows (TESSERA_EXPERIMENT_CARRY_INVARIANT).
set -u
cd "$(dirname "$0")"
tar xJf bins-o.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1 TESSERA_CACHE_DIR=/tmp/cache-p
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
cd ..
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
B=.device/bin-o/tessera-bench
V=("blas:TESSERA_MATVEC=blas" "g1:TESSERA_MATVEC=generated TESSERA_EXPERIMENT_ROW_GROUP=1"
   "g4e2:TESSERA_MATVEC=generated" "g2e2:TESSERA_MATVEC=generated TESSERA_EXPERIMENT_ROW_GROUP=2"
   "g4e1:TESSERA_MATVEC=generated TESSERA_EXPERIMENT_ROW_GROUP_ELEMENTS=1")
for round in 1 2; do
  for n in 32768 16384; do
    for v in "${V[@]}"; do
      [ $n = 16384 ] && [ "${v%%:*}" != blas ] && [ "${v%%:*}" != g4e2 ] && continue
      env ${v#*:} timeout 40 mpirun -n 1 --bind-to none $B jacobi --n $n --iters 20 --warmup 3 --json > $OUT/r.txt 2>&1 < /dev/null
      say "jacobi $n ${v%%:*} [r$round] rc=$? $(grab $OUT/r.txt)"
    done
  done
  for v in "off:TESSERA_EXPERIMENT_NONE=1" "carry:TESSERA_EXPERIMENT_CARRY_INVARIANT=1"; do
    env ${v#*:} timeout 40 mpirun -n 1 --bind-to none $B center --n 4096 --rows 32768 --iters 20 --warmup 3 --json > $OUT/r.txt 2>&1 < /dev/null
    say "center ${v%%:*} [r$round] rc=$? $(grab $OUT/r.txt)"
  done
  say "  round $round at $((SECONDS - T0)) s"
done
for v in "blas:TESSERA_MATVEC=blas" "g4e2:TESSERA_MATVEC=generated"; do
  [ $((SECONDS - T0)) -gt 200 ] && break
  env ${v#*:} timeout 40 mpirun -n 1 --bind-to none .device/bin-o/tessera-jacobi --n 16384 --iters 200 --warmup 2 --check > $OUT/a.txt 2>&1 < /dev/null
  say "app jacobi ${v%%:*} rc=$? $(grep -E 'time per|kernels per|^check|residual' $OUT/a.txt | tr '\n' ' ')"
done
run_test() {  # np test [env...]
  local np=$1 t=$2; shift 2
  [ $((SECONDS - T0)) -gt 270 ] && { say "cut before $t np$np"; return; }
  env "$@" TESSERA_JIT_WAIT=1 TESSERA_CACHE_DIR=/tmp/cache-t timeout 40 mpirun -n $np --oversubscribe --bind-to none .device/bin-o/$t > $OUT/t.txt 2>&1 < /dev/null
  say "$t np$np $* rc=$? $(grep -aE '\[  PASSED  \]|\[  FAILED  \]' $OUT/t.txt | sort -u | tr '\n' ' ')"
  grep -a "FAILED \|Failure" $OUT/t.txt | head -6 >> $S
}
run_test 1 test_linalg TESSERA_MATVEC=generated
run_test 2 test_linalg TESSERA_MATVEC=generated
run_test 1 test_epilogues TESSERA_MATVEC=generated
run_test 1 test_axis_reductions TESSERA_MATVEC=generated
run_test 2 test_epilogues TESSERA_MATVEC=generated
run_test 1 test_fusion_programs TESSERA_EXPERIMENT_CARRY_INVARIANT=1
run_test 1 test_batching TESSERA_MATVEC=auto
run_test 2 test_batching TESSERA_MATVEC=auto
say "done at $((SECONDS - T0)) s"
rm -f $OUT/t.txt $OUT/r.txt $OUT/a.txt
cat $S
