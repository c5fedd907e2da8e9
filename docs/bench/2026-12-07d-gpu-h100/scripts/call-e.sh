#!/usr/bin/env bash
# Session 2026-12-07 (fourth), call E: where the generated staged kernel (gen6) waits: Nsight Compute's per-instruction stall sampling (SourceCounters, the SASS page) of one launch, beside the hand-written kernel's (hand6).
set -u
cd "$(dirname "$0")/h27r"
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
for k in gen6 hand6; do
  timeout 120 ncu --kernel-name tessera_fused --launch-skip 1 --launch-count 1 --section SourceCounters --section WarpStateStats --page source --print-source sass --csv ./h27r $k.cu > $OUT/stalls-$k.csv 2>&1
  echo "ncu $k rc=$? $(wc -l < $OUT/stalls-$k.csv) lines" >> $S
done
cat $S; head -3 $OUT/stalls-gen6.csv | cut -c1-400
