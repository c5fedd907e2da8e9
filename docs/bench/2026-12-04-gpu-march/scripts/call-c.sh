#!/usr/bin/env bash
# Session 2026-12-04, call C: the plane-marching kernel with E elements per thread along the row
# (TESSERA_EXPERIMENT_MARCH_ELEMENTS) and the grid's blocks (TESSERA_EXPERIMENT_MARCH_BLOCKS),
# experiment knobs of these binaries only; ncu of the best; the app's --check and
# test_fusion_programs at E = 1, 2, 4.
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
for e in 1 2 4; do TESSERA_EXPERIMENT_MARCH_ELEMENTS=$e $B --iters 3 --warmup 2 > /dev/null 2>&1 < /dev/null; done
for round in 1 2; do
  for e in 1 2 4; do
    for blocks in 8192 16384 32768; do
      TESSERA_EXPERIMENT_MARCH_ELEMENTS=$e TESSERA_EXPERIMENT_MARCH_BLOCKS=$blocks $B --iters 20 --json > $OUT/e$e-b$blocks.txt 2>&1 < /dev/null
      echo "stencil27 march round $round elements=$e blocks=$blocks $(grab $OUT/e$e-b$blocks.txt)" >> $S
    done
  done
done
for blocks in 16384 32768; do
  TESSERA_EXPERIMENT_MARCH_ELEMENTS=1 TESSERA_EXPERIMENT_MARCH_COLUMNS=64 TESSERA_EXPERIMENT_MARCH_BLOCKS=$blocks $B --iters 20 --json > $OUT/c64-b$blocks.txt 2>&1 < /dev/null
  echo "stencil27 march columns=64 elements=1 blocks=$blocks $(grab $OUT/c64-b$blocks.txt)" >> $S
done
echo "benchmarks done at $((SECONDS - T0)) s" >> $S
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
for e in 2 4; do
  TESSERA_EXPERIMENT_MARCH_ELEMENTS=$e TESSERA_EXPERIMENT_MARCH_BLOCKS=16384 timeout 150 $NCU --kernel-name tessera_fused --launch-skip 0 --launch-count 8 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats --section InstructionStats \
    bin/tessera-bench stencil27 --n 510 --iters 3 --warmup 2 > $OUT/ncu-e$e.txt 2>&1 < /dev/null
  echo "ncu elements=$e blocks=16384 rc=$?" >> $S
  python3 - $OUT/ncu-e$e.txt >> $S <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for part in re.split(r"\n(?=\s*tessera_fused \()", text):
    m = re.match(r"\s*tessera_fused \((\d+), (\d+), (\d+)\)x", part)
    if m and int(m[1]) * int(m[2]) * int(m[3]) > 1000:
        keep = r"Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Instructions  "
        print(part.splitlines()[0].strip())
        print("\n".join(l for l in part.splitlines() if re.search(keep, l)))
        break
PY
done
for e in 1 2 4; do
  export TESSERA_EXPERIMENT_MARCH_ELEMENTS=$e
  for np in 1 2; do
    mpirun -n $np --bind-to none --oversubscribe bin/tessera-stencil27 --n 126 --iters 10 --warmup 2 --check > $OUT/app-e$e-np$np.txt 2>&1 < /dev/null
    echo "app stencil27 elements=$e np$np rc=$? $(tail -2 $OUT/app-e$e-np$np.txt | tr '\n' ' ')" >> $S
    timeout 240 mpirun -n $np --bind-to none --oversubscribe bin/test_fusion_programs > $OUT/tfp-e$e-np$np.txt 2>&1 < /dev/null
    echo "test_fusion_programs elements=$e np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/tfp-e$e-np$np.txt | tr '\n' ' ')" >> $S
  done
done
echo "end at $((SECONDS - T0)) s" >> $S
cat $S
