#!/usr/bin/env bash
# Session 2026-12-06 (second), call F: where the host's time goes in cfd's and multigrid's loops
# on the GPU machine (both host-paced in call E): Debian's perf, carried, sampling the CPU.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
cp -f new/* bin/ 2>/dev/null
tar xJf perf.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache PYTHONUNBUFFERED=1
PERF="env LD_LIBRARY_PATH=$PWD/perf/lib:$LD_LIBRARY_PATH $PWD/perf/perf"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $S
cat /proc/sys/kernel/perf_event_paranoid >> $S 2>&1
$PERF --version >> $S 2>&1
T0=$SECONDS
for a in "cfd --n 1025 --iters 200 --nit 50" "multigrid --n 65 --iters 400"; do
  name=${a%% *}
  timeout 60 mpirun -n 1 --bind-to none bin/tessera-${name//_/-} ${a#* } > /dev/null 2>&1 < /dev/null
  timeout 120 mpirun -n 1 --bind-to none $PERF record -F 2000 -e cpu-clock -g -o /tmp/$name.data bin/tessera-${name//_/-} ${a#* } > $OUT/run-$name.txt 2>&1 < /dev/null
  echo "perf record $name rc=$?" >> $S
  timeout 60 $PERF report -i /tmp/$name.data --stdio --no-children --sort symbol --percent-limit 0.4 -g none > $OUT/self-$name.txt 2>&1
  timeout 60 $PERF report -i /tmp/$name.data --stdio --children --sort symbol --percent-limit 2 -g none > $OUT/children-$name.txt 2>&1
  echo "report rc=$? at $((SECONDS - T0)) s" >> $S
done
cat $S; head -50 $OUT/self-cfd.txt
