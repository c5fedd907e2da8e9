#!/usr/bin/env bash
# Session 2026-12-05, call A: ts::bincount on one H200. The k-means app with bincount (this
# commit) against the same app with the one-hot product it replaced (kmeans.cpp of 3c16d53^,
# built against this library as bin/tessera-kmeans-onehot), two alternating rounds; its kernels
# under the kernel timer; its peers at the same size; test_axis_reductions with the JIT at np 1
# and 2. Then multigrid and cfd with small groups batched (TESSERA_BATCH_ELEMENTS) against the
# default, and their kernels under the kernel timer; tessera-bench overhead (host cost per op).
set -u
REPO=$PWD  # run from the repository root as bash .device/call-a.sh
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
    timeout 120 mpirun -n 1 --bind-to none bin/tessera-$v $KM --warmup 2 --check > $OUT/$v.r$round.txt 2>&1 < /dev/null
    echo "app $v round $round rc=$?: $(grep -E 'per iteration|check' $OUT/$v.r$round.txt | tr '\n' ' ')" >> $S
  done
done
KOKKOS_TOOLS_LIBS=$PWD/lib/libtessera_kernel_timer.so timeout 120 mpirun -n 1 --bind-to none bin/tessera-kmeans $KM --warmup 2 > $OUT/kmeans-kernels.txt 2>&1 < /dev/null
echo "kernel timer kmeans rc=$?" >> $S
echo "apps done at $((SECONDS - T0)) s" >> $S
for np in 1 2; do
  timeout 150 mpirun -n $np --bind-to none --oversubscribe bin/test_axis_reductions > $OUT/test_axis_reductions.np$np.txt 2>&1 < /dev/null
  echo "test_axis_reductions np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/test_axis_reductions.np$np.txt | tr '\n' ' ')" >> $S
  timeout 60 mpirun -n $np --bind-to none --oversubscribe bin/tessera-kmeans --n 240 --dims 2 --centers 10 --iters 8 --check > $OUT/kmeans-small.np$np.txt 2>&1 < /dev/null
  echo "kmeans small np$np rc=$? $(grep -E 'check|distance_sum' $OUT/kmeans-small.np$np.txt | tr '\n' ' ')" >> $S
done
echo "tests done at $((SECONDS - T0)) s" >> $S
timeout 240 python3 $REPO/bench/peers/apps/run.py kmeans --system torch-compile,jax,cupy,torch --warmup 2 --check --json $KM > $OUT/kmeans-peers.jsonl 2> $OUT/kmeans-peers.err < /dev/null
echo "peers rc=$?: $(grep -o '"system": "[a-z-]*"\|"ms_per_iter": [0-9.]*\|"check": "[a-z]*"' $OUT/kmeans-peers.jsonl | tr '\n' ' ')" >> $S
echo "peers done at $((SECONDS - T0)) s" >> $S
# Launch-bound programs: batching small groups (TESSERA_BATCH_ELEMENTS, off by default) against
# the default, alternating; then the kernel timer (each kernel's own time, serialized).
for a in "multigrid --n 2049 --iters 5" "cfd --n 1025 --iters 20 --nit 50"; do
  name=${a%% *}
  for round in 1 2; do
    for batch in 0 2048 16384; do
      TESSERA_BATCH_ELEMENTS=$batch timeout 90 mpirun -n 1 --bind-to none bin/tessera-$a --warmup 2 > $OUT/$name.b$batch.r$round.txt 2>&1 < /dev/null
      echo "app $a batch=$batch round $round rc=$?: $(grep -E 'per iteration|per V-cycle|time|residual' $OUT/$name.b$batch.r$round.txt | head -4 | tr '\n' ' ')" >> $S
    done
  done
  KOKKOS_TOOLS_LIBS=$PWD/lib/libtessera_kernel_timer.so timeout 120 mpirun -n 1 --bind-to none bin/tessera-$a --warmup 2 > $OUT/$name-kernels.txt 2>&1 < /dev/null
  echo "kernel timer $name rc=$?" >> $S
done
# Host cost per op (issue 20, item 4): 24 ops on 16 elements per flush, one fused kernel.
for np in 1 2; do
  for round in 1 2 3; do
    timeout 60 mpirun -n $np --bind-to none --oversubscribe bin/tessera-bench overhead --iters 2000 --json > $OUT/overhead.np$np.r$round.txt 2>&1 < /dev/null
    echo "overhead np$np round $round: $(grep -o '"us_per_op": [0-9.]*\|"ms_per_iter": [0-9.]*' $OUT/overhead.np$np.r$round.txt | head -2 | tr '\n' ' ')" >> $S
  done
done
echo "end at $((SECONDS - T0)) s" >> $S
cat $S
