#!/usr/bin/env bash
# Session 2026-12-06 (third), call H: the host path before (bin-a, 00cfa46) and after (bin-b) the
# interned cuts, the cached stream hash and the folded signature, the same apps alternately on one
# card; then the after-build with boundary strips batched (TESSERA_BATCH_ELEMENTS=4096).
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
run() {  # variant, extra env, app and arguments
  local v=$1 env=$2; shift 2
  local name=$1; shift
  env $env TESSERA_CACHE_DIR=/tmp/cache-$v timeout 90 mpirun -n 1 --bind-to none bin-$v/tessera-${name//_/-} "$@" \
    > $OUT/run.txt 2>&1 < /dev/null
  echo "rc=$? $(grep -E 'time per|recorded and launched|kernels per|^check' $OUT/run.txt | sed -E 's/, bytes per.*//' | tr '\n' ' ')"
}
APPS=("multigrid --n 2049 --iters 20 --warmup 2 --check" "cfd --n 1025 --iters 20 --nit 50 --warmup 2 --check"
      "multigrid --n 65 --iters 20 --warmup 2 --check" "shallow_water --n 256 --iters 50 --warmup 2 --check"
      "shallow_water --n 4096 --iters 50 --warmup 2 --check")
for a in "${APPS[@]}"; do
  for v in a b; do run $v "" $a > /dev/null; done   # the kernel cache filled (NVRTC)
  for round in 1 2; do
    for v in a b; do say "$a [$v r$round] $(run $v "" $a)"; done
  done
  say "  at $((SECONDS - T0)) s"
  [ $((SECONDS - T0)) -gt 200 ] && { say "cut"; break; }
done
for round in 1 2; do
  for v in a b; do
    env TESSERA_CACHE_DIR=/tmp/cache-$v timeout 60 mpirun -n 1 --bind-to none bin-$v/tessera-bench overhead --iters 2000 --json \
      > $OUT/run.txt 2>&1 < /dev/null
    say "overhead [$v r$round] rc=$? $(grep -oE '"(ms_per_iter|us_per_op|record_us_per_op)": [0-9.e+-]+' $OUT/run.txt | tr '\n' ' ')"
  done
done
for a in "multigrid --n 2049 --iters 20 --warmup 2" "cfd --n 1025 --iters 20 --nit 50 --warmup 2" "multigrid --n 65 --iters 20 --warmup 2"; do
  run b TESSERA_BATCH_ELEMENTS=4096 $a > /dev/null
  for round in 1 2; do say "$a [b batch4096 r$round] $(run b TESSERA_BATCH_ELEMENTS=4096 $a)"; done
  [ $((SECONDS - T0)) -gt 300 ] && { say "cut"; break; }
done
rm -f $OUT/run.txt
say "done at $((SECONDS - T0)) s"
cat $S
