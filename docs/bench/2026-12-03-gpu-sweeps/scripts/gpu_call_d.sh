#!/usr/bin/env bash
# Session 2026-12-03, call D: Nsight Compute on the logreg step's kernels (lanes 8, unroll 2).
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache TESSERA_SWEEP_LANES=8 TESSERA_SWEEP_UNROLL=2
S=$OUT/summary.txt
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
bin/tessera-bench logreg --n 10000000 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
timeout 200 $NCU --kernel-name tessera_fused --launch-skip 0 --launch-count 12 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
  bin/tessera-bench logreg --n 10000000 --iters 2 --warmup 1 > $OUT/ncu.txt 2>&1 < /dev/null
echo "ncu rc=$?" > $S
grep -E "tessera_fused|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Grid Size|Warp Cycles Per Issued|Stall|Issued Warp|Eligible" $OUT/ncu.txt >> $S
cat $S | head -150
