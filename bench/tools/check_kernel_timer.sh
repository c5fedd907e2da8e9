#!/usr/bin/env bash
# The kernel_timer test: runs tessera-bench's stencil on 2 ranks under the kernel_timer Kokkos tool
# and checks the JSON lines each rank wrote: a tessera::fused[...] kernel called at least once per
# timed iteration with a positive time, and a tessera::halo[...] region (the ranks exchange halos).
# A tool that was not loaded, timed nothing, or wrote no file fails the test.
#   bash bench/tools/check_kernel_timer.sh <tessera-bench> <kernel_timer library> <work dir>
# MPIEXEC overrides the mpirun found on PATH; KOKKOS_TOOL_VARIABLES names the variables that point
# Kokkos at the tool, comma-separated (both names unless told; CTest passes the ones its Kokkos reads).
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 <tessera-bench> <kernel_timer library> <work dir>" >&2
  exit 2
fi
bench=$1
tool=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
work=$3
mpiexec=${MPIEXEC:-mpirun}
ranks=2
iters=20

rm -rf "$work"
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset KOKKOS_TOOLS_LIBS KOKKOS_PROFILE_LIBRARY KERNEL_TIMER_ALL_RANKS
IFS=, read -r -a variables <<< "${KOKKOS_TOOL_VARIABLES:-KOKKOS_TOOLS_LIBS,KOKKOS_PROFILE_LIBRARY}"
for variable in "${variables[@]}"; do export "$variable=$tool"; done
export KERNEL_TIMER_JSON=$work/timer.%r.jsonl

echo "--- $mpiexec -n $ranks $bench stencil --n 64 --rows 64 --iters $iters --warmup 2"
timeout 300 "$mpiexec" -n "$ranks" --oversubscribe "$bench" stencil --n 64 --rows 64 --iters "$iters" --warmup 2 \
  2> >(tee "$work/stderr" >&2)
wait  # for tee

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Prints the lines of $1 of kind $2 whose label starts with $3, as "calls total_ms".
lines() {
  awk -v kind="$2" -v prefix="$3" '
    function field(name,   m) {
      if (match($0, "\"" name "\": (\"[^\"]*\"|[-0-9.e+]+)")) {
        m = substr($0, RSTART + length(name) + 4, RLENGTH - length(name) - 4)
        gsub(/"/, "", m)
        return m
      }
      return ""
    }
    field("kind") == kind && index(field("label"), prefix) == 1 { print field("calls"), field("total_ms") }' "$1"
}

for ((r = 0; r < ranks; r++)); do
  f=$work/timer.$r.jsonl
  if [[ ! -s $f ]]; then
    fail "rank $r: the tool wrote nothing to $f (was it loaded?)"
    continue
  fi
  fused=$(lines "$f" kernel "tessera::fused[")
  if [[ -z $fused ]]; then
    fail "rank $r: no tessera::fused[ kernel in $f"
  elif ! awk -v n="$iters" '$1 >= n && $2 > 0 { ok = 1 } END { exit !ok }' <<< "$fused"; then
    fail "rank $r: no tessera::fused[ kernel with calls >= $iters and a positive time (calls ms: ${fused//$'\n'/; })"
  fi
  [[ -n $(lines "$f" region "tessera::halo[") ]] || fail "rank $r: no tessera::halo[ region in $f"
done
grep -q '^\[kernel_timer rank 0\] .*% kernels' "$work/stderr" || fail "rank 0 printed no table on stderr"
if grep -q '^\[kernel_timer rank 1\]' "$work/stderr"; then
  fail "rank 1 printed a table without KERNEL_TIMER_ALL_RANKS=1"
fi

if ((failures > 0)); then
  echo "kernel timer: $failures failure(s)"
  exit 1
fi
echo "kernel timer: every check passed on $ranks ranks"
