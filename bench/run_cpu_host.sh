#!/usr/bin/env bash
# The CPU table of docs/BENCHMARKS.md (issue 22): on a host build, each of the three workloads at
# the issue's sizes, at 1 and 2 ranks, with tessera's host tier (a fresh kernel cache per run, so
# compile_ms is the first run's compile time), tessera's interpreter and the hand-written Kokkos
# baseline, then the NumPy peer (one process). One JSON line per measurement in OUT/results.jsonl,
# the load average before each in OUT/load.txt.
#
#   bench/run_cpu_host.sh BUILD_DIR OUT_DIR
#
# Environment: RANKS ["1 2"], PYTHON [python3], MPIRUN [mpiexec].
set -u
build=${1:?usage: run_cpu_host.sh BUILD_DIR OUT_DIR}
out=${2:?usage: run_cpu_host.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
: >"$out/results.jsonl"
: >"$out/load.txt"
bench="$build/bench/tessera-bench"
mpirun=${MPIRUN:-mpiexec}
python=${PYTHON:-python3}
workloads=("stencil --n 2048" "black_scholes --n 4194304" "cg --n 1024")
peers=("stencil.py --n 2048" "black_scholes.py --n 4194304" "cg.py --n 1024")
status=0
record() {  # label, command...
  echo "$(date -u +%H:%M:%S) $1: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"
  shift
  "$@" >>"$out/results.jsonl" 2>>"$out/run.log" || status=1
}
for np in ${RANKS:-1 2}; do
  for w in "${workloads[@]}"; do
    cache=$(mktemp -d)
    record "np$np $w host" env TESSERA_CACHE_DIR="$cache" \
      "$mpirun" -n "$np" --bind-to none "$bench" $w --backend jit --json
    rm -rf "$cache"
    record "np$np $w interp" "$mpirun" -n "$np" --bind-to none "$bench" $w --backend interp --json
    record "np$np $w expert" "$mpirun" -n "$np" --bind-to none "$bench" $w --system expert --json
  done
done
for p in "${peers[@]}"; do
  record "numpy $p" "$python" "$here/peers/"$p --system numpy --json
done
exit $status
