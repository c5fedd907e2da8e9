#!/usr/bin/env bash
# Session 2026-12-07 (third), call C: tessera's generated 27-point marching kernels (h27: sources
# dumped from the uncommitted staging codegen, variants by experiment knobs and one hand edit)
# timed side by side at 512^3 as launch_march launches them, the hand-written s27 beside; ncu.
set -u
cd "$(dirname "$0")"
export PATH=/usr/local/cuda/bin:$PATH
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
timeout 120 ./h27/h27 512 > $OUT/h27.jsonl 2> $OUT/h27.err; echo "h27 rc=$? at $((SECONDS - T0)) s" >> $S
timeout 60 ./s27/s27 512 > $OUT/s27.jsonl 2> $OUT/s27.txt; echo "s27 rc=$? at $((SECONDS - T0)) s" >> $S
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  timeout 240 $NCU --kernel-name regex:'k_(none6|tiles6|vec6|tiles5)' --launch-count 4 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats ./h27/h27 512 > $OUT/ncu.txt 2>&1
  echo "ncu rc=$? at $((SECONDS - T0)) s" >> $S
else echo "no ncu" >> $S; fi
cat $S; cat $OUT/h27.jsonl; grep -E "march_smem_plain_tx64_ty8_ry1_b32_nb2|march_regs_ex2_b32|floor" $OUT/s27.txt
