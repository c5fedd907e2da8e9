"""Turns the JSON lines of tessera-bench and the peers into a markdown table and a bar chart.

    python3 bench/plot.py OUT/results.jsonl --out OUT     # writes OUT/results.md, OUT/results.png

One table per workload: a row per system (tessera's backend named) and GPU count, with ms per
iteration, the best round, GB/s of the minimal bytes, the speed relative to the hand-written
baseline at the same GPU count (tessera fused where a workload has none), kernels and bytes per
iteration (tessera's own accounting), the check, and how far the checksum is from the
baseline's (same inputs: rounding only; relative, absolute below 1). Skipped
and failed runs are listed below. The chart shows milliseconds per iteration (the slowest rank's
mean; lower is better), a panel per workload with its own scale and a group of bars per GPU count;
it needs matplotlib, without which only the table is written.
"""

import argparse
import json
import os
import sys

ORDER = ["expert", "tessera/jit", "tessera/interp", "tessera-unfused/jit", "tessera-unfused/interp", "jax",
         "jax-sharded", "torch-compile", "torch", "cupy", "numpy"]


def label(rec):
    system = rec.get("system", "?")
    if system.startswith("tessera"):
        asked = rec.get("backend_requested", "auto")
        ran = rec.get("backend", asked)  # a run that failed says only what was asked
        # A build without the JIT runs the interpreter when asked for it: say so.
        return f"{system}/{ran}" + ("" if asked in (ran, "auto") else f" ({asked} asked)")
    return system


def rank(name):
    return ORDER.index(name) if name in ORDER else len(ORDER)


def load(path):
    records, bad = [], 0
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                bad += 1
    if bad:
        print(f"plot: {bad} unreadable line(s) in {path}", file=sys.stderr)
    return records


def number(v, fmt):
    return "—" if v is None else format(v, fmt)


def reference(rows):
    """What a workload's rows are compared with: the hand-written baseline, or where the workload
    has none (the array-language workloads), tessera fused."""
    for name in ("expert", "tessera/jit", "tessera/interp"):
        if any(label(r) == name for r in rows):
            return name
    return "expert"


def agreement(r, expert):
    """Every system computes the same problem from the same inputs: checksums agree up to rounding."""
    same = [e for e in expert if all(e.get(k) == r.get(k) for k in ("n", "rows", "iters", "warmup"))]
    if not same or r.get("checksum") is None or same[0].get("checksum") is None:
        return "—"
    a, b = r["checksum"], same[0]["checksum"]
    diff = abs(a - b) / max(abs(b), 1.0)  # absolute below 1 (center's checksum is zero up to rounding)
    return f"{diff:.0e}" if diff <= 1e-6 else f"**differs: {diff:.1e}**"


def table(records):
    measured = [r for r in records if r.get("ms_per_iter") is not None and r.get("check") in ("ok", "unvalidated")]
    others = [r for r in records if r not in measured]
    lines = []
    for workload in sorted({r["workload"] for r in measured}):
        rows = [r for r in measured if r["workload"] == workload]
        ref = reference(rows)
        lines += [f"### {workload}", "",
                  f"| GPUs | system | ms/iter | best round | GB/s (minimal bytes) | speed vs {ref} | kernels/iter | "
                  f"GB moved/iter | check | checksum vs {ref} |",
                  "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"]
        for r in sorted(rows, key=lambda r: (r["ranks"], rank(label(r)))):
            expert = [e for e in rows if label(e) == ref and e["ranks"] == r["ranks"]]
            versus = f"{expert[0]['ms_per_iter'] / r['ms_per_iter']:.2f}×" if expert else "—"
            moved = None if r.get("bytes_per_iter") is None else r["bytes_per_iter"] / 1e9
            lines.append(f"| {r['ranks']} | {label(r)} | {r['ms_per_iter']:.3f} | {r['ms_per_iter_min']:.3f} | "
                         f"{r['gbps']:.1f} | {versus} | {number(r.get('kernels_per_iter'), '.2f')} | "
                         f"{number(moved, '.3f')} | {r['check']} | {agreement(r, expert)} |")
        lines.append("")
    if others:
        lines += ["### Not measured", "", "| workload | GPUs | system | outcome |", "| --- | ---: | --- | --- |"]
        for r in others:
            why = r.get("skipped") or r.get("error") or r.get("check_detail") or r.get("check")
            lines.append(f"| {r.get('workload')} | {r.get('ranks')} | {label(r)} | "
                         f"{r.get('check')}: {str(why).replace('|', '/')} |")
        lines.append("")
    return "\n".join(lines)


def chart(records, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # missing, or installed but broken: the table is still worth having
        print(f"plot: no chart (matplotlib: {e}); the table is written", file=sys.stderr)
        return False
    measured = [r for r in records if r.get("ms_per_iter") is not None and r.get("check") in ("ok", "unvalidated")]
    workloads = sorted({r["workload"] for r in measured})
    if not workloads:
        print("plot: nothing measured to chart", file=sys.stderr)
        return False
    systems = sorted({label(r) for r in measured}, key=rank)
    colors = {s: f"C{k % 10}" for k, s in enumerate(systems)}
    fig, axes = plt.subplots(1, len(workloads), figsize=(5 * len(workloads), 4.5), squeeze=False)
    for ax, workload in zip(axes[0], workloads):
        mine = [r for r in measured if r["workload"] == workload]
        counts = sorted({r["ranks"] for r in mine})
        present = [s for s in systems if any(label(r) == s for r in mine)]
        width = 0.8 / max(1, len(present))
        for k, system in enumerate(present):
            xs, ys = [], []
            for g, ranks in enumerate(counts):
                hit = [r for r in mine if r["ranks"] == ranks and label(r) == system]
                if hit:
                    xs.append(g + (k - (len(present) - 1) / 2) * width)
                    ys.append(hit[0]["ms_per_iter"])
            ax.bar(xs, ys, width, label=system, color=colors[system])
        ax.set_xticks(range(len(counts)))
        ax.set_xticklabels([f"{c} GPU{'s' if c > 1 else ''}" for c in counts])
        ax.set_title(workload)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("ms per iteration (lower is better)")
    handles = {}
    for ax in axes[0]:
        for h, name in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(name, h)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=min(6, len(handles)), fontsize="small")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(path, dpi=120)
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", help="a file of JSON lines (run_all.sh's results.jsonl)")
    p.add_argument("--out", default=".", help="folder for results.md and results.png")
    o = p.parse_args()
    records = load(o.results)
    os.makedirs(o.out, exist_ok=True)
    md = os.path.join(o.out, "results.md")
    with open(md, "w") as f:
        f.write(table(records))
    print(f"plot: wrote {md}", file=sys.stderr)
    png = os.path.join(o.out, "results.png")
    if chart(records, png):
        print(f"plot: wrote {png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
