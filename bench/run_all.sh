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
# [python3], RUN_TIMEOUT [1800 s per run], MPIRUN [mpirun], WARM_CACHE [1: each tessera JIT
# configuration first runs untimed, so that the timed run starts with its kernels compiled].
# WORKLOADS ["black_scholes stencil cg"] picks the workloads; the array-language ones (axis_sum
# center kmeans_assign stencil27 shallow_water: tessera and the peers, no hand-written baseline)
# take AXIS_N [16384: a 16384 x 16384 matrix per GPU, rows weak-scaled], KMEANS_N [2^24 points per
# GPU], STENCIL27_N [512: a 514^3 grid], WATER_N [8192: 8194^2 grids] and ARRAY_ITERS [20];
# stencil27 and shallow_water keep their size at every GPU count (strong scaling). The products'
# workloads (jacobi gemm logreg sparse_cg: tessera and the peers) take JACOBI_N [32768: the
# matrix's order, the same at every GPU count], GEMM_N [8192, the same], LOGREG_N [10^7 samples
# per GPU, weak-scaled], SPARSE_N [4096: a 4096^2 grid of unknowns per GPU, rows weak-scaled],
# PRODUCT_ITERS [20; sparse_cg takes CG_ITERS].
# A run that fails or whose check fails is recorded and the script goes on; it exits 1 if any did.
#
# Profile pass, after the measurements: tessera fused with the JIT runs each workload once more at
# 1 rank and at the largest of RANKS, PROFILE_ITERS [10] iterations, under the kernel_timer Kokkos
# tool (bench/tools/kernel_timer.cpp): OUT/profile-<workload>-np<P>.jsonl (rank 0's kernels and
# regions) and .txt (the run's output and rank 0's table). These are not timing runs (the tool
# waits for the device at every kernel and region) and add nothing to results.jsonl; a failed one
# is logged and does not change the exit status. PROFILE [1 when KERNEL_TIMER exists, else 0],
# KERNEL_TIMER [BIN_DIR/tools/libtessera_kernel_timer.so, where CMake builds it].
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
WORKLOADS=${WORKLOADS:-"black_scholes stencil cg"}
AXIS_N=${AXIS_N:-16384}
KMEANS_N=${KMEANS_N:-16777216}
STENCIL27_N=${STENCIL27_N:-512}
WATER_N=${WATER_N:-8192}
ARRAY_ITERS=${ARRAY_ITERS:-20}
JACOBI_N=${JACOBI_N:-32768}
GEMM_N=${GEMM_N:-8192}
LOGREG_N=${LOGREG_N:-10000000}
SPARSE_N=${SPARSE_N:-4096}
PRODUCT_ITERS=${PRODUCT_ITERS:-20}
for workload in $WORKLOADS; do
  [ -f "$HERE/peers/$workload.py" ] || { echo "run_all: no workload $workload (WORKLOADS)" >&2; exit 2; }
done
WARMUP=${WARMUP:-3}
PEERS=${PEERS:-"jax cupy torch torch-compile"}
PYTHON=${PYTHON:-python3}
RUN_TIMEOUT=${RUN_TIMEOUT:-1800}
MPIRUN=${MPIRUN:-mpirun}
WARM_CACHE=${WARM_CACHE:-1}
KERNEL_TIMER=${KERNEL_TIMER:-$BIN/tools/libtessera_kernel_timer.so}
if [ -f "$KERNEL_TIMER" ]; then PROFILE=${PROFILE:-1}; else PROFILE=${PROFILE:-0}; fi
PROFILE_ITERS=${PROFILE_ITERS:-10}

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

# sizes WORKLOAD P: the options of the weak-scaled size at P ranks (as in the measurements).
sizes() {
  case $1 in
    black_scholes) echo "--n $((BS_N * $2))" ;;
    stencil) echo "--n $STENCIL_N --rows $((STENCIL_N * $2))" ;;
    cg) echo "--n $CG_N --rows $((CG_N * $2))" ;;
    axis_sum | center) echo "--n $AXIS_N --rows $((AXIS_N * $2))" ;;
    kmeans_assign) echo "--n $((KMEANS_N * $2))" ;;
    stencil27) echo "--n $STENCIL27_N" ;;
    shallow_water) echo "--n $WATER_N" ;;
    jacobi) echo "--n $JACOBI_N" ;;
    gemm) echo "--n $GEMM_N" ;;
    logreg) echo "--n $((LOGREG_N * $2))" ;;
    sparse_cg) echo "--n $SPARSE_N --rows $((SPARSE_N * $2))" ;;
  esac
}

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
  for workload in $WORKLOADS; do
    read -r -a size <<<"$(sizes "$workload" "$P")"
    case $workload in
      black_scholes) iters=$BS_ITERS ;;
      stencil) iters=$STENCIL_ITERS ;;
      cg | sparse_cg) iters=$CG_ITERS ;;
      jacobi | gemm | logreg) iters=$PRODUCT_ITERS ;;
      *) iters=$ARRAY_ITERS ;;
    esac
    common=("${size[@]}" --iters "$iters" --warmup "$WARMUP" --json)
    base="{\"workload\": \"$workload\", \"ranks\": $P, \"n\": ${size[1]}"
    variants=("tessera --backend interp" "tessera --backend jit" "tessera-unfused --fusion off")
    case $workload in black_scholes | stencil | cg) variants+=("expert --system expert") ;; esac
    for variant in "${variants[@]}"; do
      read -r system flags <<<"$variant"
      asked=auto
      case $flags in --backend*) asked=${flags#--backend } ;; --system*) asked=kokkos ;; esac
      if [ "$asked" != interp ] && [ "$asked" != kokkos ] && [ "$WARM_CACHE" = 1 ]; then
        # The JIT compiles each new fused program on first use (~70 ms, docs/JIT.md), and which
        # programs a run has depends on where its windows are cut (the op window grows; each
        # timed round ends with a flush): an untimed run of the same command first fills
        # TESSERA_CACHE_DIR, so the timed run loads compiled kernels (a warm start).
        log "kernel cache warm-up (untimed): $workload $system on $P rank(s)"
        # shellcheck disable=SC2086 # flags are words
        timeout "$RUN_TIMEOUT" $MPIRUN -n "$P" --bind-to none -x NCCL_NVLS_ENABLE -x TESSERA_CACHE_DIR \
          "$BENCH" "$workload" "${common[@]}" $flags >/dev/null 2>>"$LOG" ||
          log "kernel cache warm-up failed ($workload $system on $P rank(s)); the timed run compiles"
      fi
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

if [ "$PROFILE" = 1 ] && [ ! -f "$KERNEL_TIMER" ]; then
  log "profile pass skipped: no kernel timer library $KERNEL_TIMER (build the target tessera_kernel_timer)"
elif [ "$PROFILE" = 1 ]; then
  log "profile pass: per-kernel times under $KERNEL_TIMER; NOT timing runs (the device is synchronized" \
    "at every kernel and region), nothing goes to results.jsonl"
  largest=1
  for P in $RANKS; do [ "$P" -gt "$largest" ] && largest=$P; done
  profiled=0
  profile_failures=0
  for P in $(printf '%s\n' 1 "$largest" | sort -nu); do
    if [ "$GPUS" -gt 0 ] && [ "$P" -gt "$GPUS" ]; then continue; fi
    for workload in $WORKLOADS; do
      prefix=$OUT/profile-$workload-np$P
      profiled=$((profiled + 1))
      log "profile: $workload tessera (--backend jit) on $P rank(s), $PROFILE_ITERS iterations -> $prefix.txt"
      # Kokkos 4 reads KOKKOS_TOOLS_LIBS, Kokkos 3 KOKKOS_PROFILE_LIBRARY: both, the same path.
      # shellcheck disable=SC2046,SC2086 # sizes are words, MPIRUN may carry options
      if ! KOKKOS_TOOLS_LIBS=$KERNEL_TIMER KOKKOS_PROFILE_LIBRARY=$KERNEL_TIMER KERNEL_TIMER_JSON=$prefix.jsonl \
        timeout "$RUN_TIMEOUT" $MPIRUN -n "$P" --bind-to none -x NCCL_NVLS_ENABLE -x TESSERA_CACHE_DIR \
        -x KOKKOS_TOOLS_LIBS -x KOKKOS_PROFILE_LIBRARY -x KERNEL_TIMER_JSON \
        "$BENCH" "$workload" $(sizes "$workload" "$P") --iters "$PROFILE_ITERS" --warmup "$WARMUP" --backend jit \
        >"$prefix.txt" 2>&1; then
        profile_failures=$((profile_failures + 1))
        log "PROFILE FAILED ($workload on $P rank(s)): see $prefix.txt"
      fi
    done
  done
  log "profile pass: $profiled runs, $profile_failures failed"
fi
"$PYTHON" "$HERE/plot.py" "$RESULTS" --out "$OUT" 2>&1 | tee -a "$LOG" >&2
[ $failures -eq 0 ]
