#!/usr/bin/env bash
# Session 2026-12-07 (fourth), call D: ncu of one launch each of the generated staged kernel as committed (gen6) and the hand-written one (hand6), as NVRTC compiles them and h27r launches them (512^3), the sections of 2026-12-07c's call G.
set -u
cd "$(dirname "$0")/h27r"
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
for k in gen6 hand6; do
  timeout 120 ncu --kernel-name tessera_fused --launch-skip 1 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section InstructionStats --section SchedulerStats ./h27r $k.cu > $OUT/ncu-$k.txt 2>&1
  echo "ncu $k rc=$?" >> $S
done
cat $S; for k in gen6 hand6; do grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Executed Instructions  |Warp Cycles Per Issued|Achieved Occupancy|Issued Warp" $OUT/ncu-$k.txt; done
