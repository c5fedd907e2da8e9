#!/usr/bin/env bash
# Host time per iteration (the apps' "recorded and launched" line), pinned to core 1, builds
# alternating, ROUNDS rounds; prints the median per build and app.
# Usage: bash time.sh BUILD_DIR... (each with apps/ built), from any directory.
set -u
W=$(mktemp -d)  # scratch
ROUNDS=${ROUNDS:-5}
apps=("shallow-water --n 8 --iters 3000 --warmup 20" "multigrid --n 17 --iters 2000 --warmup 20" "cfd --n 17 --nit 50 --iters 200 --warmup 5")
rm -f $W/t.*
for r in $(seq $ROUNDS); do
  for b in "$@"; do
    for k in 0 1 2; do
      a=${apps[$k]}; name=${a%% *}
      taskset -c 1 $b/apps/tessera-$name ${a#* } 2>&1 | grep -m1 "recorded and launched" | sed -E 's/.* in ([0-9.]+) ms.*/\1/' >> $W/t.$(echo $b | tr / _).$name
    done
  done
done
for b in "$@"; do for k in 0 1 2; do name=${apps[$k]%% *}; f=$W/t.$(echo $b | tr / _).$name
  echo "$b $name median $(sort -n $f | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') ms (all: $(sort -n $f | tr '\n' ' '))"; done; done
