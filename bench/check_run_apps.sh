#!/usr/bin/env bash
# The bench_run_apps test: bench/run_apps.sh at the CTest sizes (SIZES=check, no peers) on three
# applications runs them fused and unfused, every fused --check passes, and apps_table.py gives
# each program's row (multigrid two) with both times, its fused speedup and its kernel counts.
#   bash bench/check_run_apps.sh <apps bin dir> <scratch dir>
# MPIEXEC overrides the mpirun found on PATH.
set -euo pipefail
bin=$1
out=$2
rm -rf "$out"
APPS="stencil27 multigrid sparse_cg" SIZES=check PEERS="" MPIRUN=${MPIEXEC:-mpirun} \
  bash "$(dirname "$0")/run_apps.sh" "$bin" "$out"
python3 - "$out/apps.jsonl" "$out/apps.md" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
fused = [r for r in records if r["system"] == "tessera"]
assert len(fused) == 3 and all(r["check"] == "ok" for r in fused), fused
assert all(r["ms_per_iter"] is not None and r["kernels_per_iter"] is not None for r in records), records
rows = [line for line in open(sys.argv[2]) if line.startswith("| ") and not line.startswith("| program")
        and not line.startswith("| ---")]
names = [row.split("|")[1].strip() for row in rows]
assert names == ["stencil27", "multigrid, V-cycle", "multigrid, PCG", "sparse_cg"], names
for row in rows:
    cells = [c.strip() for c in row.split("|")[2:-1]]
    assert "—" not in cells[:3], row  # fused, unfused, speedup
    assert cells[-2][0].isdigit() and "(—)" not in cells[-2], row  # kernels fused (unfused)
print("run_apps.sh:", len(records), "records,", len(rows), "rows")
PY
