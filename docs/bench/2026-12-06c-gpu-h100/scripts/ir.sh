#!/usr/bin/env bash
# Instructions per op (callgrind) of the host path: the difference of two run lengths over the
# difference of their op counts, for each build given.
# Usage: bash ir.sh BUILD_DIR... (each with apps/ built), from any directory.
set -u
W=$(mktemp -d)  # scratch
apps=("shallow-water --n 8" "multigrid --n 17" "cfd --n 17 --nit 50")
iters_a=(100 100 10); iters_b=(300 300 30)
for b in "$@"; do
  for k in 0 1 2; do
    a=${apps[$k]}; name=${a%% *}; args=${a#* }
    ia=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $b/apps/tessera-$name $args --iters ${iters_a[$k]} 2>&1 | grep "refs" | awk '{gsub(",","",$4); print $4}')
    ib=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $b/apps/tessera-$name $args --iters ${iters_b[$k]} > $W/out.txt 2>$W/err.txt; grep refs $W/err.txt | awk '{gsub(",","",$4); print $4}')
    ops=$(grep -E "^ops per" $W/out.txt | head -1 | awk '{print $4}' | tr -d ,)
    python3 -c "print('%-40s %-14s ops/iter %s  instr/op %.0f' % ('$b', '$name', '$ops', ($ib-$ia)/(($ib and ${iters_b[$k]}-${iters_a[$k]}) * float('$ops'))))"
  done
done
