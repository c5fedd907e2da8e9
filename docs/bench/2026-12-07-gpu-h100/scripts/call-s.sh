#!/usr/bin/env bash
# Session 2026-12-07, call S: L2 prefetch experiment (TESSERA_EXPERIMENT_PREFETCH=D planes ahead in
# the marching kernel, _ROWS=D rows ahead in rows kernels, _ALL=1 every distinct row address, else the
# first), A/B in one binary (bin-s), JIT_WAIT, warm cache, two rounds; kernel split of `center`.
set -u
cd "$(dirname "$0")"
tar xJf bins-s.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1 TESSERA_CACHE_DIR=/tmp/cache-s TESSERA_JIT_WAIT=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
cd ..
B=.device/bin-s/tessera-bench
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
# workload|variants (name:env ...)
J=("stencil27 --n 510|base:X=0 p1:TESSERA_EXPERIMENT_PREFETCH=1 p2:TESSERA_EXPERIMENT_PREFETCH=2 p3:TESSERA_EXPERIMENT_PREFETCH=3 p2all:TESSERA_EXPERIMENT_PREFETCH=2,TESSERA_EXPERIMENT_PREFETCH_ALL=1"
   "stencil --n 16384|base:X=0 r3:TESSERA_EXPERIMENT_PREFETCH_ROWS=3 r4:TESSERA_EXPERIMENT_PREFETCH_ROWS=4 r6:TESSERA_EXPERIMENT_PREFETCH_ROWS=6 r10:TESSERA_EXPERIMENT_PREFETCH_ROWS=10"
   "center --n 4096 --rows 32768|base:X=0 c8:TESSERA_EXPERIMENT_PREFETCH_COLS=8 c16:TESSERA_EXPERIMENT_PREFETCH_COLS=16 c32:TESSERA_EXPERIMENT_PREFETCH_COLS=32 r4c16:TESSERA_EXPERIMENT_PREFETCH_ROWS=4,TESSERA_EXPERIMENT_PREFETCH_COLS=16 rev:TESSERA_EXPERIMENT_REVERSE=1 revc16:TESSERA_EXPERIMENT_REVERSE=1,TESSERA_EXPERIMENT_PREFETCH_COLS=16"
   "cg --n 8192|base:X=0 r4:TESSERA_EXPERIMENT_PREFETCH_ROWS=4 r8:TESSERA_EXPERIMENT_PREFETCH_ROWS=8"
   "shallow_water --n 8190|base:X=0 r4:TESSERA_EXPERIMENT_PREFETCH_ROWS=4 r8:TESSERA_EXPERIMENT_PREFETCH_ROWS=8")
run() {  # env-spec, workload args, iters
  env $(echo "$1" | tr ',' ' ') timeout 60 mpirun -n 1 --bind-to none $B $2 --iters $3 --warmup ${4:-1} --json > $OUT/r.txt 2>&1 < /dev/null
}
for j in "${J[@]}"; do for v in ${j#*|}; do run "${v#*:}" "${j%%|*}" 2; done; done
say "cache filled at $((SECONDS - T0)) s"
for round in 1 2; do
  for j in "${J[@]}"; do
    for v in ${j#*|}; do
      [ $((SECONDS - T0)) -gt 420 ] && break 3
      run "${v#*:}" "${j%%|*}" 20 5
      say "${j%%|*} ${v%%:*} [r$round] rc=$? $(grab $OUT/r.txt)"
    done
  done
  say "  round $round at $((SECONDS - T0)) s"
done
KOKKOS_TOOLS_LIBS=$PWD/.device/bin-s/libtessera_kernel_timer.so timeout 60 mpirun -n 1 --bind-to none $B center --n 4096 --rows 32768 --iters 20 --warmup 5 > $OUT/center-kernels.txt 2>&1 < /dev/null
say "center kernel timer rc=$?"
if [ $((SECONDS - T0)) -lt 480 ]; then
  for t in test_stencils test_fusion_programs; do
    TESSERA_EXPERIMENT_PREFETCH=2 TESSERA_EXPERIMENT_PREFETCH_ROWS=4 TESSERA_EXPERIMENT_PREFETCH_COLS=16 TESSERA_EXPERIMENT_REVERSE=1 timeout 60 mpirun -n 1 --bind-to none .device/bin-s/$t > $OUT/t.txt 2>&1 < /dev/null
    say "$t np1 prefetch rc=$? $(grep -aE '\[  PASSED  \]|\[  FAILED  \]' $OUT/t.txt | sort -u | tr '\n' ' ')"
    grep -a "FAILED \|Failure" $OUT/t.txt | head -4 >> $S
  done
  TESSERA_EXPERIMENT_PREFETCH=2 timeout 60 mpirun -n 1 --bind-to none .device/bin-s/tessera-stencil27 --n 126 --check > $OUT/t.txt 2>&1 < /dev/null
  say "stencil27 app check p2 rc=$? $(tail -2 $OUT/t.txt | tr '\n' ' ')"
fi
say "done at $((SECONDS - T0)) s"
rm -f $OUT/t.txt $OUT/r.txt
cat $S
