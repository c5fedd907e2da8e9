#!/usr/bin/env bash
# Session 2026-12-03, call C: more sweep variants (TESSERA_SWEEP_LANES / _UNROLL, an experiment
# knob of these binaries), then Nsight Compute on the sweep kernel of the best two.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
for v in "8 2" "8 4" "16 1" "16 2" "4 4"; do
  set -- $v
  export TESSERA_SWEEP_LANES=$1 TESSERA_SWEEP_UNROLL=$2
  mpirun -n 1 --bind-to none bin/tessera-bench logreg --n 10000000 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
  mpirun -n 1 --bind-to none bin/tessera-bench logreg --n 10000000 --iters 20 --json > $OUT/logreg-l$1-u$2.txt 2>&1 < /dev/null
  echo "bench logreg lanes=$1 unroll=$2 $(grep -o '"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"check": "[a-z]*"' $OUT/logreg-l$1-u$2.txt | tr '\n' ' ')" >> $S
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
for v in "8 2" "16 2"; do
  set -- $v
  export TESSERA_SWEEP_LANES=$1 TESSERA_SWEEP_UNROLL=$2
  timeout 120 $NCU --kernel-name tessera_fused --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats \
    bin/tessera-bench logreg --n 10000000 --iters 2 --warmup 1 > $OUT/ncu-l$1-u$2.txt 2>&1 < /dev/null
  echo "ncu lanes=$1 unroll=$2 rc=$?" >> $S
  grep -E "Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Registers|Stall|Warp Cycles Per Issued|Local" $OUT/ncu-l$1-u$2.txt | head -24 >> $S
done
cat $S
