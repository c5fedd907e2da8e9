#!/usr/bin/env bash
# Session 2026-12-06 (third), calls I and J: call H's before/after comparison again with the process pinned
# to one core (taskset -c 4; call H's unpinned host-paced loops varied by up to 40% between rounds),
# five alternating rounds per app.
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
run() {  # variant, app and arguments
  local v=$1; shift
  local name=$1; shift
  TESSERA_CACHE_DIR=/tmp/cache-$v timeout 90 taskset -c 4 mpirun -n 1 --bind-to none bin-$v/tessera-${name//_/-} "$@" \
    > $OUT/run.txt 2>&1 < /dev/null
  echo "rc=$? $(grep -E 'time per|recorded and launched' $OUT/run.txt | tr '\n' ' ')"
}
APPS=("multigrid --n 2049 --iters 20 --warmup 2" "cfd --n 1025 --iters 20 --nit 50 --warmup 2"
      "shallow_water --n 256 --iters 50 --warmup 2")
for a in "${APPS[@]}"; do for v in a b; do run $v $a > /dev/null; done; done
say "caches filled at $((SECONDS - T0)) s"
for round in 1 2 3 4 5; do
  for a in "${APPS[@]}"; do
    for v in a b; do say "$a [$v r$round] $(run $v $a)"; done
  done
  for v in a b; do
    TESSERA_CACHE_DIR=/tmp/cache-$v timeout 60 taskset -c 4 mpirun -n 1 --bind-to none bin-$v/tessera-bench overhead --iters 2000 --json \
      > $OUT/run.txt 2>&1 < /dev/null
    say "overhead [$v r$round] rc=$? $(grep -oE '"(ms_per_iter|us_per_op|record_us_per_op)": [0-9.e+-]+' $OUT/run.txt | tr '\n' ' ')"
  done
  say "  round $round at $((SECONDS - T0)) s"
  [ $((SECONDS - T0)) -gt 230 ] && { say "cut"; break; }
done
rm -f $OUT/run.txt
say "done at $((SECONDS - T0)) s"
cat $S
