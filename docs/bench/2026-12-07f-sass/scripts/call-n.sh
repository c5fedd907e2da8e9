#!/usr/bin/env bash
# NOT RUN: prepared in the session of 2026-12-07 (seventh); five requests for a machine, none started.
# Needs bins-n.tar.xz: stripped tessera-bench and test_fuzz of a CUDA build with stride.patch and
# experiment-knobs-n.patch (not kept: built from the commit with `cmake --build build-cuda --target
# tessera-bench test_fuzz`, docs/GPU.md).
# Session 2026-12-07 (seventh), call N (issue 20): small floating constants as literals and 1-D
# kernels that stride (8 options a thread at 2^27), each switched off by an experiment variable
# (experiment-knobs-n.patch), on Black-Scholes (time and Nsight Compute), CG, stencil and shallow
# water; torch.compile's Black-Scholes on the same card; the fuzz corpus with both on.
set -u
cd "$(dirname "$0")"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
late() { [ $((SECONDS - T0)) -gt $1 ] && { say "skipped past $1 s: $2"; return 0; }; return 1; }
export PATH=/usr/local/cuda/bin:$PATH
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
tar xJf bins-n.tar.xz
export LD_LIBRARY_PATH=$PWD/bin-n/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TESSERA_CACHE_DIR=/tmp/cache-n TESSERA_JIT_WAIT=1 PYTHONUNBUFFERED=1
B=bin-n
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
tbe() {  # label env args...
  local l=$1 e=$2; shift 2
  env $e timeout 60 mpirun -n 1 --bind-to none $B/tessera-bench "$@" --json > $OUT/r.txt 2>&1 < /dev/null
  say "$l rc=$? $(grab $OUT/r.txt)"; grep '^{' $OUT/r.txt | sed "s/^{/{\"variant\": \"$l\", /" >> $OUT/bench.jsonl
}
V=("both:X=0" "no-literals:TESSERA_EXPERIMENT_NO_LITERALS=1" "no-stride:TESSERA_EXPERIMENT_NO_STRIDE=1" "neither:TESSERA_EXPERIMENT_NO_LITERALS=1 TESSERA_EXPERIMENT_NO_STRIDE=1")
for v in "${V[@]}"; do late 40 fill && break; tbe "bs fill ${v%%:*}" "${v#*:}" black_scholes --n 134217728 --iters 2 --warmup 1; done
for r in 1 2; do for v in "${V[@]}"; do late 80 "bs r$r" && break; tbe "black_scholes 2^27 ${v%%:*} [r$r]" "${v#*:}" black_scholes --n 134217728 --iters 20 --warmup 5; done; done
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
for v in "${V[@]}"; do
  late 100 "ncu ${v%%:*}" && break
  env ${v#*:} timeout 40 $NCU --metrics $M -k regex:tessera_fused -c 3 $B/tessera-bench black_scholes --n 134217728 --iters 1 --warmup 1 > $OUT/t.txt 2>&1 < /dev/null; say "ncu ${v%%:*} rc=$?"
  { echo "== ${v%%:*}"; grep -v '^{' $OUT/t.txt | grep -v "^==PROF==" ; } >> $OUT/ncu.txt
done
late 120 "torch bs" || { timeout 30 python3 ../bench/peers/black_scholes.py --system torch-compile --n 134217728 --iters 20 --json > $OUT/t.txt 2>&1 < /dev/null; say "torch.compile bs rc=$? $(grep -o '"ms_per_iter": [0-9.]*' $OUT/t.txt)"; grep '^{' $OUT/t.txt >> $OUT/bench.jsonl; }
late 130 fuzz || { TESSERA_BACKEND=jit TESSERA_FUZZ_PROGRAMS=2 timeout 30 mpirun -n 1 --bind-to none $B/test_fuzz --gtest_brief=1 > $OUT/t.txt 2>&1 < /dev/null; say "fuzz jit np1 rc=$? $(grep -c 'FAILED' $OUT/t.txt) FAILED lines"; tail -5 $OUT/t.txt >> $S; }
W=("both:X=0" "neither:TESSERA_EXPERIMENT_NO_LITERALS=1 TESSERA_EXPERIMENT_NO_STRIDE=1")
for w in "cg --n 8192" "shallow_water --n 4096" "stencil --n 16384"; do
  for v in "${W[@]}"; do late 145 "$w fill" && break; tbe "${w%% *} fill ${v%%:*}" "${v#*:}" $w --iters 2 --warmup 1; done
  for r in 1 2; do for v in "${W[@]}"; do late 150 "$w r$r" && break; tbe "$w ${v%%:*} [r$r]" "${v#*:}" $w --iters 20 --warmup 5; done; done
done
say "done at $((SECONDS - T0)) s"; rm -f $OUT/r.txt $OUT/t.txt
cat $S
