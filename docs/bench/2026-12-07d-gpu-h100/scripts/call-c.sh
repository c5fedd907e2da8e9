#!/usr/bin/env bash
# Session 2026-12-07 (fourth), call C: the generated staged kernel (gen6, as committed in ab4fd9a) against edits of it, as NVRTC compiles them (h27r): at 5 blocks per SM (g5: 48 registers), its two stores through one pointer (gout, gout5), a 32-bit plane counter (gint); the kernel before staging (none6) and the hand-written one (hand6) beside. On an H200 also tessera-bench stencil27 (bin-s: staged, and TESSERA_EXPERIMENT_NO_TILES=1) and s27.cu's shapes.
set -u
cd "$(dirname "$0")"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.memory --format=csv,noheader > $S
T0=$SECONDS
export PATH=/usr/local/cuda/bin:$PATH
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
(cd h27r; timeout 90 ./h27r none6.cu hand6.cu gen6.cu g5.cu gout.cu gout5.cu gint.cu > $OUT/h27r.jsonl 2>&1; echo "h27r rc=$?" >> $S)
if grep -q H200 $S; then
  tar xJf bins-s.tar.xz
  export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/cache-c TESSERA_JIT_WAIT=1
  for v in "staged:X=0" "committed:TESSERA_EXPERIMENT_NO_TILES=1"; do env ${v#*:} timeout 60 mpirun -n 1 --bind-to none bin-s/tessera-bench stencil27 --n 510 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null; done
  for r in 1 2; do for v in "staged:X=0" "committed:TESSERA_EXPERIMENT_NO_TILES=1"; do
    env ${v#*:} timeout 60 mpirun -n 1 --bind-to none bin-s/tessera-bench stencil27 --n 510 --iters 20 --warmup 5 --json > $OUT/r.txt 2>&1 < /dev/null
    echo "stencil27 512^3 ${v%%:*} [r$r] rc=$? $(grep -o '"ms_per_iter": [0-9.]*' $OUT/r.txt)" >> $S; grep '^{' $OUT/r.txt >> $OUT/stencil27.jsonl
  done; done
  timeout 150 ./s27/s27 512 > $OUT/s27-512.jsonl 2> $OUT/s27-512.txt; echo "s27 512 rc=$?" >> $S
  rm -f $OUT/r.txt
fi
echo "done at $((SECONDS - T0)) s" >> $S
cat $S; cut -c1-100 $OUT/h27r.jsonl
