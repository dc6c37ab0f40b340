#!/usr/bin/env python3
"""Plots the tree's force error and speed against the opening angle, from the JSON lines of
benchmarks/tree.cpp (partcl_bench_tree).

    scripts/plot_tree_accuracy.py OUT.png BENCH.jsonl [BENCH.jsonl ...]

Left: median and 99th-percentile relative force error against the float64 direct sum (and the
1e-3 median of issue 6's goal). Right: build plus walk time (TreeGravity::build and evaluate),
with dense gravity's time on the same device as a dotted line where measured. One curve per
device, N, precision, leaf size, traversal and walk (group size and list size; groups of 1 are
the per-body walk). Needs matplotlib
(apt-get install python3-matplotlib)."""
import sys
from collections import defaultdict

import bench_lines  # scripts/, beside this file

plt = bench_lines.pyplot()


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    curves = defaultdict(list)
    for r in bench_lines.records(argv[2:], "tree"):
        key = (r["device"], r["n"], r["precision"], r["traversal"], r.get("group_size", 1),
               r.get("list_size", 0), r.get("leaf_size", 8))
        curves[key].append(r)
    if not curves:
        sys.exit("no tree benchmark lines in " + ", ".join(argv[2:]))
    fig, (err_ax, speed_ax) = plt.subplots(1, 2, figsize=(11, 4), dpi=120)
    dense = {}
    for (device, n, precision, traversal, group, listed, leaf), rows in sorted(curves.items()):
        rows.sort(key=lambda r: r["theta"])
        theta = [r["theta"] for r in rows]
        walk = "per body" if group == 1 else f"groups of {group}" + (f", listed {listed}" if listed else "")
        walk += f", leaf {leaf}"
        label = f"N = {n}, {precision}, {walk}, {traversal}"
        if len({k[0] for k in curves}) > 1:
            label = device + ", " + label
        # Both traversals and both forms sum the same nodes: one error curve per group size.
        first = min((k for k in curves if k[:3] == (device, n, precision) and k[4] == group and k[6] == leaf),
                    key=lambda k: (k[3], k[5]))
        if (traversal, listed) == (first[3], first[5]):
            line, = err_ax.semilogy(theta, [r["median_error"] for r in rows], "o-",
                                    label=f"N = {n}, {precision}, {walk.split(',')[0]}, leaf {leaf}: median")
            err_ax.semilogy(theta, [r["p99_error"] for r in rows], "s--", color=line.get_color(),
                            label=f"N = {n}, {precision}, {walk.split(',')[0]}, leaf {leaf}: 99th pct")
        line, = speed_ax.semilogy(theta, [r["total_seconds"] for r in rows], "o-", label=label)
        times = [r["dense_seconds"] for r in rows if r.get("dense_seconds")]
        if times and (device, n, precision) not in dense:
            dense[(device, n, precision)] = times[0]
            speed_ax.axhline(times[0], linestyle=":", color=line.get_color(), label=f"dense, N = {n}")
    err_ax.axhline(1e-3, color="grey", linewidth=0.8)
    bench_lines.theta_axis(err_ax, "|a_tree − a_direct| / |a_direct|")
    bench_lines.theta_axis(speed_ax, "build + walk time (s)")
    bench_lines.save(fig, "Tree gravity on a Plummer sphere: accuracy and walk time per walk", argv[1])


if __name__ == "__main__":
    main(sys.argv)
