#!/usr/bin/env python3
"""Plots TreePM's short-range walk error and step time against the opening angle, from the JSON
lines of benchmarks/tree_pm.cpp (partcl_bench_tree_pm --errors).

    scripts/plot_tree_pm_accuracy.py OUT.png BENCH.jsonl [BENCH.jsonl ...]

Left: median and 99th-percentile relative error of each body's acceleration against the same
TreePM at theta 0 (the walk's own error), with the bounds TreePM is held to (median 1e-3, 99th
percentile 1e-2). Right: one comoving leapfrog step (step_seconds), with issue 21's goal of
0.1 s. One curve per device, bodies, mesh and group size; lines without errors are left out.
Needs matplotlib (apt-get install python3-matplotlib)."""
import sys
from collections import defaultdict

import bench_lines  # scripts/, beside this file

plt = bench_lines.pyplot()


def walk_curves(paths):
    """(device, backend, bodies, n, mesh, group size) -> {theta: line}, the lines with errors."""
    curves = defaultdict(dict)
    for r in bench_lines.records(paths, "tree_pm"):
        if "error_median" in r:
            key = (r["device"], r["backend"], r["bodies"], r["n"], r["mesh"], r["group_size"])
            curves[key][r["theta"]] = r  # a repeated angle: the later line
    if not curves:
        sys.exit("no tree_pm lines with errors in " + ", ".join(paths))
    return curves


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    curves = walk_curves(argv[2:])
    fig, (err_ax, time_ax) = plt.subplots(1, 2, figsize=(11, 4), dpi=120)
    for (device, backend, bodies, n, mesh, group), by_theta in sorted(curves.items()):
        rows = [by_theta[t] for t in sorted(by_theta)]
        theta = [r["theta"] for r in rows]
        side = round(n ** (1 / 3))
        per_cell = (side / mesh) ** 3
        label = f"{side}^3 {bodies}, {mesh}^3 mesh ({'1' if per_cell == 1 else f'1/{round(1 / per_cell)}'} a cell), groups of {group}"
        if len({k[:2] for k in curves}) > 1:
            label = f"{device} {backend}, " + label
        line, = err_ax.semilogy(theta, [r["error_median"] for r in rows], "o-", label=label + ": median")
        err_ax.semilogy(theta, [r["error_p99"] for r in rows], "s--", color=line.get_color(),
                        label=label + ": 99th pct")
        time_ax.plot(theta, [1e3 * r["step_seconds"] for r in rows], "o-", color=line.get_color(), label=label)
    err_ax.axhline(1e-3, color="grey", linewidth=0.8)
    err_ax.axhline(1e-2, color="grey", linewidth=0.8, linestyle="--")
    bench_lines.theta_axis(err_ax, "|a − a(θ = 0)| / |a(θ = 0)|", legend_size=6)
    time_ax.axhline(100, color="grey", linewidth=0.8)
    time_ax.set_ylim(bottom=0)
    bench_lines.theta_axis(time_ax, "comoving leapfrog step (ms)", legend_size=6, log=False)
    bench_lines.save(fig, "TreePM: the short-range walk's error and the step time against the opening angle",
                     argv[1])


if __name__ == "__main__":
    main(sys.argv)
