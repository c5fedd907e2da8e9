#!/usr/bin/env bash
# The profiler-labels test: runs tessera-labels-app on 2 ranks with the label_recorder Kokkos tool,
# fused (default) and eager (TESSERA_FUSION=0), and checks on every rank what the tool saw:
#   - kernels named tessera::fused[...] (fused) or tessera::op[...] (eager), and tessera::reduce[...];
#   - regions tessera::halo[...], tessera::redistribute[...], tessera::allreduce[sum],
#     tessera::allreduce[max] and tessera::gather, as many pops as pushes;
#   - no kernel without a label: every kernel name starts with tessera:: or Kokkos:: (an unlabeled
#     Kokkos kernel is named after its functor's type).
#   bash tests/tools/check_labels.sh <tessera-labels-app> <label_recorder library> <work dir>
# MPIEXEC overrides the mpirun found on PATH (CTest passes its own). KOKKOS_TOOL_VARIABLES names the
# variables that point Kokkos at the tool, comma-separated: Kokkos 4 reads KOKKOS_TOOLS_LIBS, Kokkos 3
# KOKKOS_PROFILE_LIBRARY; both unless told (CTest passes the one its Kokkos reads).
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 <tessera-labels-app> <label recorder library> <work dir>" >&2
  exit 2
fi
app=$1
tool=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
work=$3
mpiexec=${MPIEXEC:-mpirun}
ranks=2

rm -rf "$work"
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset KOKKOS_TOOLS_LIBS KOKKOS_PROFILE_LIBRARY
IFS=, read -r -a variables <<< "${KOKKOS_TOOL_VARIABLES:-KOKKOS_TOOLS_LIBS,KOKKOS_PROFILE_LIBRARY}"
for variable in "${variables[@]}"; do export "$variable=$tool"; done

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Does a line of $1 start with $2?
has() { awk -v p="$2" 'index($0, p) == 1 { found = 1 } END { exit !found }' "$1"; }

check_run() {
  local mode=$1 fusion=$2 kernel=$3 halo=$4
  local out=$work/$mode
  echo "--- $mode (TESSERA_FUSION=$fusion): $mpiexec -n $ranks $app"
  TESSERA_FUSION=$fusion TESSERA_LABELS_OUT=$out timeout 300 "$mpiexec" -n "$ranks" --oversubscribe "$app" ||
    fail "$mode: the application failed"
  for ((r = 0; r < ranks; r++)); do
    local f=$out.$r
    if [[ ! -s $f ]]; then
      fail "$mode rank $r: the tool wrote nothing to $f (was it loaded?)"
      continue
    fi
    local want
    for want in "for $kernel" "reduce tessera::reduce[" "region $halo" "region tessera::redistribute[" \
      "region tessera::allreduce[sum]" "region tessera::allreduce[max]" "region tessera::gather" \
      "region tessera::local_task[relax]" "for labels_app::relax"; do
      has "$f" "$want" || fail "$mode rank $r: no '$want...' in $f"
    done
    local unlabeled
    unlabeled=$(awk '($1 == "for" || $1 == "reduce" || $1 == "scan") && $2 !~ /^(tessera|Kokkos|labels_app)::/' "$f")
    [[ -z $unlabeled ]] || fail "$mode rank $r: kernels without a tessera:: or Kokkos:: label:"$'\n'"$unlabeled"
    grep -Eq '^finalize pushed=([0-9]+) popped=\1$' "$f" ||
      fail "$mode rank $r: regions not balanced or tool not finalized: $(grep '^finalize' "$f" || echo 'no finalize line')"
  done
  echo "rank 0 saw:"
  sed 's/^/  /' "$out.0"
}

check_run fused 1 "tessera::fused[" "tessera::halo[fused["
check_run eager 0 "tessera::op[" "tessera::halo[op["

if ((failures > 0)); then
  echo "profiler labels: $failures failure(s)"
  exit 1
fi
echo "profiler labels: every check passed on $ranks ranks, fused and eager"
