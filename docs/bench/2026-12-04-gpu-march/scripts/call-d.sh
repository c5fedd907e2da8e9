#!/usr/bin/env bash
# Session 2026-12-04, call D: the marching kernel loading the next plane ahead
# (TESSERA_EXPERIMENT_MARCH_AHEAD=1) against the committed kernel, at 1 and 2 elements per thread
# (TESSERA_EXPERIMENT_MARCH_ELEMENTS), experiment knobs of these binaries only; ncu; correctness.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/lib:$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit TESSERA_CACHE_DIR=/tmp/tessera-cache
S=$OUT/summary.txt
nvidia-smi -L > $S
T0=$SECONDS
B="mpirun -n 1 --bind-to none bin/tessera-bench stencil27 --n 510"
grab() { grep -o '"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
run() {  # ahead elements tag
  if [ "$1" = 1 ]; then export TESSERA_EXPERIMENT_MARCH_AHEAD=1; else unset TESSERA_EXPERIMENT_MARCH_AHEAD; fi
  export TESSERA_EXPERIMENT_MARCH_ELEMENTS=$2
}
for v in "0 2" "1 2" "0 1" "1 1"; do run $v; $B --iters 3 --warmup 2 > /dev/null 2>&1 < /dev/null; done
for round in 1 2 3; do
  for v in "0 2" "1 2" "0 1" "1 1"; do
    run $v; set -- $v
    $B --iters 20 --json > $OUT/a$1-e$2.txt 2>&1 < /dev/null
    echo "stencil27 round $round ahead=$1 elements=$2 $(grab $OUT/a$1-e$2.txt)" >> $S
  done
done
echo "benchmarks done at $((SECONDS - T0)) s" >> $S
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
for v in "1 2" "1 1"; do
  run $v; set -- $v
  timeout 150 $NCU --kernel-name tessera_fused --launch-skip 0 --launch-count 8 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats --section InstructionStats \
    bin/tessera-bench stencil27 --n 510 --iters 3 --warmup 2 > $OUT/ncu-a$1-e$2.txt 2>&1 < /dev/null
  echo "ncu ahead=$1 elements=$2 rc=$?" >> $S
  python3 - $OUT/ncu-a$1-e$2.txt >> $S <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for part in re.split(r"\n(?=\s*tessera_fused \()", text):
    m = re.match(r"\s*tessera_fused \((\d+), (\d+), (\d+)\)x", part)
    if m and int(m[1]) * int(m[2]) * int(m[3]) > 1000:
        keep = r"Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Instructions  "
        print(part.splitlines()[0].strip())
        print("\n".join(l for l in part.splitlines() if re.search(keep, l)))
        break
PY
done
for v in "1 2" "1 1"; do
  run $v; set -- $v
  for np in 1 2; do
    mpirun -n $np --bind-to none --oversubscribe bin/tessera-stencil27 --n 126 --iters 10 --warmup 2 --check > $OUT/app.txt 2>&1 < /dev/null
    echo "app stencil27 ahead=$1 elements=$2 np$np rc=$? $(tail -2 $OUT/app.txt | tr '\n' ' ')" >> $S
    for t in test_fusion_programs test_stencils test_views test_fusion; do
      timeout 240 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/t.txt 2>&1 < /dev/null
      echo "$t ahead=$1 elements=$2 np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/t.txt | tr '\n' ' ')" >> $S
    done
  done
done
run 1 2
TESSERA_FUZZ_PROGRAMS=12 timeout 200 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.np1.txt 2>&1 < /dev/null
echo "fuzz ahead=1 elements=2 rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED' $OUT/fuzz.np1.txt | tr '\n' ' ')" >> $S
echo "end at $((SECONDS - T0)) s" >> $S
cat $S
