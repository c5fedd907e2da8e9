#!/usr/bin/env bash
# Session 2026-12-07 (third), call G: the hand-written staged 27-point kernel (s27.cu's best,
# ported to tessera's parameter block: h27r hand6.cu) compiled with NVRTC beside the committed
# kernel and the generated staged one without spills (bottom6.cu), 16/31/63 bands; ncu of each.
set -u
cd "$(dirname "$0")/h27r"
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
timeout 150 ./h27r none6.cu hand6.cu bottom6.cu > $OUT/h27r.jsonl 2>&1; echo "h27r rc=$?" >> $S
for k in none6 hand6 bottom6; do
  timeout 100 ncu --kernel-name tessera_fused --launch-skip 1 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section InstructionStats --section SchedulerStats ./h27r $k.cu > $OUT/ncu-$k.txt 2>&1
  echo "ncu $k rc=$?" >> $S
done
cat $S $OUT/h27r.jsonl | cut -c1-160
