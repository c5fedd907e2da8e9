#!/usr/bin/env bash
# Session 2026-12-06 (second), call G: kernels that declare only the arguments they read (a
# parameter block of ~0.8 KB instead of 3.2 KB per launch) against the full block, the same apps
# alternately on one card: bin-a = before (call E's binaries), bin-b = after.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz; tar xJf newafter.tar.xz
mkdir -p bin-a bin-b && cp bin/* bin-a/ && cp bin/* bin-b/ && cp -f new/* bin-a/ && cp -f after/* bin-b/
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
for t in test_fusion_programs test_sparse; do
  TESSERA_CACHE_DIR=/tmp/cache-b timeout 60 mpirun -n 1 --bind-to none bin-b/$t --gtest_brief=1 > $OUT/run.txt 2>&1 < /dev/null
  say "$t np1 (after) rc=$? $(sed 's/\x1b\[[0-9;]*m//g' $OUT/run.txt | grep -E '^\[  PASSED|^\[  FAILED' | tr '\n' ' ')"
done
for a in "cfd --n 1025 --iters 20 --nit 50" "multigrid --n 65 --iters 20" "multigrid --n 2049 --iters 20" \
         "shallow_water --n 256 --iters 50" "shallow_water --n 4096 --iters 50" "stencil27 --n 254 --iters 50"; do
  name=${a%% *}
  for v in a b; do
    TESSERA_CACHE_DIR=/tmp/cache-$v timeout 60 mpirun -n 1 --bind-to none bin-$v/tessera-${name//_/-} ${a#* } --warmup 2 > /dev/null 2>&1 < /dev/null
  done
  for round in 1 2; do
    for v in a b; do
      TESSERA_CACHE_DIR=/tmp/cache-$v timeout 60 mpirun -n 1 --bind-to none bin-$v/tessera-${name//_/-} ${a#* } --warmup 2 > $OUT/run.txt 2>&1 < /dev/null
      say "$a [$v r$round] rc=$? $(grep -E 'time per|recorded and launched' $OUT/run.txt | tr '\n' ' ')"
    done
  done
  [ $((SECONDS - T0)) -gt 240 ] && { say "cut at $((SECONDS - T0)) s"; break; }
done
rm -f $OUT/run.txt
say "done at $((SECONDS - T0)) s"
cat $S
