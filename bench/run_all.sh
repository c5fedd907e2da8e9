#!/usr/bin/env bash
# Runs every system of docs/BENCHMARKS.md at the issue's sizes, 1 and 2 GPUs weak-scaled, in one
# call; each measurement is one JSON line in OUT/results.jsonl, progress goes to stderr (and
# OUT/run_all.log); at the end plot.py writes OUT/results.md and, with matplotlib, OUT/results.png.
#
#   bench/run_all.sh BIN_DIR OUT_DIR
#
# BIN_DIR holds tessera-bench (e.g. build/bench). Sizes are per GPU; weak scaling multiplies the
# options (Black-Scholes) or the grid's rows (stencil, CG) by the number of GPUs. Environment
# overrides (defaults in brackets): RANKS ["1 2"], BS_N [2^27], BS_ITERS [20], STENCIL_N [16384],
# STENCIL_ITERS [50], CG_N [8192], CG_ITERS [50], WARMUP [3], PEERS ["jax cupy torch
# torch-compile"] (single-GPU peers, run at 1 GPU; jax-sharded runs at every count), PYTHON
# [python3], RUN_TIMEOUT [1800 s per run], MPIRUN [mpirun].
# A run that fails or whose check fails is recorded and the script goes on; it exits 1 if any did.
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 BIN_DIR OUT_DIR" >&2
  exit 2
fi
BIN=$(cd "$1" && pwd) || exit 2
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=$BIN/tessera-bench
[ -x "$BENCH" ] || { echo "run_all: no executable $BENCH" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
RESULTS=$OUT/results.jsonl
LOG=$OUT/run_all.log
: >"$RESULTS"
: >"$LOG"

RANKS=${RANKS:-"1 2"}
BS_N=${BS_N:-134217728}
BS_ITERS=${BS_ITERS:-20}
STENCIL_N=${STENCIL_N:-16384}
STENCIL_ITERS=${STENCIL_ITERS:-50}
CG_N=${CG_N:-8192}
CG_ITERS=${CG_ITERS:-50}
WARMUP=${WARMUP:-3}
PEERS=${PEERS:-"jax cupy torch torch-compile"}
PYTHON=${PYTHON:-python3}
RUN_TIMEOUT=${RUN_TIMEOUT:-1800}
MPIRUN=${MPIRUN:-mpirun}

export NCCL_NVLS_ENABLE=0                                 # NVLink multicast off (docs/GPU.md)
export PYTHONDONTWRITEBYTECODE=1                          # no __pycache__ in the checkout
export TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-$OUT/kernel-cache}
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

GPUS=0
if command -v nvidia-smi >/dev/null 2>&1; then GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); fi

log() { echo "[run_all $(date +%H:%M:%S)] $*" | tee -a "$LOG" >&2; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "bench: $BENCH"
  [ "$GPUS" -gt 0 ] && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  $MPIRUN --version 2>&1 | head -1
  $PYTHON --version 2>&1
} >"$OUT/environment.txt"

failures=0
total=0

# run DESCRIPTION FALLBACK COMMAND...: appends the command's JSON lines to the results; a run that
# printed none gets a line made of FALLBACK (a JSON object without its closing brace) and its
# exit status.
run() {
  local what=$1 fallback=$2
  shift 2
  total=$((total + 1))
  log "($total) $what"
  local out rc
  out=$(timeout "$RUN_TIMEOUT" "$@" 2> >(tee -a "$LOG" >&2))
  rc=$?
  local lines
  lines=$(printf '%s\n' "$out" | grep '^{' || true)
  if [ -n "$lines" ]; then printf '%s\n' "$lines" >>"$RESULTS"; fi
  if [ $rc -ne 0 ]; then
    failures=$((failures + 1))
    log "FAILED ($what): exit status $rc"
    if [ -z "$lines" ]; then
      printf '%s, "check": "FAILED", "error": "exit status %s (see run_all.log)"}\n' "$fallback" "$rc" >>"$RESULTS"
    fi
  elif printf '%s\n' "$lines" | grep -q '"check": "FAILED"'; then
    failures=$((failures + 1))
    log "CHECK FAILED ($what)"
  fi
}

for P in $RANKS; do
  if [ "$GPUS" -gt 0 ] && [ "$P" -gt "$GPUS" ]; then
    log "skipping $P GPUs: this machine has $GPUS"
    continue
  fi
  devices=$(seq -s, 0 $((P - 1)))
  for workload in black_scholes stencil cg; do
    case $workload in
      black_scholes) size=(--n $((BS_N * P))); iters=$BS_ITERS ;;
      stencil) size=(--n "$STENCIL_N" --rows $((STENCIL_N * P))); iters=$STENCIL_ITERS ;;
      cg) size=(--n "$CG_N" --rows $((CG_N * P))); iters=$CG_ITERS ;;
    esac
    common=("${size[@]}" --iters "$iters" --warmup "$WARMUP" --json)
    base="{\"workload\": \"$workload\", \"ranks\": $P, \"n\": ${size[1]}"
    for variant in "tessera --backend interp" "tessera --backend jit" "tessera-unfused --fusion off" \
      "expert --system expert"; do
      read -r system flags <<<"$variant"
      asked=auto
      case $flags in --backend*) asked=${flags#--backend } ;; --system*) asked=kokkos ;; esac
      # shellcheck disable=SC2086 # flags are words
      run "$workload $system ($flags) on $P rank(s)" \
        "$base, \"system\": \"$system\", \"backend_requested\": \"$asked\"" \
        $MPIRUN -n "$P" --bind-to none -x NCCL_NVLS_ENABLE -x TESSERA_CACHE_DIR \
        "$BENCH" "$workload" "${common[@]}" $flags
    done
    peers="jax-sharded"
    [ "$P" = 1 ] && peers="$PEERS jax-sharded"
    for system in $peers; do
      run "$workload $system on $P GPU(s)" "$base, \"system\": \"$system\"" \
        env CUDA_VISIBLE_DEVICES="$devices" "$PYTHON" "$HERE/peers/$workload.py" --system "$system" "${common[@]}"
    done
  done
done

log "$total runs, $failures failed; results in $RESULTS"
"$PYTHON" "$HERE/plot.py" "$RESULTS" --out "$OUT" 2>&1 | tee -a "$LOG" >&2
[ $failures -eq 0 ]
