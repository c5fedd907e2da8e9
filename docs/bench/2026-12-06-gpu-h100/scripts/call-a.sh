#!/usr/bin/env bash
# Session 2026-12-06, call A: what landed since the last GPU run (sparse CG's inner product as the
# SpMV's epilogue: 3 kernels per iteration; the host path's 4,638 -> 4,280 instructions per op),
# the applications fused and unfused (bench/run_apps.sh, tessera only), the issue targets'
# workloads, and the peers of the workloads with a goal, on the same card.
set -u
REPO=$PWD
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache PYTHONUNBUFFERED=1
S=$OUT/summary.txt
J=$OUT/bench.jsonl
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
# 1. tessera-bench: the targets' workloads, a warm-up run (fills the kernel cache), then 2 rounds.
B="mpirun -n 1 --bind-to none bin/tessera-bench"
for w in "sparse_cg --n 4096 --iters 50" "overhead --iters 2000" "jacobi --n 32768 --iters 20"; do
  timeout 60 $B ${w% --iters*} --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null
  for round in 1 2; do
    timeout 90 $B $w --warmup 5 --json > $OUT/run.txt 2>&1 < /dev/null
    rc=$?
    grep '^{' $OUT/run.txt >> $J
    say "bench $w r$round rc=$rc: $(grep -o '"ms_per_iter": [0-9.]*\|"us_per_op": [0-9.]*\|"record_us_per_op": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"allocs_per_iter": [0-9.]*\|"check": "[a-zA-Z]*"' $OUT/run.txt | tr '\n' ' ')"
  done
done
rm -f $OUT/run.txt
say "bench done at $((SECONDS - T0)) s"
# 2b. the tests the SpMV epilogue touches, with the JIT, at np 1 and 2 (two ranks share the GPU: MPI).
for np in 1 2; do
  [ $((SECONDS - T0)) -gt 100 ] && break
  for t in test_sparse test_epilogues; do
    timeout 45 mpirun -n $np --bind-to none --oversubscribe bin/$t --gtest_brief=1 > $OUT/run.txt 2>&1 < /dev/null
    say "$t np$np rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/run.txt | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
  done
done
rm -f $OUT/run.txt
say "tests done at $((SECONDS - T0)) s"
# 2. the applications, tessera fused and unfused (the peers in call B).
PEERS="" RUN_TIMEOUT=100 timeout $((290 - (SECONDS - T0))) bash $REPO/bench/run_apps.sh bin $OUT/apps > $OUT/apps-stdout.txt 2>&1
say "apps rc=$? at $((SECONDS - T0)) s"
# 3. the peers of those workloads on this card (each its best peer of earlier runs, and torch-compile).
for p in "sparse_cg --n 4096 --iters 50 --system torch,cupy" "jacobi --n 32768 --iters 20 --system torch-compile"; do
  [ $((SECONDS - T0)) -gt 300 ] && { say "peers cut at $((SECONDS - T0)) s"; break; }
  name=${p%% *}
  timeout $((370 - (SECONDS - T0))) python3 $REPO/bench/peers/$name.py ${p#* } --warmup 3 --json > $OUT/run.txt 2> $OUT/peer.err < /dev/null
  rc=$?
  grep '^{' $OUT/run.txt >> $J
  say "peer $p rc=$rc: $(grep -o '"system": "[a-z-]*"\|"ms_per_iter": [0-9.]*\|"check": "[a-zA-Z]*"' $OUT/run.txt | tr '\n' ' ') $(tail -1 $OUT/peer.err)"
done
rm -f $OUT/run.txt $OUT/peer.err
say "peers done at $((SECONDS - T0)) s"
cat $S
