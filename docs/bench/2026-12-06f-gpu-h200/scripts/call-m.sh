#!/usr/bin/env bash
# Session 2026-12-06 (sixth), call M: issue 16/17/18/20's H200 goals measured with HEAD's kernels
# (bin-b: ed97376 + batching, which changes no kernel of these workloads), JIT, one rank, two
# rounds after a cache-filling pass; torch.compile for the same workloads in the same call.
set -u
cd "$(dirname "$0")"
tar xJf bins-hb.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1 TESSERA_CACHE_DIR=/tmp/cache-m
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
cd ..
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"allocs_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
W=("black_scholes --n 134217728" "cg --n 8192" "stencil --n 16384" "stencil27 --n 510" "axis_sum --n 4096 --rows 32768"
   "center --n 4096 --rows 32768" "jacobi --n 32768")
for w in "${W[@]}"; do timeout 60 mpirun -n 1 --bind-to none .device/bin-b/tessera-bench $w --iters 2 --warmup 1 > /dev/null 2>&1 < /dev/null; done
say "caches filled at $((SECONDS - T0)) s"
for round in 1 2; do
  for w in "${W[@]}"; do
    timeout 60 mpirun -n 1 --bind-to none .device/bin-b/tessera-bench $w --iters 20 --warmup 5 --json > $OUT/r.txt 2>&1 < /dev/null
    say "tessera $w [r$round] rc=$? $(grab $OUT/r.txt)"
  done
  say "  round $round at $((SECONDS - T0)) s"
done
for w in "black_scholes --n 134217728" "stencil --n 16384" "cg --n 8192" "stencil27 --n 510"; do
  [ $((SECONDS - T0)) -gt 480 ] && { say "peers cut before $w"; break; }
  name=${w%% *}
  timeout 120 python3 bench/peers/$name.py --system torch-compile ${w#* } --iters 20 --warmup 5 --json > $OUT/p.txt 2>&1 < /dev/null
  say "torch-compile $w rc=$? $(grep -o '"ms_per_iter": [0-9.]*' $OUT/p.txt | tr '\n' ' ') at $((SECONDS - T0)) s"
done
say "done at $((SECONDS - T0)) s"
rm -f $OUT/r.txt $OUT/p.txt
cat $S
