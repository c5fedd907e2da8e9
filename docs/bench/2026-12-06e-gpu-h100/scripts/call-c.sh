#!/usr/bin/env bash
# Session 2026-12-06 (fourth), call C: boundary strips batched (TESSERA_BATCH_ELEMENTS=4096) with
# the batch kernel generated once per distinct list of parts (bin-d) against 97dec63 (bin-c), which
# generated and hashed the batch's source at every launch; and both unbatched. Alternating, pinned.
set -u
cd "$(dirname "$0")"
tar xJf bins-c.tar.xz
tar xJf bins-d.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
run() {  # variant, batch elements, app and arguments
  local v=$1 b=$2; shift 2
  local name=$1; shift
  TESSERA_BATCH_ELEMENTS=$b TESSERA_CACHE_DIR=/tmp/cache-$v timeout 90 taskset -c 4 mpirun -n 1 --bind-to none \
    bin-$v/tessera-${name//_/-} "$@" > $OUT/run.txt 2>&1 < /dev/null
  echo "rc=$? $(grep -E 'time per|recorded and launched|kernels per|^check' $OUT/run.txt | sed -E 's/, bytes per.*//' | tr '\n' ' ')"
}
APPS=("cfd --n 1025 --iters 20 --nit 50 --warmup 2 --check" "multigrid --n 2049 --iters 20 --warmup 2 --check")
for a in "${APPS[@]}"; do for v in c d; do for b in 0 4096; do run $v $b $a > /dev/null; done; done; done
say "caches filled at $((SECONDS - T0)) s"
for round in 1 2; do
  for a in "${APPS[@]}"; do
    for b in 0 4096; do for v in c d; do say "$a [$v batch$b r$round] $(run $v $b $a)"; done; done
  done
  say "  round $round at $((SECONDS - T0)) s"
  [ $((SECONDS - T0)) -gt 100 ] && { say "cut"; break; }
done
rm -f $OUT/run.txt

# Extras where the card is an H200: issue 20's three workloads and issue 16's two (bin-c's
# tessera-bench), each twice after one warm-up run.
if grep -q H200 $OUT/summary.txt; then
  grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
  for w in "black_scholes --n 134217728" "cg --n 8192" "stencil --n 16384" "axis_sum --n 4096 --rows 32768" "center --n 4096 --rows 32768"; do
    TESSERA_CACHE_DIR=/tmp/cache-c timeout 60 mpirun -n 1 --bind-to none bin-c/tessera-bench $w --iters 3 --warmup 3 > /dev/null 2>&1 < /dev/null
    for r in 1 2; do
      TESSERA_CACHE_DIR=/tmp/cache-c timeout 60 mpirun -n 1 --bind-to none bin-c/tessera-bench $w --iters 20 --warmup 5 --json > $OUT/r.txt 2>&1 < /dev/null
      say "$w [r$r] rc=$? $(grab $OUT/r.txt)"
    done
    [ $((SECONDS - T0)) -gt 400 ] && { say "extras cut"; break; }
  done
  rm -f $OUT/r.txt
fi
cat $S
