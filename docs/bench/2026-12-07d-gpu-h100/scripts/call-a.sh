#!/usr/bin/env bash
# Session 2026-12-07 (fourth), call A: the 27-point stencil at 512^3 as NVRTC compiles its kernels (h27r, tessera's parameter block and launch): the committed kernel (none6) and the same with its refill peeled before the loop (nonepeel6); the hand-written staged kernel (hand6); the previous session's best generated staged kernel (vecptr6: 16-byte tile loads, no refill, per-lane tile pointers) and edits of it: the next plane's loads in a block of their own and one tile pointer for both lanes (A6); the refill peeled before the loop (peelblk6: 16-byte loads; speelblk6: 8-byte loads); gen6: what branch `staged` generates (speelblk6 by the codegen). SASS of speelblk6 and gen6. On an H200 also s27.cu's hand-written shapes and the copy bandwidth.
set -u
cd "$(dirname "$0")"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.memory --format=csv,noheader > $S
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cd h27r
for k in speelblk6 gen6; do ./nvc $k.cu /tmp/$k.cubin && cuobjdump -sass /tmp/$k.cubin | grep -v '^\s*/\* [0-9a-f]*' > $OUT/$k.sass; echo "sass $k rc=$?" >> $S; done
for r in 1 2; do timeout 90 ./h27r none6.cu hand6.cu vecptr6.cu nonepeel6.cu A6.cu peelblk6.cu speelblk6.cu gen6.cu >> $OUT/h27r.jsonl 2>&1; echo "h27r round $r rc=$?" >> $S; done
cd ..
if grep -q H200 $S; then timeout 150 ./s27/s27 512 > $OUT/s27-512.jsonl 2> $OUT/s27-512.txt; echo "s27 512 rc=$?" >> $S; fi  # known on H100s (2026-12-07c)
cat $S; cut -c1-100 $OUT/s27-512.txt | grep -v "^$" | head -40; cut -c1-110 $OUT/h27r.jsonl
