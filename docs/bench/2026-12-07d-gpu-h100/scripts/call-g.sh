#!/usr/bin/env bash
# Session 2026-12-07 (fourth), call G: the plane after next loaded right after the next one is stored (gearly, as the working tree generates it) against the committed staged kernel (gen6), as NVRTC compiles them (h27r); then that build (bin-g): its tests with the JIT at np 1 (test_stencils, test_fusion_programs, test_batching) and 2, the app's check, tessera-bench stencil27 --n 510.
set -u
cd "$(dirname "$0")"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
export PATH=/usr/local/cuda/bin:$PATH
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
(cd h27r; timeout 40 ./h27r none6.cu hand6.cu gen6.cu gearly.cu > $OUT/h27r.jsonl 2>&1; say "h27r rc=$?")
tar xJf bins-g.tar.xz
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/cache-g TESSERA_JIT_WAIT=1
tst() {
  timeout 60 mpirun -n $1 --bind-to none --oversubscribe bin-g/$2 > $OUT/t.txt 2>&1 < /dev/null
  say "$2 np$1 rc=$? $(grep -aE '\[  PASSED  \]|\[  FAILED  \]' $OUT/t.txt | sort -u | tr '\n' ' ')"
  grep -a "FAILED \|Failure" $OUT/t.txt | head -4 >> $S
  { echo "== $2 np$1"; cat $OUT/t.txt; } >> $OUT/tests.txt
}
for t in test_stencils test_fusion_programs test_batching; do tst 1 $t; done
for np in 1 2; do timeout 40 mpirun -n $np --bind-to none --oversubscribe bin-g/tessera-stencil27 --n 126 --iters 5 --check > $OUT/t.txt 2>&1 < /dev/null; say "stencil27 app --check np$np rc=$? $(grep -a 'check' $OUT/t.txt | tr '\n' ' ')"; done
for r in 1 2; do timeout 40 mpirun -n 1 --bind-to none bin-g/tessera-bench stencil27 --n 510 --iters 20 --warmup 5 --json > $OUT/t.txt 2>&1 < /dev/null; say "stencil27 512^3 [r$r] rc=$? $(grep -o '"ms_per_iter": [0-9.]*' $OUT/t.txt)"; grep '^{' $OUT/t.txt >> $OUT/stencil27.jsonl; done
for t in test_stencils test_fusion_programs; do tst 2 $t; done
say "done at $((SECONDS - T0)) s"; rm -f $OUT/t.txt
cat $S; cut -c1-100 $OUT/h27r.jsonl
