#!/usr/bin/env bash
# Runs the applications of apps/ (issue 19) fused and unfused, and their peers, at the sizes of
# docs/BENCHMARKS.md, in one call; each measurement is one JSON line in OUT/apps.jsonl, progress
# goes to stderr (and OUT/run_apps.log); at the end apps_table.py writes OUT/apps.md.
#
#   bench/run_apps.sh APPS_BIN_DIR OUT_DIR
#
# APPS_BIN_DIR holds tessera-<app> (e.g. build/apps). Every program runs on one rank with
# --warmup WARMUP (its first iterations, dropped, as the peers' harness drops them) after an
# untimed run that fills the kernel cache; fused runs pass --check except logreg and linreg
# (logreg's fixed rate overshoots at this size, linreg's check reads sum(error^2) every step, a
# host round trip the peers do not make; both are compared with NumPy in CTest). Each app's
# arguments are its peer module's GPU_ARGS (bench/peers/apps/<app>.py). Environment overrides
# (defaults in brackets): APPS [all nine], SIZES [gpu; check: each app's CHECK_ARGS, the CTest
# sizes, for a quick run anywhere], VARIANTS ["tessera tessera-unfused"; empty: the peers only],
# PEERS ["cupy torch jax torch-compile"; empty: none], PEER_CHECK [1: each peer also runs at the
# CTest sizes and is compared with the NumPy twin; 0 skips that second run and its compile],
# RUNS [1: timed runs of each tessera variant; the table takes the fastest], WARMUP [2],
# RUN_TIMEOUT [600 s per run], MPIRUN [mpirun], PYTHON [python3].
# A run that fails or whose check fails is recorded and the script goes on; it exits 1 if any did.
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 APPS_BIN_DIR OUT_DIR" >&2
  exit 2
fi
BIN=$(cd "$1" && pwd) || exit 2
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
RESULTS=$OUT/apps.jsonl
LOG=$OUT/run_apps.log
: >"$RESULTS"
: >"$LOG"

APPS=${APPS:-"stencil27 shallow_water cfd jacobi logreg linreg kmeans multigrid sparse_cg"}
SIZES=${SIZES:-gpu}
case $SIZES in
  gpu) ARGS_NAME=GPU_ARGS ;;
  check) ARGS_NAME=CHECK_ARGS ;;
  *) echo "run_apps: SIZES is gpu or check" >&2; exit 2 ;;
esac
VARIANTS=${VARIANTS-"tessera tessera-unfused"}
PEERS=${PEERS-"cupy torch jax torch-compile"}
PEER_CHECK=${PEER_CHECK:-1}
RUNS=${RUNS:-1}
WARMUP=${WARMUP:-2}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
MPIRUN=${MPIRUN:-mpirun}
PYTHON=${PYTHON:-python3}

export NCCL_NVLS_ENABLE=0          # NVLink multicast off (docs/GPU.md)
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the checkout
export TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-$OUT/kernel-cache}
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

log() { echo "[run_apps $(date +%H:%M:%S)] $*" | tee -a "$LOG" >&2; }
failures=0

# app_args APP: the peer module's GPU_ARGS (or CHECK_ARGS) string.
app_args() { sed -n "s/^$ARGS_NAME = \"\(.*\)\".*/\1/p" "$HERE/peers/apps/$1.py"; }

# field TEXT PATTERN: the first number after PATTERN in TEXT, or null.
field() {
  local v
  v=$(printf '%s\n' "$1" | sed -n "s/.*$2 \([0-9.eE+-]*\).*/\1/p" | head -1)
  echo "${v:-null}"
}

for app in $APPS; do
  [ -f "$HERE/peers/apps/$app.py" ] || { echo "run_apps: no app $app (APPS)" >&2; exit 2; }
  program=$BIN/tessera-${app//_/-}
  [ -z "$VARIANTS" ] || [ -x "$program" ] || { echo "run_apps: no executable $program" >&2; exit 2; }
  read -r -a args <<<"$(app_args "$app")"
  check=(--check)
  case $app in logreg | linreg) check=() ;; esac
  for system in $VARIANTS; do
    case $system in
      tessera) fusion=1 ;;
      tessera-unfused) fusion=0 ;;
      *) echo "run_apps: no variant $system (VARIANTS)" >&2; exit 2 ;;
    esac
    opts=("${args[@]}" --warmup "$WARMUP")
    [ "$fusion" = 1 ] && opts+=("${check[@]}")
    log "kernel cache warm-up (untimed): $app $system"
    TESSERA_FUSION=$fusion timeout "$RUN_TIMEOUT" $MPIRUN -n 1 --bind-to none "$program" "${opts[@]}" \
      >/dev/null 2>>"$LOG" || log "warm-up of $app $system failed"
    for run in $(seq "$RUNS"); do
      log "$app $system run $run: ${opts[*]}"
      text=$(TESSERA_FUSION=$fusion timeout "$RUN_TIMEOUT" $MPIRUN -n 1 --bind-to none "$program" "${opts[@]}" 2>>"$LOG")
      rc=$?
      printf '%s\n' "$text" >>"$LOG"
      verdict=unchecked
      [ "$fusion" = 1 ] && [ ${#check[@]} -gt 0 ] && verdict=ok
      if [ $rc -ne 0 ]; then
        verdict=FAILED
        failures=$((failures + 1))
        log "FAILED ($app $system): exit status $rc"
      fi
      if [ "$app" = multigrid ]; then
        ms=$(field "$text" "time per V-cycle")
        pcg=$(field "$text" "per PCG iteration")
        kernels=$(field "$text" "kernels per V-cycle")
        bytes=$(field "$text" "bytes per V-cycle")
        pcg_kernels=$(field "$text" "kernels per PCG iteration")
        phases="{\"vcycle\": {\"ms_per_iter\": $ms}, \"pcg\": {\"ms_per_iter\": $pcg, \"kernels_per_iter\": $pcg_kernels}}"
      else
        ms=$(field "$text" "time per iteration")
        kernels=$(field "$text" "kernels per [a-z ]*iteration")  # sparse_cg: "per poisson cg iteration"
        bytes=$(field "$text" "bytes per [a-z ]*iteration")
        phases=null
      fi
      printf '{"workload": "apps/%s", "system": "%s", "ranks": 1, "args": "%s", "run": %s, "ms_per_iter": %s, "phases": %s, "kernels_per_iter": %s, "bytes_per_iter": %s, "check": "%s"}\n' \
        "$app" "$system" "${args[*]}" "$run" "$ms" "$phases" "$kernels" "$bytes" "$verdict" >>"$RESULTS"
    done
  done
  for peer in $PEERS; do
    extra=()
    [ "$PEER_CHECK" = 1 ] && extra+=(--check)
    # JAX's BCOO SpMV was faster than its BCSR one on the H200 (docs/BENCHMARKS.md, 2026-12-02).
    [ "$app" = sparse_cg ] && [ "$peer" = jax ] && extra+=(--jax-sparse bcoo)
    log "$app $peer"
    timeout "$RUN_TIMEOUT" "$PYTHON" "$HERE/peers/apps/run.py" "$app" --system "$peer" --warmup "$WARMUP" \
      --json "${extra[@]}" "${args[@]}" 2>>"$LOG" | grep '^{' >>"$RESULTS"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { failures=$((failures + 1)); log "FAILED ($app $peer)"; }
  done
done

"$PYTHON" "$HERE/apps_table.py" "$RESULTS" >"$OUT/apps.md" && cat "$OUT/apps.md"
log "$failures failed; results in $RESULTS"
[ $failures -eq 0 ]
