#!/usr/bin/env python3
"""Plots a Plummer run's tree step against its force error, for the tree built every step with
theta alone and refitted between builds with or without the relative criterion
(partcl_bench_tree --evolve: "tree_evolve" lines), with issue 24's goals (1M bodies in 5 ms,
16M at 1.5e8 bodies/s, median error at most 1e-3), and prints the lines as a table.

    scripts/plot_tree_steps.py OUT.png BENCH.jsonl [BENCH.jsonl ...]

One panel per number of bodies; one marker per run at (median error, mean step after the
first), its colour the backend, its shape how the tree was kept, labelled by theta.
Needs matplotlib (apt-get install python3-matplotlib)."""
import sys

import bench_lines  # scripts/, beside this file

plt = bench_lines.pyplot()

GOAL_SECONDS = {1048576: 5e-3, 16777216: 16777216 / 1.5e8}


def policy(r):
    tree = "built every step" if r["rebuild_every"] == 1 else f"refit, built at {100 * r['rebuild_growth']:g}% growth"
    if r["relative_accuracy"] > 0:
        tree += f", relative {r['relative_accuracy']:g}"
    return tree


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = bench_lines.records(sys.argv[2:], "tree_evolve")
    if not runs:
        sys.exit("no tree_evolve lines in " + ", ".join(sys.argv[2:]))
    sizes = sorted({r["n"] for r in runs})
    policies = sorted({policy(r) for r in runs})
    markers = dict(zip(policies, "osD^vP*Xh"))
    colours = {"cuda": "tab:green", "opencl": "tab:blue"}
    fig, axes = plt.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 5), squeeze=False)
    for ax, n in zip(axes[0], sizes):
        labelled = set()
        for r in (r for r in runs if r["n"] == n):
            key = (r["backend"], policy(r))
            ax.plot(r["median_error"], 1000 * r["step_seconds_mean"], markers[policy(r)],
                    color=colours.get(r["backend"], "tab:gray"), fillstyle="none", ms=7,
                    label=None if key in labelled else f"{r['backend']}, {policy(r)}")
            labelled.add(key)
            ax.annotate(f"{r['theta']:g}", (r["median_error"], 1000 * r["step_seconds_mean"]),
                        fontsize=6, xytext=(3, 3), textcoords="offset points")
        if n in GOAL_SECONDS:
            ax.axhline(1000 * GOAL_SECONDS[n], color="black", ls="--", lw=1, label="issue 24's goal")
        ax.axvline(1e-3, color="gray", ls=":", lw=1, label="median error 1e-3")
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("median force error (next step's evaluation, against float64)")
        ax.set_ylabel("mean step after the first [ms]")
        ax.set_title(f"N = {n}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    first = runs[0]
    bench_lines.save(fig, f"Tree steps of a Plummer run (float, leaf {first['leaf_size']}, groups of "
                     f"{first['group_size']}, dt {first['dt']:g}; labels: theta)\n{first['device']}", sys.argv[1])
    print("| N | backend | θ | tree | builds | step ms | bodies/s | median error | 99th pct |")
    print("|---:|---|---:|---|---:|---:|---:|---:|---:|")
    for r in sorted(runs, key=lambda r: (r["n"], r["backend"], r["theta"], r["rebuild_every"], r["relative_accuracy"])):
        print(f"| {r['n']} | {r['backend']} | {r['theta']:g} | {policy(r)} | {r['builds']} | "
              f"{1000 * r['step_seconds_mean']:.2f} | {r['bodies_per_second']:.3g} | "
              f"{r['median_error']:.2e} | {r['p99_error']:.2e} |")


main()
