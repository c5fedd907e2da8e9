#!/usr/bin/env bash
# Session 2026-12-04, call E: the marching kernel compiled with __launch_bounds__(256, B) for
# B = 5, 6 (TESSERA_EXPERIMENT_MARCH_MINBLOCKS, an experiment knob of these binaries only) against
# the committed kernel (knob unset); ncu; correctness.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
T0=$SECONDS
B="mpirun -n 1 --bind-to none bin/tessera-bench stencil27 --n 510"
grab() { grep -o '"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
set_b() { if [ "$1" = 0 ]; then unset TESSERA_EXPERIMENT_MARCH_MINBLOCKS; else export TESSERA_EXPERIMENT_MARCH_MINBLOCKS=$1; fi; }
for b in 0 5 6; do set_b $b; $B --iters 3 --warmup 2 > /dev/null 2>&1 < /dev/null; done
for round in 1 2 3; do
  for b in 0 5 6; do
    set_b $b
    $B --iters 20 --json > $OUT/b$b.txt 2>&1 < /dev/null
    echo "stencil27 round $round min_blocks=$b $(grab $OUT/b$b.txt)" >> $S
  done
done
echo "benchmarks done at $((SECONDS - T0)) s" >> $S
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
for b in 5 6; do
  set_b $b
  timeout 150 $NCU --kernel-name tessera_fused --launch-skip 0 --launch-count 8 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats --section InstructionStats \
    bin/tessera-bench stencil27 --n 510 --iters 3 --warmup 2 > $OUT/ncu-b$b.txt 2>&1 < /dev/null
  echo "ncu min_blocks=$b rc=$?" >> $S
  python3 - $OUT/ncu-b$b.txt >> $S <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for part in re.split(r"\n(?=\s*tessera_fused \()", text):
    m = re.match(r"\s*tessera_fused \((\d+), (\d+), (\d+)\)x", part)
    if m and int(m[1]) * int(m[2]) * int(m[3]) > 1000:
        keep = r"Duration|DRAM Throughput|L1/TEX Hit|L2 Cache Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Instructions  |spill|Local"
        print(part.splitlines()[0].strip())
        print("\n".join(l for l in part.splitlines() if re.search(keep, l)))
        break
PY
done
for b in 5 6; do
  set_b $b
  for np in 1 2; do
    mpirun -n $np --bind-to none --oversubscribe bin/tessera-stencil27 --n 126 --iters 10 --warmup 2 --check > $OUT/app.txt 2>&1 < /dev/null
    echo "app stencil27 min_blocks=$b np$np rc=$? $(tail -1 $OUT/app.txt)" >> $S
    timeout 240 mpirun -n $np --bind-to none --oversubscribe bin/test_fusion_programs > $OUT/t.txt 2>&1 < /dev/null
    echo "test_fusion_programs min_blocks=$b np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/t.txt | tr '\n' ' ')" >> $S
  done
done
echo "end at $((SECONDS - T0)) s" >> $S
cat $S
