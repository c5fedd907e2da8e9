#!/usr/bin/env bash
# Session 2026-12-04, call A: plane marching for the 27-point stencil (issue 17). Rows (the
# committed kernel, TESSERA_EXPERIMENT_NO_MARCH=1) against marching, over three rounds; the marching
# grid's blocks (TESSERA_EXPERIMENT_MARCH_BLOCKS) and tile width (TESSERA_EXPERIMENT_MARCH_COLUMNS),
# experiment knobs of these binaries only; Nsight Compute on both kernels; the app's --check; the
# tests with the JIT at np 1 and 2.
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
grab() { grep -o '"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
$B --iters 5 --warmup 2 > /dev/null 2>&1 < /dev/null
TESSERA_EXPERIMENT_NO_MARCH=1 $B --iters 5 --warmup 2 > /dev/null 2>&1 < /dev/null
for round in 1 2 3; do
  TESSERA_EXPERIMENT_NO_MARCH=1 $B --iters 20 --json > $OUT/rows-$round.txt 2>&1 < /dev/null
  echo "stencil27 rows  round $round $(grab $OUT/rows-$round.txt)" >> $S
  $B --iters 20 --json > $OUT/march-$round.txt 2>&1 < /dev/null
  echo "stencil27 march round $round $(grab $OUT/march-$round.txt)" >> $S
done
for blocks in 2048 4096 16384 32768; do
  TESSERA_EXPERIMENT_MARCH_BLOCKS=$blocks $B --iters 20 --json > $OUT/blocks-$blocks.txt 2>&1 < /dev/null
  echo "stencil27 march blocks=$blocks $(grab $OUT/blocks-$blocks.txt)" >> $S
done
for cols in 16 64 128; do
  TESSERA_EXPERIMENT_MARCH_COLUMNS=$cols $B --iters 20 --json > $OUT/cols-$cols.txt 2>&1 < /dev/null
  echo "stencil27 march columns=$cols $(grab $OUT/cols-$cols.txt)" >> $S
done
echo "sweeps done at $((SECONDS - T0)) s" >> $S
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
for v in march rows; do
  [ $v = rows ] && export TESSERA_EXPERIMENT_NO_MARCH=1
  timeout 120 $NCU --kernel-name tessera_fused --launch-skip 4 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats \
    bin/tessera-bench stencil27 --n 510 --iters 3 --warmup 2 > $OUT/ncu-$v.txt 2>&1 < /dev/null
  echo "ncu $v rc=$?" >> $S
  grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Registers Per|Achieved Occupancy|Grid Size|Warp Cycles Per Issued" $OUT/ncu-$v.txt | head -16 >> $S
done
unset TESSERA_EXPERIMENT_NO_MARCH
for np in 1 2; do
  mpirun -n $np --bind-to none --oversubscribe bin/tessera-stencil27 --n 126 --iters 10 --warmup 2 --check > $OUT/app-np$np.txt 2>&1 < /dev/null
  echo "app stencil27 np$np rc=$? $(tail -4 $OUT/app-np$np.txt | tr '\n' ' ')" >> $S
done
for t in test_fusion_programs test_stencils test_views test_fusion; do
  for np in 1 2; do
    timeout 240 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/$t.np$np.txt | tr '\n' ' ')" >> $S
  done
done
TESSERA_FUZZ_PROGRAMS=12 timeout 200 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.np1.txt 2>&1 < /dev/null
echo "fuzz rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED' $OUT/fuzz.np1.txt | tr '\n' ' ')" >> $S
echo "end at $((SECONDS - T0)) s" >> $S
cat $S
