#!/usr/bin/env bash
# Session 2026-12-06 (fifth), call E. (1) The row kernel's paired loads (bin-e: the working tree on
# 16881bf with jit/codegen.cpp's pairable_loads) against bin-c (97dec63, the same row kernel as
# 16881bf before it): sum(A, 1), Jacobi and logistic regression with the generated matvec and with
# BLAS, alternating, two rounds. (2) Boundary strips batched (TESSERA_BATCH_ELEMENTS=4096) or not
# for shallow water at three sizes (bin-d, d416789). (3) The tests that run row reductions and
# epilogues, JIT at np 1 and 2 (bin-e). (4) Where the card is an H200: issue 20's and 16's figures.
set -u
cd "$(dirname "$0")"
for b in c d e; do tar xJf bins-$b.tar.xz; done
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
bench() {  # bin, matvec kind, workload and arguments
  local v=$1 mv=$2; shift 2
  TESSERA_MATVEC=$mv TESSERA_CACHE_DIR=/tmp/cache-$v timeout 60 mpirun -n 1 --bind-to none bin-$v/tessera-bench "$@" --json > $OUT/r.txt 2>&1 < /dev/null
  echo "rc=$? $(grab $OUT/r.txt)"
}
W=("auto axis_sum --n 4096 --rows 32768" "generated jacobi --n 32768" "auto jacobi --n 32768"
   "generated logreg --n 10000000" "auto logreg --n 10000000")
for w in "${W[@]}"; do for v in c e; do bench $v $w --iters 3 --warmup 2 > /dev/null; done; done
say "(1) caches filled at $((SECONDS - T0)) s"
for round in 1 2; do
  for w in "${W[@]}"; do for v in c e; do say "$w [$v r$round] $(bench $v $w --iters 20 --warmup 5)"; done; done
done
say "(1) done at $((SECONDS - T0)) s"
sw() {  # batch elements, n
  TESSERA_BATCH_ELEMENTS=$1 TESSERA_CACHE_DIR=/tmp/cache-d timeout 60 mpirun -n 1 --bind-to none \
    bin-d/tessera-shallow-water --n $2 --iters 50 --warmup 2 > $OUT/r.txt 2>&1 < /dev/null
  echo "rc=$? $(grep -E 'time per|kernels per|recorded' $OUT/r.txt | sed -E 's/, bytes per.*//' | tr '\n' ' ')"
}
for n in 256 1024 4096; do for b in 0 4096; do sw $b $n > /dev/null; done; done
for round in 1 2; do for n in 256 1024 4096; do for b in 0 4096; do say "shallow_water --n $n [batch$b r$round] $(sw $b $n)"; done; done; done
say "(2) done at $((SECONDS - T0)) s"
for t in test_axis_reductions test_epilogues test_linalg; do
  for np in 1 2; do
    [ $((SECONDS - T0)) -gt 420 ] && { say "tests cut before $t np$np"; break 2; }
    TESSERA_MATVEC=generated TESSERA_JIT_WAIT=1 TESSERA_CACHE_DIR=/tmp/cache-t timeout 150 \
      mpirun -n $np --bind-to none --oversubscribe bin-e/$t > $OUT/t.txt 2>&1 < /dev/null
    say "$t np$np (JIT, generated matvec) rc=$? $(grep -aE '\[  PASSED  \]|\[  FAILED  \]' $OUT/t.txt | sort -u | tr '\n' ' ')"
    grep -a "FAILED \|Failure" $OUT/t.txt | head -10 >> $S
  done
done
say "(3) done at $((SECONDS - T0)) s"
if grep -q H200 $S && [ $((SECONDS - T0)) -lt 440 ]; then
  for w in "black_scholes --n 134217728" "cg --n 8192" "stencil --n 16384" "center --n 4096 --rows 32768"; do
    bench c auto $w --iters 3 --warmup 3 > /dev/null
    say "$w [c] $(bench c auto $w --iters 20 --warmup 5)"
    [ $((SECONDS - T0)) -gt 520 ] && { say "extras cut"; break; }
  done
fi
rm -f $OUT/r.txt $OUT/t.txt
cat $S
