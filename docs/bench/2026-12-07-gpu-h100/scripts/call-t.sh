#!/usr/bin/env bash
# Session 2026-12-07, call T: the column-reduction kernel (mean(A, 0) of `center`) with experiment
# knobs (TESSERA_EXPERIMENT_ALONG_E elements per thread, _UNROLL of the row loop, _THREADS log2 of the
# threads the chunks aim for); sum(A, 1) and  against 3cda082 (bin-b).
set -u
cd "$(dirname "$0")"
tar xJf bins-s.tar.xz; tar xJf bins-hb.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1 TESSERA_CACHE_DIR=/tmp/cache-t TESSERA_JIT_WAIT=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
cd ..
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
V=("base:X=0" "e2:TESSERA_EXPERIMENT_ALONG_E=2" "e8:TESSERA_EXPERIMENT_ALONG_E=8" "u8:TESSERA_EXPERIMENT_ALONG_UNROLL=8"
   "t16:TESSERA_EXPERIMENT_ALONG_THREADS=16" "t17:TESSERA_EXPERIMENT_ALONG_THREADS=17" "t19:TESSERA_EXPERIMENT_ALONG_THREADS=19"
   "t20:TESSERA_EXPERIMENT_ALONG_THREADS=20" "w1:TESSERA_EXPERIMENT_ALONG_WAVES=1" "w2:TESSERA_EXPERIMENT_ALONG_WAVES=2"
   "e2w1:TESSERA_EXPERIMENT_ALONG_E=2,TESSERA_EXPERIMENT_ALONG_WAVES=1")
run() { env $(echo "$1" | tr ',' ' ') timeout 60 mpirun -n 1 --bind-to none $2 $3 --iters $4 --warmup ${5:-1} --json > $OUT/r.txt 2>&1 < /dev/null; }
C="center --n 4096 --rows 32768"
for v in "${V[@]}"; do run "${v#*:}" .device/bin-s/tessera-bench "$C" 2; done
for b in s b; do run X=0 .device/bin-$b/tessera-bench "axis_sum --n 4096 --rows 32768" 2; done
say "cache filled at $((SECONDS - T0)) s"
for round in 1 2; do
  for v in "${V[@]}"; do
    run "${v#*:}" .device/bin-s/tessera-bench "$C" 20 5
    say "center ${v%%:*} [r$round] rc=$? $(grab $OUT/r.txt)"
  done
  for b in s b s b; do
    run X=0 .device/bin-$b/tessera-bench "axis_sum --n 4096 --rows 32768" 20 5
    say "axis_sum bin-$b [r$round] rc=$? $(grab $OUT/r.txt)"
  done
  say "  round $round at $((SECONDS - T0)) s"
done
KOKKOS_TOOLS_LIBS=$PWD/.device/bin-s/libtessera_kernel_timer.so timeout 60 mpirun -n 1 --bind-to none .device/bin-s/tessera-bench $C --iters 20 --warmup 5 > $OUT/center-kernels.txt 2>&1 < /dev/null
TESSERA_EXPERIMENT_ALONG_WAVES=1 KOKKOS_TOOLS_LIBS=$PWD/.device/bin-s/libtessera_kernel_timer.so timeout 60 mpirun -n 1 --bind-to none .device/bin-s/tessera-bench $C --iters 20 --warmup 5 > $OUT/center-kernels-w1.txt 2>&1 < /dev/null
TESSERA_EXPERIMENT_ALONG_THREADS=16 KOKKOS_TOOLS_LIBS=$PWD/.device/bin-s/libtessera_kernel_timer.so timeout 60 mpirun -n 1 --bind-to none .device/bin-s/tessera-bench $C --iters 20 --warmup 5 > $OUT/center-kernels-t16.txt 2>&1 < /dev/null
say "done at $((SECONDS - T0)) s"
rm -f $OUT/r.txt $OUT/a.txt
cat $S
