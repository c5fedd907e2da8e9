#!/usr/bin/env bash
# Session 2026-12-03b, call F: baseline per-kernel profile of axis_sum, center and jacobi (existing binaries).
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
B="bin/tessera-bench"
for w in axis_sum center; do
  $B $w --n 4096 --rows 32768 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
  for run in 1 2; do
    $B $w --n 4096 --rows 32768 --iters 50 --json > $OUT/$w-$run.txt 2>&1 < /dev/null
    echo "bench $w run=$run $(grep -o '"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' $OUT/$w-$run.txt | tr '\n' ' ')" >> $S
  done
done
for mv in blas generated; do
  TESSERA_MATVEC=$mv $B jacobi --n 32768 --iters 10 --json > $OUT/jacobi-$mv.txt 2>&1 < /dev/null
  echo "bench jacobi $mv $(grep -o '"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' $OUT/jacobi-$mv.txt | tr '\n' ' ')" >> $S
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
M="--section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
F='Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Grid Size|Block Size|L2 Hit|L1/TEX Hit|Mem Busy|Max Bandwidth'
timeout 100 $NCU --launch-skip 3 --launch-count 10 $M $B center --n 4096 --rows 32768 --iters 2 --warmup 1 > $OUT/ncu-center.txt 2>&1 < /dev/null
echo "== ncu center rc=$?" >> $S; grep -E "^  [a-zA-Z_]+.*\(|$F" $OUT/ncu-center.txt >> $S
timeout 60 $NCU --kernel-name tessera_fused --launch-skip 2 --launch-count 1 $M $B axis_sum --n 4096 --rows 32768 --iters 2 --warmup 1 > $OUT/ncu-sum.txt 2>&1 < /dev/null
echo "== ncu axis_sum rc=$?" >> $S; grep -E "^  [a-zA-Z_]+.*\(|$F" $OUT/ncu-sum.txt >> $S
timeout 100 $NCU --kernel-name regex:gemv --launch-skip 1 --launch-count 1 $M env TESSERA_MATVEC=blas $B jacobi --n 32768 --iters 2 --warmup 1 > $OUT/ncu-gemv.txt 2>&1 < /dev/null
echo "== ncu gemv rc=$?" >> $S; grep -E "^  [a-zA-Z_]+.*\(|$F" $OUT/ncu-gemv.txt >> $S
cat $S
