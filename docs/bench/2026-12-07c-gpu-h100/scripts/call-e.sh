#!/usr/bin/env bash
# Session 2026-12-07 (third), call E: the staged marching kernel's shapes compiled with NVRTC on
# the GPU machine (as tessera's JIT compiles them; nvcc's build of the same source did not spill,
# NVRTC's did: call D's ncu) and timed side by side at 512^3 (h27r).
set -u
cd "$(dirname "$0")/h27r"
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
timeout 200 ./h27r none6.cu tiles6.cu int6.cu two6.cu bottom6.cu bottom5.cu async6.cu async5.cu tiles5.cu > $OUT/h27r.jsonl 2>&1; echo "h27r rc=$?" >> $S
cat $S $OUT/h27r.jsonl
