#!/usr/bin/env bash
# Session 2026-12-06 (second), call C: a dimension dealt into one part is whole on every rank
# (Tiling::aligned), so results shifted along it share kernels: shallow water 79 -> 17 kernels per
# step on one rank. The tests that change touches (JIT, np 1 and 2), every application fused and
# unfused beside torch.compile and JAX on the same card, then multigrid and shallow water under
# the kernel timer (where the GPU time goes).
set -u
REPO=$PWD
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache PYTHONUNBUFFERED=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
# 1. tests, JIT, np 1 and 2 (two ranks share the GPU: the MPI path).
for np in 1 2; do
  for t in test_fusion_programs test_local_task test_sparse; do
    timeout 60 mpirun -n $np --bind-to none --oversubscribe bin/$t --gtest_brief=1 > $OUT/run.txt 2>&1 < /dev/null
    say "$t np$np rc=$? $(sed 's/\x1b\[[0-9;]*m//g' $OUT/run.txt | grep -E '^\[  PASSED|^\[  FAILED' | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
  done
done
TESSERA_FUZZ_PROGRAMS=16 timeout 120 mpirun -n 1 --bind-to none bin/test_fuzz --gtest_filter=*Reference* > $OUT/run.txt 2>&1 < /dev/null
say "test_fuzz np1 (16 programs) rc=$? $(grep -a 'fuzz\] [0-9]* programs' $OUT/run.txt)"
rm -f $OUT/run.txt
say "tests done at $((SECONDS - T0)) s"
# 2. the applications fused and unfused, and torch.compile and JAX, on this card.
PEERS="torch-compile jax" PEER_CHECK=0 RUN_TIMEOUT=100 timeout $((500 - (SECONDS - T0))) \
  bash $REPO/bench/run_apps.sh bin $OUT/apps > $OUT/apps-stdout.txt 2>&1
say "apps rc=$? at $((SECONDS - T0)) s"
# 3. where the GPU time goes: every kernel timed (the timer waits for the device around each).
K=$PWD/lib/libtessera_kernel_timer.so
for a in "multigrid --n 2049 --iters 5" "shallow_water --n 4096 --iters 10"; do
  [ $((SECONDS - T0)) -gt 540 ] && { say "profile cut at $((SECONDS - T0)) s"; break; }
  name=${a%% *}
  KOKKOS_TOOLS_LIBS=$K timeout $((580 - (SECONDS - T0))) mpirun -n 1 --bind-to none -x KOKKOS_TOOLS_LIBS \
    bin/tessera-${name//_/-} ${a#* } --warmup 1 > $OUT/profile-$name.txt 2>&1 < /dev/null
  say "profile $name rc=$? at $((SECONDS - T0)) s"
done
cat $S $OUT/apps/apps.md
