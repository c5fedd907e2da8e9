#!/usr/bin/env bash
# Session 2026-12-04 (third), call G: the carry rule. Committed rule (carry where a computed value
# is carried, or two thirds of the loaded views are paired) against the two-thirds rule alone
# (TESSERA_EXPERIMENT_TWO_THIRDS=1, an experiment knob of these binaries only), two alternating
# rounds on the workloads whose kernels change; then the tests with the JIT at np 1 and 2.
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
grab() { grep -o '"ms_per_iter": [0-9.]*\|"ms_per_iter_min": [0-9.]*\|"kernels_per_iter": [0-9.]*\|"check": "[a-z]*"' "$1" | tr '\n' ' '; }
rule() { if [ $1 = old ]; then export TESSERA_EXPERIMENT_TWO_THIRDS=1; else unset TESSERA_EXPERIMENT_TWO_THIRDS; fi; }
for w in "shallow_water --n 8190" "stencil --n 16384" "stencil27 --n 510" "cg --n 8192" "black_scholes --n 134217728"; do
  for round in 1 2; do
    for r in old new; do
      rule $r
      timeout 60 mpirun -n 1 --bind-to none bin/tessera-bench $w --iters 20 --warmup 5 --json > $OUT/r.txt 2>&1 < /dev/null
      echo "$w rule=$r round $round $(grab $OUT/r.txt)" >> $S
    done
  done
done
for a in "shallow-water --n 4096 --iters 50" "cfd --n 1025 --iters 20 --nit 50"; do
  for round in 1 2; do
    for r in old new; do
      rule $r
      timeout 90 mpirun -n 1 --bind-to none bin/tessera-$a --warmup 2 > $OUT/a.txt 2>&1 < /dev/null
      echo "app $a rule=$r round $round: $(grep -E 'per iteration' $OUT/a.txt | head -2 | tr '\n' ' ')" >> $S
    done
  done
done
unset TESSERA_EXPERIMENT_TWO_THIRDS
echo "benchmarks done at $((SECONDS - T0)) s" >> $S
for np in 1 2; do
  timeout 60 mpirun -n $np --bind-to none --oversubscribe bin/tessera-shallow-water --n 128 --iters 10 --check > $OUT/app-sw-np$np.txt 2>&1 < /dev/null
  echo "app shallow_water np$np rc=$? $(grep -i check $OUT/app-sw-np$np.txt | tr '\n' ' ')" >> $S
done
for t in test_fusion_programs test_stencils; do
  for np in 1 2; do
    timeout 120 mpirun -n $np --bind-to none --oversubscribe bin/$t > $OUT/$t.np$np.txt 2>&1 < /dev/null
    echo "$t np$np rc=$? $(grep -E 'PASSED|FAILED' $OUT/$t.np$np.txt | tr '\n' ' ')" >> $S
  done
done
TESSERA_FUZZ_PROGRAMS=12 timeout 150 mpirun -n 1 --bind-to none bin/test_fuzz > $OUT/fuzz.np1.txt 2>&1 < /dev/null
echo "fuzz np1 rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED' $OUT/fuzz.np1.txt | tr '\n' ' ')" >> $S
TESSERA_FUZZ_PROGRAMS=6 timeout 100 mpirun -n 2 --bind-to none --oversubscribe bin/test_fuzz > $OUT/fuzz.np2.txt 2>&1 < /dev/null
echo "fuzz np2 rc=$? $(grep -E '\[fuzz\] [0-9]|PASSED|FAILED' $OUT/fuzz.np2.txt | tr '\n' ' ')" >> $S
echo "end at $((SECONDS - T0)) s" >> $S
cat $S
