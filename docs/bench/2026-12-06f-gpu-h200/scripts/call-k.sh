#!/usr/bin/env bash
# Session 2026-12-06 (sixth), call K = call J (batching A/B: bin-b against HEAD's bin-h, the
# batching and fusion tests with the JIT) then a cut call I (the read-only cache: bin-g with
# TESSERA_EXP_LDG = none | rows | all), each part skipped when the time left is short.
set -u
cd "$(dirname "$0")"
tar xJf bins-hb.tar.xz; tar xJf bins-g.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1 TESSERA_CACHE_DIR=/tmp/cache-j
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
cd ..  # the repository root
# --- J: batching
APPS=("multigrid --n 2049 --iters 20 --warmup 2 --check" "multigrid --n 257 --iters 20 --warmup 2 --check"
      "cfd --n 1025 --iters 20 --nit 50 --warmup 2" "cfd --n 129 --iters 20 --nit 50 --warmup 2"
      "shallow_water --n 256 --iters 50 --warmup 2")
for a in "${APPS[@]}"; do name=${a%% *}; for v in h b; do timeout 90 mpirun -n 1 --bind-to none .device/bin-$v/tessera-${name//_/-} ${a#* } > /dev/null 2>&1 < /dev/null; done; done
say "caches filled at $((SECONDS - T0)) s"
for round in 1 2 3; do
  [ $((SECONDS - T0)) -gt 200 ] && { say "rounds cut before $round"; break; }
  for a in "${APPS[@]}"; do
    name=${a%% *}
    for v in h b; do
      timeout 60 taskset -c 4 mpirun -n 1 --bind-to none .device/bin-$v/tessera-${name//_/-} ${a#* } > $OUT/run.txt 2>&1 < /dev/null
      say "$a [$v r$round] rc=$? $(grep -E 'time per|recorded and launched|kernels per|frame copies|^check|residual' $OUT/run.txt | sed -E 's/, bytes per.*//; s/plan-cache.*frame/frame/' | tr '\n' ' ')"
    done
  done
  say "  round $round at $((SECONDS - T0)) s"
done
timeout 100 taskset -c 4 python3 bench/peers/apps/run.py multigrid --system jax --warmup 2 --json --n 2049 --iters 20 > $OUT/peer.txt 2>&1 < /dev/null
say "jax multigrid 2049 rc=$? $(grep '^{' $OUT/peer.txt | tr '\n' ' ') at $((SECONDS - T0)) s"
for t in test_batching test_fusion_programs test_fusion; do
  for np in 1 2; do
    TESSERA_JIT_WAIT=1 TESSERA_CACHE_DIR=/tmp/cache-t timeout 60 mpirun -n $np --oversubscribe --bind-to none .device/bin-b/$t > $OUT/t.txt 2>&1 < /dev/null
    say "$t np$np (JIT) rc=$? $(grep -aE '\[  PASSED  \]|\[  FAILED  \]' $OUT/t.txt | sort -u | tr '\n' ' ')"
    grep -a "FAILED \|Failure" $OUT/t.txt | head -10 >> $S
  done
done
say "J done at $((SECONDS - T0)) s"
# --- I: the read-only cache, cut
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
bench() {  # ldg variant, matvec kind, workload and arguments
  local v=$1 mv=$2; shift 2
  TESSERA_EXP_LDG=$v TESSERA_MATVEC=$mv TESSERA_CACHE_DIR=/tmp/cache-$v timeout 40 mpirun -n 1 --bind-to none \
    .device/bin-g/tessera-bench "$@" --json > $OUT/r.txt 2>&1 < /dev/null
  echo "rc=$? $(grab $OUT/r.txt)"
}
RUNS=("none generated jacobi --n 16384" "rows generated jacobi --n 16384" "all generated jacobi --n 16384" "none auto jacobi --n 16384"
      "none auto stencil --n 16384" "all auto stencil --n 16384"
      "none generated jacobi --n 32768" "rows generated jacobi --n 32768")
for r in "${RUNS[@]}"; do
  [ $((SECONDS - T0)) -gt 470 ] && { say "I cut before fill of $r"; break; }
  bench $r --iters 2 --warmup 1 > /dev/null
done
for round in 1 2; do
  for r in "${RUNS[@]}"; do
    [ $((SECONDS - T0)) -gt 540 ] && { say "I cut before $r [r$round]"; break 2; }
    say "$r [r$round] $(bench $r --iters 20 --warmup 5)"
  done
done
TESSERA_EXP_LDG=all TESSERA_MATVEC=generated TESSERA_JIT_WAIT=1 TESSERA_CACHE_DIR=/tmp/cache-t2 timeout 30 \
  mpirun -n 1 --bind-to none .device/bin-g/test_stencils > $OUT/t.txt 2>&1 < /dev/null
say "test_stencils np1 (JIT, ldg all) rc=$? $(grep -aE '\[  PASSED  \]|\[  FAILED  \]' $OUT/t.txt | sort -u | tr '\n' ' ')"
say "done at $((SECONDS - T0)) s"
rm -f $OUT/run.txt $OUT/t.txt $OUT/peer.txt $OUT/r.txt
cat $S
