#!/usr/bin/env bash
# Session 2026-12-07 (third), call K: the generated staged kernel with per-plane tile pointers (vecptr6.cu: 16-byte tile loads, no refill, the loads of the tile at immediate offsets from one pointer per lane) timed beside the committed and hand-written ones, and SASS; as NVRTC compiles them
set -u
cd "$(dirname "$0")/h27r"
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for k in hand6 vecptr6; do ./nvc $k.cu /tmp/$k.cubin && cuobjdump -sass /tmp/$k.cubin > $OUT/$k.sass; echo "$k rc=$? $(wc -l < $OUT/$k.sass)"; done
timeout 60 ./h27r none6.cu hand6.cu vecptr6.cu > $OUT/h27r.jsonl 2>&1; echo "h27r rc=$?"; cut -c1-110 $OUT/h27r.jsonl
