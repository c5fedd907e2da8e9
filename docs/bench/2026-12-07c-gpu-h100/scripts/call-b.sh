#!/usr/bin/env bash
# Session 2026-12-07 (third), call B: the marching kernel with views staged in shared memory
# (tiles, uncommitted) against the committed kernel (TESSERA_EXPERIMENT_NO_TILES=1) and the
# staged one at 5 blocks per SM (TESSERA_EXPERIMENT_MARCH_MINBLOCKS=5), one binary, JIT, warm
# cache, alternating rounds; tests and the app's check with the staged kernel; torch.compile.
set -u
cd "$(dirname "$0")"
tar xJf bins-b.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/bin-b/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/cache-b TESSERA_JIT_WAIT=1 PYTHONUNBUFFERED=1
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
B=bin-b
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
V=("tiles6:X=0" "none:TESSERA_EXPERIMENT_NO_TILES=1" "tiles5:TESSERA_EXPERIMENT_MARCH_MINBLOCKS=5")
for v in "${V[@]}"; do env ${v#*:} timeout 60 mpirun -n 1 --bind-to none $B/tessera-bench stencil27 --n 510 --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null; done
say "cache filled at $((SECONDS - T0)) s"
for t in test_fusion_programs test_stencils test_batching; do
  for np in 1 2; do
    timeout 90 mpirun -n $np --bind-to none --oversubscribe $B/$t > $OUT/$t-np$np.txt 2>&1 < /dev/null
    say "$t np$np rc=$? $(grep -aE '\[  PASSED  \]|\[  FAILED  \]' $OUT/$t-np$np.txt | sort -u | tr '\n' ' ')"
    grep -a "FAILED \|Failure" $OUT/$t-np$np.txt | head -4 >> $S
  done
done
for np in 1 2; do
  timeout 60 mpirun -n $np --bind-to none --oversubscribe $B/tessera-stencil27 --n 126 --iters 5 --check > $OUT/t.txt 2>&1 < /dev/null
  say "stencil27 app --n 126 --check np$np rc=$? $(grep -a 'check\|kernels per' $OUT/t.txt | tr '\n' ' ')"
done
for round in 1 2 3; do
  for v in "${V[@]}"; do
    [ $((SECONDS - T0)) -gt 300 ] && break 2
    env ${v#*:} timeout 60 mpirun -n 1 --bind-to none $B/tessera-bench stencil27 --n 510 --iters 20 --warmup 5 --json > $OUT/r.txt 2>&1 < /dev/null
    say "stencil27 512^3 ${v%%:*} [r$round] rc=$? $(grab $OUT/r.txt)"
    cat $OUT/r.txt | grep '^{' >> $OUT/stencil27.jsonl
  done
done
if [ $((SECONDS - T0)) -lt 330 ]; then
  timeout 150 python3 ../bench/peers/stencil27.py --system torch-compile --n 512 --iters 20 --json > $OUT/torch.txt 2>&1 < /dev/null
  say "torch.compile stencil27 512 rc=$? $(grep -o '"ms_per_iter": [0-9.]*' $OUT/torch.txt | tr '\n' ' ')"
fi
if [ $((SECONDS - T0)) -lt 480 ]; then
  timeout 60 mpirun -n 1 --bind-to none $B/tessera-multigrid --n 2049 --iters 20 --warmup 2 --check > $OUT/mg.txt 2>&1 < /dev/null
  say "multigrid 2049 rc=$? $(grep -E 'time per|kernels per V|recorded and launched by the host in .* per V|check' $OUT/mg.txt | tr '\n' ' ')"
fi
say "done at $((SECONDS - T0)) s"
rm -f $OUT/r.txt $OUT/t.txt
cat $S
