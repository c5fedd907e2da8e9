#!/usr/bin/env bash
# Session 2026-12-04 (third), call H: the fuzz corpus with every launch on compiled code
# (TESSERA_JIT_WAIT=1) under the committed carry rule, at np 1 and 2.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache TESSERA_JIT_WAIT=1
S=$OUT/summary.txt
T0=$SECONDS
TESSERA_FUZZ_PROGRAMS=12 timeout 280 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.np1.txt 2>&1 < /dev/null
echo "fuzz np1 rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED' $OUT/fuzz.np1.txt | tr '\n' ' ') at $((SECONDS - T0)) s" >> $S
TESSERA_FUZZ_PROGRAMS=8 timeout 200 mpirun -n 2 --bind-to none --oversubscribe bin/test_fuzz > $OUT/fuzz.np2.txt 2>&1 < /dev/null
echo "fuzz np2 rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED' $OUT/fuzz.np2.txt | tr '\n' ' ') at $((SECONDS - T0)) s" >> $S
cat $S
