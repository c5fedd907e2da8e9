#!/usr/bin/env bash
# Session 2026-12-06 (fifth), call D: row reductions of a float64 matrix (sum(A, 1), A @ x) in
# several kernel shapes beside cuBLAS's GEMV, torch and a plain streaming read (rows/rows.cu,
# rows/peers.py), then call C (batching) when time is left.
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $OUT/rows.txt
timeout 150 ./rows/rows >> $OUT/rows.txt 2>&1; echo "rows rc=$? at $((SECONDS - T0)) s" >> $OUT/rows.txt
timeout 90 python3 rows/peers.py >> $OUT/rows.txt 2>&1; echo "peers rc=$? at $((SECONDS - T0)) s" >> $OUT/rows.txt
cat $OUT/rows.txt
OUT=$OUT timeout $((560 - (SECONDS - T0))) bash ./call-c.sh > /dev/null 2>&1
echo "call C rc=$? at $((SECONDS - T0)) s"
cat $OUT/summary.txt
