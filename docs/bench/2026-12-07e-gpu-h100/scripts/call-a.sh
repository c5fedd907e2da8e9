#!/usr/bin/env bash
# Session 2026-12-07 (fifth), call A (issue 20 item 1): Black-Scholes kernels as NVRTC compiles them
# (bsr: the generated kernel g1 and rewrites of it: constants as literals, 2 or 4 options a thread
# 256 apart or adjacent, tessera's own 2-element form g2), timed side by side and checked; Nsight
# Compute on four of them and on torch.compile's kernels; tessera-bench black_scholes beside
# torch.compile; then the other goals' workloads once each on this card.
set -u
cd "$(dirname "$0")"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
late() { [ $((SECONDS - T0)) -gt $1 ] && { say "skipped past $1 s: $2"; return 0; }; return 1; }
export PATH=/usr/local/cuda/bin:$PATH
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=smsp__inst_executed.sum,smsp__inst_executed_pipe_fp64.sum,smsp__thread_inst_executed.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,sass__inst_executed_per_opcode
(cd bsr
 mkdir -p /tmp/cub
 BSR_CUBINS=/tmp/cub timeout 120 ./bsr g1.cu s1.cu lit1.cu s2.cu a2.cu g2.cu lits2.cu lita2.cu s4.cu lits4.cu lm2.cu > $OUT/bsr.jsonl 2>&1; say "bsr rc=$? at $((SECONDS - T0)) s"
 for k in g1 s2 a2 lit1 g2; do
   cuobjdump -sass /tmp/cub/$k.cu.cubin | sed 's|/\* 0x[0-9a-f]* \*/||' > /tmp/cub/$k.sass
   { echo "== $k: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' /tmp/cub/$k.sass) instructions"; grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' /tmp/cub/$k.sass | awk '{print $NF}' | sort | uniq -c | sort -rn | tr '\n' ' '; echo; } >> $OUT/sass-histograms.txt
 done
 cp /tmp/cub/g1.sass $OUT/g1.sass
 for k in g1 s2 a2 lit1 s4; do
   late 120 "ncu $k" && continue
   timeout 60 $NCU --print-metric-instances values --metrics $M -c 1 -k tessera_fused ./bsr --once $k.cu > $OUT/t.txt 2>&1; say "ncu $k rc=$?"
   { echo "== $k"; grep -v '^{' $OUT/t.txt | grep -v "^==PROF==" ; } >> $OUT/ncu.txt
 done)
tar xJf bins-a.tar.xz
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/cache-a TESSERA_JIT_WAIT=1 PYTHONUNBUFFERED=1
B=bin-a
grab() { grep -o '"ms_per_iter": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
tb() {  # label args...
  local l=$1; shift
  timeout 60 mpirun -n 1 --bind-to none $B/tessera-bench "$@" --json > $OUT/r.txt 2>&1 < /dev/null
  say "$l rc=$? $(grab $OUT/r.txt)"; grep '^{' $OUT/r.txt >> $OUT/bench.jsonl
}
V=("auto:X=0" "e2-lane-major:TESSERA_JIT_ELEMENTS=2 TESSERA_EXPERIMENT_LANE_MAJOR=1" "e4-lane-major:TESSERA_JIT_ELEMENTS=4 TESSERA_EXPERIMENT_LANE_MAJOR=1")
C=("auto:X=0" "blocks4:TESSERA_EXPERIMENT_BLOCKS=4" "e2:TESSERA_JIT_ELEMENTS=2" "lane-major:TESSERA_EXPERIMENT_LANE_MAJOR=1")
tbe() {  # label env args...
  local l=$1 e=$2; shift 2
  env $e timeout 60 mpirun -n 1 --bind-to none $B/tessera-bench "$@" --json > $OUT/r.txt 2>&1 < /dev/null
  say "$l rc=$? $(grab $OUT/r.txt)"; grep '^{' $OUT/r.txt | sed "s/^{/{\"variant\": \"$l\", /" >> $OUT/bench.jsonl
}
for v in "${V[@]}"; do late 160 fill && break; tbe "bs fill ${v%%:*}" "${v#*:}" black_scholes --n 134217728 --iters 2 --warmup 1; done
for v in "${C[@]}"; do late 160 fill && break; tbe "cg fill ${v%%:*}" "${v#*:}" cg --n 8192 --iters 2 --warmup 1; done
for r in 1 2; do
  for v in "${V[@]}"; do late 200 "bs r$r" && break; tbe "black_scholes 2^27 ${v%%:*} [r$r]" "${v#*:}" black_scholes --n 134217728 --iters 20 --warmup 5; done
  for v in "${C[@]}"; do late 215 "cg r$r" && break; tbe "cg 8192^2 ${v%%:*} [r$r]" "${v#*:}" cg --n 8192 --iters 20 --warmup 5; done
done
late 230 "torch bs" || { timeout 80 python3 ../bench/peers/black_scholes.py --system torch-compile --n 134217728 --iters 20 --json > $OUT/t.txt 2>&1 < /dev/null; say "torch.compile bs rc=$? $(grep -o '"ms_per_iter": [0-9.]*' $OUT/t.txt)"; grep '^{' $OUT/t.txt >> $OUT/bench.jsonl; }
late 280 "ncu torch" || { TORCHINDUCTOR_CACHE_DIR=/tmp/ind timeout 50 $NCU --print-metric-instances values --metrics $M -k regex:triton python3 ../bench/peers/black_scholes.py --system torch-compile --n 134217728 --iters 1 --warmup 1 > $OUT/t.txt 2>&1 < /dev/null; say "ncu torch rc=$?"; { echo "== torch.compile"; grep -v '^{' $OUT/t.txt | grep -v "^==PROF==" | tail -150; } >> $OUT/ncu.txt; }
SV=("auto:X=0" "e4:TESSERA_JIT_ELEMENTS=4" "e4-lane-major:TESSERA_JIT_ELEMENTS=4 TESSERA_EXPERIMENT_LANE_MAJOR=1")
for v in "${SV[@]}"; do late 290 fill && break; tbe "stencil fill ${v%%:*}" "${v#*:}" stencil --n 16384 --iters 2 --warmup 1; done
for r in 1 2; do for v in "${SV[@]}"; do late 305 "stencil r$r" && break; tbe "stencil 16384^2 ${v%%:*} [r$r]" "${v#*:}" stencil --n 16384 --iters 20 --warmup 5; done; done
for w in "stencil27 --n 510" "center --n 4096 --rows 32768" "axis_sum --n 4096 --rows 32768"; do
  late 325 "$w" && continue
  tb "${w%% *} fill" $w --iters 2 --warmup 1 > /dev/null
  tb "$w" $w --iters 20 --warmup 5
done
say "done at $((SECONDS - T0)) s"; rm -f $OUT/r.txt $OUT/t.txt
cat $S
