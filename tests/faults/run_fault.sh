#!/usr/bin/env bash
# One fault or divergence scenario of tessera-fault-app (tests/fault_app.cpp) under mpiexec, with
# a hard limit of 60 s; the job must end within 30 s, with the status and messages the scenario
# expects. The elapsed time is measured (date +%s%N) and printed: it is what the test checks.
#
#   run_fault.sh MPIEXEC APP NP SCENARIO
#
# Scenarios: none, throw, throw-caught, abort, kill, exit (a rank fails mid-loop: non-zero exit),
# oom (one rank's allocation fails: it aborts the job naming the bytes and the memory space),
# throw-caught-nocheck (the same with TESSERA_CHECK_DIVERGENCE=0: the rank gives up after 10 s),
# stall (a rank stops making progress; with TESSERA_CHECK_DIVERGENCE=0 the others wait for it in
# halo exchanges or allreduces and give up after TESSERA_COMM_TIMEOUT=5 s),
# diverge-{extra,constant,view,dtype,shape,data,item,flush} (one rank's op stream differs: every rank's
# op is reported, then the job ends), diverge-eager and diverge-local (the same with
# TESSERA_FUSION=0), diverge-off (TESSERA_CHECK_DIVERGENCE=0: a divergence that needs no
# communication goes unnoticed and the job completes).
set -u
mpiexec=$1 app=$2 np=$3 scenario=$4
mode=$scenario
env_vars=()
case "$scenario" in
  diverge-eager) mode=diverge-extra; env_vars=(TESSERA_FUSION=0) ;;
  diverge-local) env_vars=(TESSERA_FUSION=0) ;;
  diverge-off) mode=diverge-local; env_vars=(TESSERA_FUSION=0 TESSERA_CHECK_DIVERGENCE=0) ;;
  throw-caught-nocheck) mode=throw-caught; env_vars=(TESSERA_CHECK_DIVERGENCE=0) ;;
  stall) env_vars=(TESSERA_CHECK_DIVERGENCE=0 TESSERA_COMM_TIMEOUT=5) ;;
esac

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s%N)
env ${env_vars[@]+"${env_vars[@]}"} timeout -k 5 60 "$mpiexec" -n "$np" --oversubscribe "$app" "$mode" \
  --n 64 --steps 400 --at 100 >"$log" 2>&1
status=$?
end=$(date +%s%N)
elapsed_ms=$(((end - start) / 1000000))
echo "scenario $scenario (mode $mode${env_vars[*]+, ${env_vars[*]}}) at np $np: exit status $status after $elapsed_ms ms"

fail() {
  echo "FAILED: $*"
  echo "---- output ----"
  cat "$log"
  exit 1
}
expect() {  # a fixed string that must be in the output
  grep -qF -- "$1" "$log" || fail "'$1' not in the output"
}

last=$((np - 1))
case "$scenario" in
  none | diverge-off)
    [ "$status" -eq 0 ] || fail "expected exit status 0"
    expect "fault_app: $mode: 400 steps"
    exit 0
    ;;
esac

[ "$status" -ne 0 ] || fail "expected a non-zero exit status"
[ "$status" -ne 124 ] && [ "$elapsed_ms" -lt 60000 ] || fail "the job hung: stopped by timeout after 60 s"
[ "$elapsed_ms" -lt 30000 ] || fail "the job took $elapsed_ms ms to end (limit 30000)"
expect "fault_app: rank $last of $np: $mode at step 100"
case "$scenario" in
  throw-caught) expect "rank $last of $np at op #"; expect "this rank leaves the tessera::Runtime's scope by an exception" ;;
  oom) expect "tessera: fatal: out of memory: rank $last could not allocate"; expect " bytes in the memory space Host for tessera::store" ;;
  stall) expect "s (TESSERA_COMM_TIMEOUT) for "; expect "without progress; a peer may have failed or stopped" ;;
  throw-caught-nocheck) expect "tessera: fatal: rank $last of $np leaves the tessera::Runtime's scope by an exception, and the other ranks did not do the same within 10 s" ;;
esac
[[ "$scenario" == diverge-* ]] || exit 0

# Divergence: rank 0 reports op #K for every rank, and every rank reports its own op #K.
index=$(sed -n "s/.*the ranks' op streams diverge at op #\([0-9]*\).*/\1/p" "$log" | head -n 1)
[ -n "$index" ] || fail "no divergence report"
for ((r = 0; r < np; ++r)); do
  expect "tessera:   rank $r of $np at op #$index: "
  [ "$r" -eq 0 ] || expect "tessera: fatal: op streams diverge: rank $r of $np at op #$index: "
done
odd_line=$(grep -F "tessera:   rank $last of $np at op #$index: " "$log" | head -n 1)
first_line=$(grep -F "tessera:   rank 0 of $np at op #$index: " "$log" | head -n 1)
odd_has() { [[ "$odd_line" == *"$1"* ]] || fail "rank $last's op should mention '$1': $odd_line"; }
first_has() { [[ "$first_line" == *"$1"* ]] || fail "rank 0's op should mention '$1': $first_line"; }
case "$scenario" in
  diverge-extra | diverge-eager | diverge-local) odd_has "multiply: reads array#"; odd_has "constant 3 (float64)" ;;
  diverge-constant) odd_has "constant 0.25 (float64)"; first_has "constant 0.20000000000000001 (float64)" ;;
  diverge-view) odd_has "view [1:63, 0:62]"; first_has "view [1:63, 2:64]" ;;
  diverge-dtype) odd_has "astype: reads array#"; odd_has "writes array#"; odd_has "float32" ;;
  diverge-shape) odd_has "zeros: writes array#"; odd_has "shape (65, 64)"; first_has "shape (64, 64)" ;;
  diverge-data) odd_has "from_host: writes array#"; first_has "from_host: writes array#" ;;
  diverge-item) odd_has "norm: reads array#"; odd_has "sum into 0-d array#"; first_has "add: reads array#" ;;
  diverge-flush) odd_has "no op #$index: this rank flushes (item(), to_host() or Runtime::flush())" ;;
esac
echo "divergence reported at op #$index: $odd_line"
exit 0
