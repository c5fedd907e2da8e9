#!/usr/bin/env bash
# Session 2026-12-07 (fourth), call B: (1) the 27-point stencil's kernels at 512^3 as NVRTC compiles them (h27r): the committed kernel (none6), the hand-written staged one (hand6), what branch `staged` generates (gen6: the refill before the loop) and gen6 without the refill (gen6nr: the band's first two planes through the staged path, storing from the third); SASS of gen6nr.
# (2) branch `staged` built for CUDA (bin-s): its tests with the JIT at np 1 and 2, tessera-bench stencil27 --n 510 staged (refill), staged with warm-up planes (TESSERA_EXPERIMENT_WARMUP=1) and the committed kernel (TESSERA_EXPERIMENT_NO_TILES=1), alternating; the app's check; the tests with warm-up planes; torch.compile on the same card. Steps skipped past time limits (the summary says which ran).
set -u
cd "$(dirname "$0")"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.memory --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
late() { [ $((SECONDS - T0)) -gt $1 ] && { say "skipped past $1 s: $2"; return 0; }; return 1; }
export PATH=/usr/local/cuda/bin:$PATH
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
(cd h27r
 ./nvc gen6nr.cu /tmp/gen6nr.cubin && cuobjdump -sass /tmp/gen6nr.cubin | sed 's|/\* 0x[0-9a-f]* \*/||' > $OUT/gen6nr.sass; say "sass gen6nr rc=$?"
 timeout 60 ./h27r none6.cu hand6.cu gen6.cu gen6nr.cu >> $OUT/h27r.jsonl 2>&1; say "h27r rc=$?")
say "harness done at $((SECONDS - T0)) s"
tar xJf bins-s.tar.xz
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/cache-s TESSERA_JIT_WAIT=1 PYTHONUNBUFFERED=1
B=bin-s
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
V=("staged:X=0" "committed:TESSERA_EXPERIMENT_NO_TILES=1" "warmup:TESSERA_EXPERIMENT_WARMUP=1")
for v in "${V[@]}"; do env ${v#*:} timeout 60 mpirun -n 1 --bind-to none $B/tessera-bench stencil27 --n 510 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null; done
say "cache filled at $((SECONDS - T0)) s"
tst() {  # np test [env]
  env ${3:-X=0} timeout 90 mpirun -n $1 --bind-to none --oversubscribe $B/$2 > $OUT/t.txt 2>&1 < /dev/null
  say "${3:-} $2 np$1 rc=$? $(grep -aE '\[  PASSED  \]|\[  FAILED  \]' $OUT/t.txt | sort -u | tr '\n' ' ')"
  grep -a "FAILED \|Failure" $OUT/t.txt | head -4 >> $S
  { echo "== ${3:-} $2 np$1"; cat $OUT/t.txt; } >> $OUT/tests.txt
}
for t in test_stencils test_fusion_programs test_batching; do late 180 "$t np1" || tst 1 $t; done
for round in 1 2; do
  for v in "${V[@]}"; do
    late 260 "bench ${v%%:*} r$round" && continue
    env ${v#*:} timeout 60 mpirun -n 1 --bind-to none $B/tessera-bench stencil27 --n 510 --iters 20 --warmup 5 --json > $OUT/r.txt 2>&1 < /dev/null
    say "stencil27 512^3 ${v%%:*} [r$round] rc=$? $(grab $OUT/r.txt)"
    grep '^{' $OUT/r.txt >> $OUT/stencil27.jsonl
  done
done
for np in 1 2; do
  late 280 "app np$np" && continue
  timeout 60 mpirun -n $np --bind-to none --oversubscribe $B/tessera-stencil27 --n 126 --iters 5 --check > $OUT/t.txt 2>&1 < /dev/null
  say "stencil27 app --n 126 --check np$np rc=$? $(grep -a 'check\|kernels per' $OUT/t.txt | tr '\n' ' ')"
done
for t in test_stencils test_fusion_programs; do late 300 "$t np2" || tst 2 $t; done
for t in test_stencils test_fusion_programs; do late 320 "warm-up $t np1" || tst 1 $t TESSERA_EXPERIMENT_WARMUP=1; done
late 330 "torch.compile" || { timeout 60 python3 ../bench/peers/stencil27.py --system torch-compile --n 512 --iters 20 --json > $OUT/torch.txt 2>&1 < /dev/null; say "torch.compile rc=$? $(grep -o '"ms_per_iter": [0-9.]*' $OUT/torch.txt)"; }
say "done at $((SECONDS - T0)) s"
rm -f $OUT/r.txt $OUT/t.txt
cat $S; cut -c1-120 $OUT/h27r.jsonl
