#!/usr/bin/env python3
"""Plots the tree's force error and speed against the opening angle, from the JSON lines of
benchmarks/tree.cpp (partcl_bench_tree).

    scripts/plot_tree_accuracy.py OUT.png BENCH.jsonl [BENCH.jsonl ...]

Left: median and 99th-percentile relative force error against the float64 direct sum. Right:
dense time over tree time (build + force) on the same device. One curve per device, N,
precision and traversal. Needs matplotlib (pip install matplotlib)."""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    curves = defaultdict(list)
    for path in argv[2:]:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                if r.get("bench") != "tree":
                    continue
                key = (r["device"], r["n"], r["precision"], r["traversal"])
                curves[key].append(r)
    if not curves:
        sys.exit("no tree benchmark lines in " + ", ".join(argv[2:]))
    fig, (err_ax, speed_ax) = plt.subplots(1, 2, figsize=(11, 4), dpi=120)
    for (device, n, precision, traversal), rows in sorted(curves.items()):
        rows.sort(key=lambda r: r["theta"])
        theta = [r["theta"] for r in rows]
        label = f"N = {n}, {precision}, {traversal}"
        if len({k[0] for k in curves}) > 1:
            label = device + ", " + label
        if traversal == "stackless":  # both walks sum the same nodes: one error curve
            line, = err_ax.semilogy(theta, [r["median_error"] for r in rows], "o-",
                                    label=f"N = {n}, {precision}: median")
            err_ax.semilogy(theta, [r["p99_error"] for r in rows], "s--", color=line.get_color(),
                            label=f"N = {n}, {precision}: 99th percentile")
        if all("speedup" in r for r in rows):
            speed_ax.plot(theta, [r["speedup"] for r in rows], "o-", label=label)
    err_ax.set_xlabel("opening angle θ")
    err_ax.set_ylabel("|a_tree − a_direct| / |a_direct|")
    err_ax.grid(True, which="both", alpha=0.3)
    err_ax.legend(fontsize=7)
    speed_ax.axhline(1.0, color="grey", lw=0.8)
    speed_ax.set_xlabel("opening angle θ")
    speed_ax.set_ylabel("dense time / tree time (build + force)")
    speed_ax.grid(True, alpha=0.3)
    speed_ax.legend(fontsize=7)
    fig.suptitle("Tree gravity on a Plummer sphere: accuracy and speed against dense")
    fig.tight_layout()
    fig.savefig(argv[1])


if __name__ == "__main__":
    main(sys.argv)
