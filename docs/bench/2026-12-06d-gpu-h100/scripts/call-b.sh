#!/usr/bin/env bash
# Session 2026-12-06 (fourth), call B: the applications table in one call on one card (issue 19,
# item 3): each app fused and unfused (bench/run_apps.sh), then torch.compile and JAX, the peers
# that were best on every program so far (PEER_CHECK=0: their twins passed in earlier calls).
# Binaries of 97dec63 (bin-c).
set -u
cd "$(dirname "$0")"
tar xJf bins-c.tar.xz
REPO=$(cd .. && pwd)
NCCL=$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])')/lib
export LD_LIBRARY_PATH=$NCCL:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TESSERA_BACKEND=jit PYTHONUNBUFFERED=1 TESSERA_CACHE_DIR=/tmp/cache-c
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > $S
T0=$SECONDS
say() { echo "$*" >> $S; }
PEERS="" RUN_TIMEOUT=100 timeout $((330 - (SECONDS - T0))) bash $REPO/bench/run_apps.sh bin-c $OUT/apps > $OUT/apps-stdout.txt 2>&1
say "tessera fused and unfused: rc=$? at $((SECONDS - T0)) s"
left=$((570 - (SECONDS - T0)))
VARIANTS="" PEERS="torch-compile jax" PEER_CHECK=0 RUN_TIMEOUT=100 timeout $left bash $REPO/bench/run_apps.sh bin-c $OUT/peers > $OUT/peers-stdout.txt 2>&1
say "peers: rc=$? at $((SECONDS - T0)) s"
cat $OUT/apps/apps.jsonl $OUT/peers/apps.jsonl > $OUT/all.jsonl 2>/dev/null
python3 $REPO/bench/apps_table.py $OUT/all.jsonl > $OUT/all.md 2>&1
cat $S; cat $OUT/all.md
