#!/usr/bin/env bash
# Session 2026-12-07 (third), call I: the generated staged kernel without its refill (the band's
# first two planes through the staging path, stores from the third: vecnorefill6.cu: 16-byte tile loads, 32-bit tile indexing, no refill; hand edits of
# the generated source), next plane loaded at the top (norefilltop6) or after the plane's code
# (norefill6), beside the committed and the hand-written kernels, NVRTC, 16/31/63 bands; ncu.
set -u
cd "$(dirname "$0")/h27r"
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
timeout 150 ./h27r none6.cu hand6.cu vecnorefill6.cu > $OUT/h27r.jsonl 2>&1; echo "h27r rc=$?" >> $S
timeout 100 ncu --kernel-name tessera_fused --launch-skip 1 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section InstructionStats ./h27r vecnorefill6.cu > $OUT/ncu-vecnorefill6.txt 2>&1
echo "ncu rc=$?" >> $S
cat $S $OUT/h27r.jsonl | cut -c1-120
