#!/usr/bin/env python3
"""Plot dense N-body throughput against N from partcl_bench_dense JSON lines (one line per
measurement, as scripts/gpu-check.sh writes them): one curve per backend and precision, default
shapes only, with the fastest forced shape at the largest N marked.

    python3 scripts/plot_dense_gpu.py dense.jsonl docs/images/dense-h100.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main(source, target):
    rows = [json.loads(line) for line in open(source) if line.startswith("{")]
    if not rows:
        sys.exit(f"{source}: no measurements")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = {"cuda": "-", "opencl": "--"}
    colours = {"float": "tab:blue", "double": "tab:red"}
    # "parts_option" is the benchmark's --parts (0: automatic); 1 turns source parts off.
    for backend in ("cuda", "opencl"):
        for precision in ("float", "double"):
            for split in (True, False):
                line = sorted((r["n"], r["interactions_per_s"]) for r in rows
                              if r["backend"] == backend and r["precision"] == precision
                              and r["shape"] == "default" and not r["fast_math"]
                              and (r.get("parts_option", 0) != 1) == split)
                if not line:
                    continue
                ax.plot([n for n, _ in line], [v for _, v in line], styles[backend],
                        marker="o" if split else ".", alpha=1.0 if split else 0.4,
                        color=colours[precision],
                        label=f"{backend}, {precision} (default shape"
                              + ("" if split else ", no source parts") + ")")
            best = max((r for r in rows if r["backend"] == backend and r["precision"] == precision),
                       key=lambda r: r["interactions_per_s"])
            ax.plot([best["n"]], [best["interactions_per_s"]], marker="*", markersize=12,
                    color=colours[precision], linestyle="none",
                    markerfacecolor="white" if backend == "opencl" else colours[precision])
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bodies N")
    ax.set_ylabel("interactions per second")
    device = rows[0]["device"]
    ax.set_title(f"Dense N-body on {device}\n(stars: fastest shape measured at that N)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(target, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
