#!/usr/bin/env python3
"""The applications' table of docs/BENCHMARKS.md from bench/run_apps.sh's JSON lines.

    python3 bench/apps_table.py OUT/apps.jsonl > OUT/apps.md

Per program: tessera fused and unfused (the fastest of their runs), the fused speedup, each
peer's ms per iteration, tessera against the best peer, and the kernels per iteration fused
(unfused); then the geometric mean of the fused speedups. Multigrid has two rows (the V-cycle
and the PCG iteration, both printed by tessera-multigrid and timed by the peers' harness).
"""

import json
import math
import sys

PEERS = ("cupy", "torch", "torch-compile", "jax", "numpy")


def rows(records):
    """{(program row name, system): (ms, kernels, check)}, the fastest run of each."""
    best = {}
    for rec in records:
        app = rec.get("workload", "").removeprefix("apps/")
        phases = rec.get("phases") or {}
        items = [(f"{app}, V-cycle", "vcycle"), (f"{app}, PCG", "pcg")] if app == "multigrid" else [(app, None)]
        for name, phase in items:
            src = rec if phase is None else (phases.get(phase) or {})
            # tessera-multigrid's V-cycle kernels are the record's own (printed first)
            kernels = src.get("kernels_per_iter", rec.get("kernels_per_iter") if phase == "vcycle" else None)
            ms, key = src.get("ms_per_iter"), (name, rec.get("system"))
            if key not in best or (ms is not None and (best[key][0] is None or ms < best[key][0])):
                best[key] = (ms, kernels, rec.get("check"))
    return best


def cell(v, fmt="{:.3f}"):
    return "—" if v is None else fmt.format(v)


def main(path):
    with open(path) as f:
        records = [json.loads(line) for line in f if line.startswith("{")]
    best = rows(records)
    peers = [p for p in PEERS if any(s == p for _, s in best)]
    names = list(dict.fromkeys(name for name, _ in best))
    print("| " + " | ".join(["program", "tessera fused", "unfused", "fused speedup"] + peers +
                            ["tessera against the best peer", "kernels/iter fused (unfused)", "checks"]) + " |")
    print("| " + " | ".join(["---", "---:", "---:", "---:"] + ["---:"] * len(peers) + ["---", "---:", "---"]) + " |")
    speedups = []
    for name in names:
        fused, unfused = best.get((name, "tessera")), best.get((name, "tessera-unfused"))
        f_ms = fused[0] if fused else None
        u_ms = unfused[0] if unfused else None
        speedup = u_ms / f_ms if f_ms and u_ms else None
        if speedup:
            speedups.append(speedup)
        peer_ms = {p: best[(name, p)][0] for p in peers if (name, p) in best and best[(name, p)][0]}
        against = "—"
        if f_ms and peer_ms:
            p, ms = min(peer_ms.items(), key=lambda kv: kv[1])
            ratio = ms / f_ms
            against = f"{ratio:.2f}× faster ({p})" if ratio >= 1 else f"{1 / ratio:.2f}× slower ({p})"
        kernels = f"{cell(fused[1] if fused else None, '{:.2f}')} ({cell(unfused[1] if unfused else None, '{:.2f}')})"
        checks = ", ".join(sorted({f"{s} {best[(name, s)][2]}" for s in ["tessera"] + peers if (name, s) in best}))
        print("| " + " | ".join([name, cell(f_ms), cell(u_ms), cell(speedup, "{:.2f}×")] +
                                [cell(peer_ms.get(p)) for p in peers] + [against, kernels, checks]) + " |")
    if speedups:
        mean = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        print(f"\nGeometric mean of the fused speedup over {len(speedups)} rows: {mean:.2f}×")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: apps_table.py APPS_JSONL")
    main(sys.argv[1])
