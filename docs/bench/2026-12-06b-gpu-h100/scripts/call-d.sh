#!/usr/bin/env bash
# Session 2026-12-06 (second), call D: the rest of call C's table (multigrid's peers, sparse_cg),
# and where multigrid's V-cycle time goes: the V-cycle at growing n (a floor per kernel shows as a
# time that stops shrinking), nsys's kernel and CUDA API summaries where nsys exists.
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
# 1. multigrid's V-cycle against n (fused, JIT, one rank), after a cache-filling run.
for n in 65 129 257 513 1025 2049 4097; do
  timeout 60 mpirun -n 1 --bind-to none bin/tessera-multigrid --n $n --iters 2 > /dev/null 2>&1 < /dev/null
  t=$(timeout 60 mpirun -n 1 --bind-to none bin/tessera-multigrid --n $n --iters 20 --warmup 2 2>&1 < /dev/null | grep -E "time per|kernels per V" | tr '\n' ' ')
  say "multigrid n=$n: $t"
done
say "sweep done at $((SECONDS - T0)) s"
# 2. nsys, if the machine has it.
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
say "nsys: ${NSYS:-none}"
if [ -n "$NSYS" ]; then
  timeout 150 $NSYS profile -o /tmp/mg -t cuda --stats=false mpirun -n 1 --bind-to none bin/tessera-multigrid --n 2049 --iters 20 --warmup 2 > $OUT/nsys-run.txt 2>&1 < /dev/null
  say "nsys profile rc=$?"
  timeout 90 $NSYS stats -r cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_trace -f csv -o /tmp/mgstats /tmp/mg.nsys-rep > /dev/null 2>&1
  say "nsys stats rc=$?"
  for f in /tmp/mgstats_cuda_gpu_kern_sum.csv /tmp/mgstats_cuda_api_sum.csv; do [ -f $f ] && cp $f $OUT/; done
  [ -f /tmp/mgstats_cuda_gpu_trace.csv ] && xz -c /tmp/mgstats_cuda_gpu_trace.csv > $OUT/mg_gpu_trace.csv.xz
fi
say "nsys done at $((SECONDS - T0)) s"
# 3. the apps call C did not reach: multigrid's peers, sparse_cg.
APPS=multigrid VARIANTS="" PEERS="torch-compile jax" PEER_CHECK=0 RUN_TIMEOUT=150 timeout $((470 - (SECONDS - T0))) \
  bash $REPO/bench/run_apps.sh bin $OUT/apps > /dev/null 2>&1
say "multigrid peers rc=$? at $((SECONDS - T0)) s"
APPS=sparse_cg PEERS="torch-compile jax" PEER_CHECK=0 RUN_TIMEOUT=100 timeout $((560 - (SECONDS - T0))) \
  bash $REPO/bench/run_apps.sh bin $OUT/apps2 > /dev/null 2>&1
say "sparse_cg rc=$? at $((SECONDS - T0)) s"
cat $OUT/apps/apps.jsonl $OUT/apps2/apps.jsonl > $OUT/apps.jsonl 2>/dev/null
rm -rf $OUT/apps $OUT/apps2
cat $S
