#!/usr/bin/env bash
# Session 2026-12-06 (second), call E: who paces multigrid's V-cycle, the host or the device: each
# app prints the time its loop took to record and launch beside the loop's time.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
cp -f new/* bin/ 2>/dev/null
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache PYTHONUNBUFFERED=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
for a in "multigrid --n 65 --iters 20" "multigrid --n 513 --iters 20" "multigrid --n 2049 --iters 20" \
         "cfd --n 1025 --iters 20 --nit 50" "shallow_water --n 4096 --iters 50" "shallow_water --n 256 --iters 50"; do
  name=${a%% *}
  timeout 60 mpirun -n 1 --bind-to none bin/tessera-${name//_/-} ${a#* } --warmup 2 > /dev/null 2>&1 < /dev/null
  timeout 60 mpirun -n 1 --bind-to none bin/tessera-${name//_/-} ${a#* } --warmup 2 > $OUT/run.txt 2>&1 < /dev/null
  say "== $a rc=$?"
  grep -E "time per|per V-cycle|per PCG|per iteration|ops per" $OUT/run.txt >> $S
done
rm -f $OUT/run.txt
say "apps done at $((SECONDS - T0)) s"
TESSERA_FUZZ_PROGRAMS=4 timeout 150 mpirun -n 1 --bind-to none bin/test_fuzz --gtest_filter=*Reference* > $OUT/fuzz.txt 2>&1 < /dev/null
say "test_fuzz np1 (4 programs, JIT) rc=$? $(grep -a 'fuzz\] [0-9]* programs' $OUT/fuzz.txt)"
tail -5 $OUT/fuzz.txt >> $S; rm -f $OUT/fuzz.txt
say "done at $((SECONDS - T0)) s"
cat $S
