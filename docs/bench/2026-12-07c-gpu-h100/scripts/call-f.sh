#!/usr/bin/env bash
# Session 2026-12-07 (third), call F: grids against resident blocks for reductions along a
# dimension (experiment-knobs.patch of docs/bench/2026-12-07-gpu-h100, binaries of 2d59862 + the
# patch): the column sums of A - mean(A, 0) (chunks: ALONG_WAVES x resident blocks, or 2^k threads;
# E; min blocks) and the generated matvec at 4 blocks per SM; one binary, JIT, warm cache, rounds.
set -u
cd "$(dirname "$0")"
tar xJf bins-f.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/cache-f TESSERA_JIT_WAIT=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
B=bin-f/tessera-bench
grab() { grep -o '"ms_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
J=("center --n 4096 --rows 32768|base:X=0 w2:TESSERA_EXPERIMENT_ALONG_WAVES=2 w4:TESSERA_EXPERIMENT_ALONG_WAVES=4 t19:TESSERA_EXPERIMENT_ALONG_THREADS=19 e4:TESSERA_EXPERIMENT_ALONG_E=4"
   "jacobi --n 16384|base:TESSERA_MATVEC=generated r4:TESSERA_MATVEC=generated,TESSERA_EXPERIMENT_ROW_MINBLOCKS=4"
   "axis_sum --n 4096 --rows 32768|base:X=0 r4:TESSERA_EXPERIMENT_ROW_MINBLOCKS=4")
run() { env $(echo "$1" | tr ',' ' ') timeout 60 mpirun -n 1 --bind-to none $B $2 --iters $3 --warmup ${4:-1} --json > $OUT/r.txt 2>&1 < /dev/null; }
for j in "${J[@]}"; do for v in ${j#*|}; do run "${v#*:}" "${j%%|*}" 2; done; done
echo "cache filled at $((SECONDS - T0)) s" >> $S
for round in 1 2; do
  for j in "${J[@]}"; do for v in ${j#*|}; do
    [ $((SECONDS - T0)) -gt 240 ] && break 3
    run "${v#*:}" "${j%%|*}" 20 5
    echo "${j%%|*} ${v%%:*} [r$round] rc=$? $(grab $OUT/r.txt)" >> $S
  done; done
  echo "  round $round at $((SECONDS - T0)) s" >> $S
done
# On an H200 (the card issue 20 names): the part-one workloads, committed kernels (no knob set).
if grep -q H200 $S; then
  for w in "black_scholes --n 134217728" "stencil --n 16384" "cg --n 8192" "stencil27 --n 510"; do
    [ $((SECONDS - T0)) -gt 330 ] && break
    run "X=0" "$w" 2
    run "X=0" "$w" 20 5
    echo "H200 $w rc=$? $(grab $OUT/r.txt)" >> $S
    grep '^{' $OUT/r.txt >> $OUT/h200.jsonl
  done
fi
rm -f $OUT/r.txt
cat $S
