#!/usr/bin/env bash
# Host tier, np 1: small constants as literals (committed) against every constant a parameter
# (TESSERA_EXPERIMENT_NO_LITERALS=1, experiment switch), alternating, 3 rounds, fresh kernel cache per run.
set -u
B=${1:?build dir}; OUT=${2:?out file}
: > $OUT
for r in 1 2 3; do
  for w in "black_scholes --n 4194304" "stencil --n 2048" "cg --n 1024"; do
    for v in literals:X=0 parameters:TESSERA_EXPERIMENT_NO_LITERALS=1; do
      c=$(mktemp -d)
      echo "$(date -u +%T) r$r ${v%%:*} $w load $(cut -d' ' -f1 /proc/loadavg)" >&2
      env ${v#*:} TESSERA_CACHE_DIR=$c mpiexec -n 1 --bind-to none $B/bench/tessera-bench $w --backend jit --json 2>/dev/null | grep '^{' | sed "s/^{/{\"variant\": \"${v%%:*}\", \"round\": $r, /" >> $OUT
      rm -rf $c
    done
  done
done
