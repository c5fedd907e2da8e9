#!/usr/bin/env bash
# Session 2026-12-06 (fourth), call A: where multigrid's host time goes on the GPU machine (perf,
# Debian's, carried: self time per symbol over a long steady run), and multigrid beside JAX and
# torch.compile on the same card (issue 19: the V-cycle and PCG were compared across cards). Binaries of 797aeca.
set -u
cd "$(dirname "$0")"
tar xJf bins.tar.xz
tar xJf perf.tar.xz
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1 TESSERA_CACHE_DIR=/tmp/cache-a
PERF="env LD_LIBRARY_PATH=$PWD/perf/lib:$LD_LIBRARY_PATH $PWD/perf/perf"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
lscpu | grep -E "Model name|^CPU\(s\)|MHz" >> $S
T0=$SECONDS
say() { echo "$*" >> $S; }
cd ..  # the repository root
MG="--n 2049 --iters 20 --warmup 2 --check"
timeout 120 mpirun -n 1 --bind-to none .device/bin-a/tessera-multigrid $MG > /dev/null 2>&1 < /dev/null
say "cache filled at $((SECONDS - T0)) s"
for round in 1 2; do
  timeout 90 taskset -c 4 mpirun -n 1 --bind-to none .device/bin-a/tessera-multigrid $MG > $OUT/run.txt 2>&1 < /dev/null
  say "tessera multigrid $MG [r$round] rc=$? $(grep -E 'time per|recorded and launched|kernels per|^check' $OUT/run.txt | sed -E 's/, bytes per.*//' | tr '\n' ' ')"
  for sys in jax torch-compile; do
    timeout 150 taskset -c 4 python3 bench/peers/apps/run.py multigrid --system $sys --warmup 2 --json --n 2049 --iters 20 \
      > $OUT/peer.txt 2>&1 < /dev/null
    say "$sys multigrid [r$round] rc=$? $(grep '^{' $OUT/peer.txt | tr '\n' ' ')"
  done
  say "  round $round at $((SECONDS - T0)) s"
done
# The planner's memo (bin-b) against 797aeca (bin-a), alternately, pinned: steady loops (plan-cache
# hits) and the first run's planning.
export TESSERA_CACHE_DIR=/tmp/cache-ab
APPS=("multigrid --n 2049 --iters 20 --warmup 2" "cfd --n 1025 --iters 20 --nit 50 --warmup 2" "shallow_water --n 256 --iters 50 --warmup 2")
for a in "${APPS[@]}"; do name=${a%% *}; for v in a b; do timeout 90 mpirun -n 1 --bind-to none .device/bin-$v/tessera-${name//_/-} ${a#* } > /dev/null 2>&1 < /dev/null; done; done
for round in 1 2 3; do
  for a in "${APPS[@]}"; do
    name=${a%% *}
    for v in a b; do
      timeout 90 taskset -c 4 mpirun -n 1 --bind-to none .device/bin-$v/tessera-${name//_/-} ${a#* } > $OUT/run.txt 2>&1 < /dev/null
      say "$a [$v r$round] rc=$? $(grep -E 'time per|recorded and launched' $OUT/run.txt | tr '\n' ' ')"
    done
  done
done
say "A/B done at $((SECONDS - T0)) s"
# Where the host's time goes: a long steady run, sampled.
timeout 150 taskset -c 4 mpirun -n 1 --bind-to none $PERF record -F 4000 -e cpu-clock -o /tmp/mg.data \
  .device/bin-b/tessera-multigrid --n 2049 --iters 1500 --warmup 2 > $OUT/perf-run.txt 2>&1 < /dev/null
say "perf record rc=$? at $((SECONDS - T0)) s"
timeout 90 $PERF report -i /tmp/mg.data --stdio --no-children --sort dso,symbol --percent-limit 0.25 > $OUT/perf-self-multigrid.txt 2>&1
timeout 90 $PERF report -i /tmp/mg.data --stdio --no-children --sort dso --percent-limit 0.25 > $OUT/perf-dso-multigrid.txt 2>&1
say "report rc=$? at $((SECONDS - T0)) s"
rm -f $OUT/run.txt $OUT/peer.txt
cat $S
grep -v "^#" $OUT/perf-dso-multigrid.txt | head -20
grep -v "^#" $OUT/perf-self-multigrid.txt | cut -c1-150 | head -60
