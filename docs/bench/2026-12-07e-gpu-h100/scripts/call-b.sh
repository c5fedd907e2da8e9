#!/usr/bin/env bash
# Not run: prepared in the session, no machine could be started with the device time left.
# Session 2026-12-07 (fifth), call B (issue 20 item 1): executed instructions by opcode for the
# generated Black-Scholes kernel (g1) and the literal-constants rewrite (lit1) under Nsight Compute
# (bsr), and torch.compile's Triton kernel for the same program: its time, its instruction counts
# and SASS histogram (Inductor's cache filled by a first run, so that ncu sees only the kernel).
set -u
cd "$(dirname "$0")"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
export PATH=/usr/local/cuda/bin:$PATH
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__inst_executed_pipe_fp64.sum,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size
(cd bsr; for k in g1 lit1; do timeout 40 $NCU --print-metric-instances details --metrics $M -c 1 -k tessera_fused ./bsr --once $k.cu > $OUT/t.txt 2>&1; say "ncu $k rc=$?"; { echo "== $k"; grep -v '^{' $OUT/t.txt | grep -v "^==PROF=="; } >> $OUT/ncu.txt; done)
export TORCHINDUCTOR_CACHE_DIR=/tmp/ind TRITON_CACHE_DIR=/tmp/tri PYTHONUNBUFFERED=1
timeout 70 python3 ../bench/peers/black_scholes.py --system torch-compile --n 134217728 --iters 20 --json > $OUT/t.txt 2>&1 < /dev/null; say "torch.compile rc=$? $(grep -o '"ms_per_iter": [0-9.]*' $OUT/t.txt) at $((SECONDS - T0)) s"
timeout 80 $NCU --print-metric-instances details --metrics $M -k regex:triton -c 2 python3 ../bench/peers/black_scholes.py --system torch-compile --n 134217728 --iters 1 --warmup 1 > $OUT/t.txt 2>&1 < /dev/null; say "ncu torch rc=$? at $((SECONDS - T0)) s"
{ echo "== torch.compile"; grep -v '^{' $OUT/t.txt | grep -v "^==PROF==" | tail -120; } >> $OUT/ncu.txt
for c in $(find /tmp/tri -name "*.cubin" 2>/dev/null); do
  n=$(basename $c .cubin); cuobjdump -sass $c | sed 's|/\* 0x[0-9a-f]* \*/||' > /tmp/$n.sass
  { echo "== $n: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' /tmp/$n.sass) instructions, $(grep -o 'REG:[0-9]*' $(dirname $c)/*.json 2>/dev/null | head -1)"; grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' /tmp/$n.sass | awk '{print $NF}' | sort | uniq -c | sort -rn | tr '\n' ' '; echo; } >> $OUT/triton-sass-histograms.txt
  [ -e $OUT/triton.sass ] || cp /tmp/$n.sass $OUT/triton.sass
done
find /tmp/tri -name "*.ptx" | head -1 | while read f; do cp $f $OUT/; done
find /tmp/ind -name "*.py" -newer $S | xargs grep -l "def triton" 2>/dev/null | head -1 | while read f; do cp $f $OUT/inductor-kernel.py; done
say "done at $((SECONDS - T0)) s"; rm -f $OUT/t.txt
cat $S
