#!/usr/bin/env bash
# Session 2026-12-07 (second), call X (call W cut to what device time allows): independent batches
# (c0c8c2f) on a GPU: test_batching with the JIT, multigrid 2049^2 with and without them
# (TESSERA_EXPERIMENT_NO_SPREAD=1, no-spread-knob.patch, experiment build only), alternating.
set -u
cd "$(dirname "$0")"
tar xJf bins-w.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/cache-x TESSERA_JIT_WAIT=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
timeout 60 mpirun -n 1 --bind-to none bin-w/test_batching > $OUT/test_batching-np1.txt 2>&1 < /dev/null
say "test_batching np1 rc=$? $(grep -E '(PASSED|FAILED)' $OUT/test_batching-np1.txt | tr '\n' ' ')"
grab() { grep -E 'time per|kernels per V|recorded and launched by the host in .* per V|check' "$1" | tr '\n' ' '; }
for v in "on:X=0" "off:TESSERA_EXPERIMENT_NO_SPREAD=1"; do env ${v#*:} timeout 40 mpirun -n 1 --bind-to none bin-w/tessera-multigrid --n 2049 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null; done
for round in 1 2; do
  for v in "on:X=0" "off:TESSERA_EXPERIMENT_NO_SPREAD=1"; do
    [ $((SECONDS - T0)) -gt 100 ] && break 2
    env ${v#*:} timeout 40 mpirun -n 1 --bind-to none bin-w/tessera-multigrid --n 2049 --iters 20 --warmup 2 --check > $OUT/mg.txt 2>&1 < /dev/null
    say "multigrid 2049 ${v%%:*} [r$round] rc=$? $(grab $OUT/mg.txt)"
  done
done
say "done at $((SECONDS - T0)) s"
rm -f $OUT/mg.txt
cat $S
