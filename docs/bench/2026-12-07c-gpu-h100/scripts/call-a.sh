#!/usr/bin/env bash
# Session 2026-12-07 (third), call A: hand-written 27-point stencil kernel shapes at 512^3 (s27.cu).
set -u
cd "$(dirname "$0")"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.memory --format=csv,noheader > $S
export PATH=/usr/local/cuda/bin:$PATH
for r in 1 2; do
  timeout 120 ./s27/s27 512 > $OUT/s27-512-r$r.jsonl 2> $OUT/s27-512-r$r.txt; echo "s27 512 round $r rc=$?" >> $S
done
timeout 60 ./s27/s27 256 > $OUT/s27-256.jsonl 2> $OUT/s27-256.txt; echo "s27 256 rc=$?" >> $S
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$CS" ]; then
  timeout 200 $CS --tool racecheck ./s27/s27 32 > $OUT/racecheck.txt 2>&1; echo "racecheck 32 rc=$?" >> $S
  tail -5 $OUT/racecheck.txt >> $S
else echo "no compute-sanitizer" >> $S; fi
cat $S; cat $OUT/s27-512-r1.txt
