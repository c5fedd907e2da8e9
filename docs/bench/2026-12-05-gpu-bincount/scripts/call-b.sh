#!/usr/bin/env bash
# Session 2026-12-05, call B: argmin and min of the same distances nested into one kernel (the
# planner's nested_siblings), k-means' distances in a block of their own. The k-means app timed
# as the peers are (no --check: no host read per iteration), bincount against the one-hot product
# (kmeans.cpp of 3c16d53^ against this library), alternating; then --check runs, the kernel
# timer, tessera-bench kmeans_assign, the tests with the JIT at np 1 and 2, and the best peers.
set -u
REPO=$PWD  # run from the repository root as bash .device/call-b.sh
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
T0=$SECONDS
KM="--n 2000000 --dims 8 --centers 16 --iters 10"
for round in 1 2; do
  for v in kmeans kmeans-onehot; do
    timeout 120 mpirun -n 1 --bind-to none bin/tessera-$v $KM --warmup 2 > $OUT/$v.r$round.txt 2>&1 < /dev/null
    echo "app $v round $round rc=$?: $(grep -E 'per iteration|distance_sum' $OUT/$v.r$round.txt | tr '\n' ' ')" >> $S
  done
done
for v in kmeans kmeans-onehot; do
  timeout 120 mpirun -n 1 --bind-to none bin/tessera-$v $KM --warmup 2 --check > $OUT/$v.check.txt 2>&1 < /dev/null
  echo "app $v --check rc=$?: $(grep -E 'per iteration|check' $OUT/$v.check.txt | tr '\n' ' ')" >> $S
done
KOKKOS_TOOLS_LIBS=$PWD/lib/libtessera_kernel_timer.so timeout 120 mpirun -n 1 --bind-to none bin/tessera-kmeans $KM --warmup 2 > $OUT/kmeans-kernels.txt 2>&1 < /dev/null
echo "kernel timer kmeans rc=$?: $(grep -E 'kernel_timer.*(tessera::fused|tessera::reduce\[bincount|finish)' $OUT/kmeans-kernels.txt | head -6 | tr -s ' ' | tr '\n' ';')" >> $S
for round in 1 2; do
  timeout 60 mpirun -n 1 --bind-to none bin/tessera-bench kmeans_assign --n 10000000 --iters 20 --warmup 3 --json > $OUT/ka.r$round.txt 2>&1 < /dev/null
  echo "kmeans_assign round $round: $(grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' $OUT/ka.r$round.txt | tr '\n' ' ')" >> $S
done
echo "apps done at $((SECONDS - T0)) s" >> $S
for np in 1 2; do
  for t in test_nested_reductions test_axis_reductions; do
    timeout 150 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/$t.np$np.txt | tr '\n' ' ')" >> $S
  done
  timeout 60 mpirun -n $np --bind-to none --oversubscribe bin/tessera-kmeans --n 240 --dims 2 --centers 10 --iters 8 --check > $OUT/kmeans-small.np$np.txt 2>&1 < /dev/null
  echo "kmeans small np$np rc=$? $(grep -E 'check|distance_sum' $OUT/kmeans-small.np$np.txt | tr '\n' ' ')" >> $S
done
echo "tests done at $((SECONDS - T0)) s" >> $S
timeout 200 python3 $REPO/bench/peers/apps/run.py kmeans --system torch-compile,jax --warmup 2 --json $KM > $OUT/kmeans-peers.jsonl 2> $OUT/kmeans-peers.err < /dev/null
echo "peers rc=$?: $(grep -o '"system": "[a-z-]*"\|"ms_per_iter": [0-9.]*' $OUT/kmeans-peers.jsonl | tr '\n' ' ')" >> $S
echo "end at $((SECONDS - T0)) s" >> $S
cat $S
