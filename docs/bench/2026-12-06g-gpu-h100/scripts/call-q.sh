#!/usr/bin/env bash
# Session 2026-12-06 (seventh), call Q: call P's matvec again with every kernel compiled before its
# first launch (TESSERA_JIT_WAIT=1) and the kernel cache filled by a first run, so that no
# interpreted or compiling launch falls in a timed loop. bin-o as in call P.
set -u
cd "$(dirname "$0")"
tar xJf bins-o.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1 TESSERA_CACHE_DIR=/tmp/cache-q TESSERA_JIT_WAIT=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
cd ..
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"compile_s": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
B=.device/bin-o/tessera-bench
V=("blas:TESSERA_MATVEC=blas" "g1:TESSERA_MATVEC=generated TESSERA_EXPERIMENT_ROW_GROUP=1"
   "g4e2:TESSERA_MATVEC=generated" "g2e2:TESSERA_MATVEC=generated TESSERA_EXPERIMENT_ROW_GROUP=2")
for v in "${V[@]}"; do env ${v#*:} timeout 40 mpirun -n 1 --bind-to none $B jacobi --n 4096 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null; done
say "cache filled at $((SECONDS - T0)) s"
for round in 1 2; do
  [ $((SECONDS - T0)) -gt 110 ] && break
  for n in 16384 32768; do
    for v in "${V[@]}"; do
      env ${v#*:} timeout 40 mpirun -n 1 --bind-to none $B jacobi --n $n --iters 20 --warmup 3 --json > $OUT/r.txt 2>&1 < /dev/null
      say "jacobi $n ${v%%:*} [r$round] rc=$? $(grab $OUT/r.txt)"
    done
  done
  for v in "${V[@]:0:3}"; do
    env ${v#*:} timeout 40 mpirun -n 1 --bind-to none .device/bin-o/tessera-jacobi --n 16384 --iters 200 --warmup 2 > $OUT/a.txt 2>&1 < /dev/null
    say "app jacobi 16384 ${v%%:*} [r$round] rc=$? $(grep -E 'time per' $OUT/a.txt | tr '\n' ' ')"
  done
  say "  round $round at $((SECONDS - T0)) s"
done
if [ $((SECONDS - T0)) -lt 150 ]; then
  TESSERA_MATVEC=generated TESSERA_CACHE_DIR=/tmp/cache-t timeout 100 mpirun -n 1 --bind-to none .device/bin-o/test_axis_reductions > $OUT/t.txt 2>&1 < /dev/null
  say "test_axis_reductions np1 rc=$? $(grep -aE '\[  PASSED  \]|\[  FAILED  \]' $OUT/t.txt | sort -u | tr '\n' ' ')"
  grep -a "FAILED \|Failure" $OUT/t.txt | head -6 >> $S
fi
say "done at $((SECONDS - T0)) s"
rm -f $OUT/t.txt $OUT/r.txt $OUT/a.txt
cat $S
