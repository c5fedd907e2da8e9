#!/usr/bin/env bash
# Session 2026-12-07 (third), call D: why the staged marching kernel is slower inside
# tessera-bench (call B: 1.28 ms against 0.925) than in h27 (call C: 0.875 against 0.893):
# the sources tessera generates (TESSERA_EXPERIMENT_DUMP), ncu of its launches, timings.
set -u
cd "$(dirname "$0")"
tar xJf bins-d.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/cache-d TESSERA_JIT_WAIT=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
B=bin-d/tessera-bench
grab() { grep -o '"ms_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
mkdir -p $OUT/src-tiles $OUT/src-none
TESSERA_EXPERIMENT_DUMP=$OUT/src-tiles timeout 60 $B stencil27 --n 510 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
TESSERA_EXPERIMENT_NO_TILES=1 TESSERA_EXPERIMENT_DUMP=$OUT/src-none timeout 60 $B stencil27 --n 510 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
V=("tiles6:X=0" "none:TESSERA_EXPERIMENT_NO_TILES=1" "rf5:TESSERA_EXPERIMENT_MARCH_MINBLOCKS=5,TESSERA_EXPERIMENT_REFILL_FIRST=1")
for v in "${V[@]:2}"; do env $(echo "${v#*:}" | tr ',' ' ') timeout 60 $B stencil27 --n 510 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null; done
for round in 1 2; do for v in "${V[@]}"; do
  env $(echo "${v#*:}" | tr ',' ' ') timeout 60 $B stencil27 --n 510 --iters 20 --warmup 5 --json > $OUT/r.txt 2>&1 < /dev/null
  echo "stencil27 512^3 ${v%%:*} [r$round] rc=$? $(grab $OUT/r.txt)" >> $S
done; done
for v in "${V[@]:0:2}"; do
  env $(echo "${v#*:}" | tr ',' ' ') timeout 150 ncu --kernel-name tessera_fused --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats $B stencil27 --n 510 --iters 3 --warmup 1 > $OUT/ncu-${v%%:*}.txt 2>&1 < /dev/null
  echo "ncu ${v%%:*} rc=$? at $((SECONDS - T0)) s" >> $S
done
ls $OUT/src-tiles $OUT/src-none >> $S
rm -f $OUT/r.txt
cat $S
