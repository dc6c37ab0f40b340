#!/usr/bin/env python3
"""Plots each step's time of TreePM runs from z = 49 to 0 with the short-range tree built every
step, refitted on a fixed schedule, or refitted until its leaves grew, with or without the
walk's relative criterion (partcl_bench_tree_pm --evolve: lines with each_step_seconds).

    scripts/plot_tree_pm_refit.py OUT.png BENCH.jsonl [BENCH.jsonl ...]

One curve per (device, backend, bodies, rebuild_every, rebuild_growth, relative_accuracy), against the step's
index, with issue 21's goal of 0.1 s a step; the legend gives each run's mean and builds.
Needs matplotlib (apt-get install python3-matplotlib)."""
import sys

import bench_lines  # scripts/, beside this file

plt = bench_lines.pyplot()


def label(r):
    if r["rebuild_every"] == 1:
        tree = "built every step"
    elif r["rebuild_growth"] > 0:
        tree = f"refit <= {r['rebuild_every']} steps, built at {100 * r['rebuild_growth']:g}% growth"
    else:
        tree = f"built every {r['rebuild_every']} steps"
    relative = r.get("relative_accuracy", 0)
    if relative > 0:
        tree += f", relative {relative:g}"
    errors = ""
    if "error_p99" in r:
        errors = f"; z = 0 walk error {r['error_median']:.1e} / {r['error_p99']:.1e} (median / 99th)"
    return (f"{r['backend']}, {tree}: mean {1000 * r['step_seconds_mean']:.1f} ms, "
            f"{r['builds']} builds{errors}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = [r for r in bench_lines.records(sys.argv[2:], "tree_pm_evolve") if "each_step_seconds" in r]
    if not runs:
        sys.exit("no tree_pm_evolve lines with each_step_seconds in " + ", ".join(sys.argv[2:]))
    fig, ax = plt.subplots(figsize=(9, 5))
    for r in runs:
        steps = r["each_step_seconds"]
        ax.plot(range(1, len(steps) + 1), [1000 * t for t in steps], lw=1, label=label(r))
    ax.axhline(100, color="black", ls="--", lw=1, label="goal: 0.1 s a step")
    ax.set_xlabel("step (uniform in ln a, z = 49 to 0)")
    ax.set_ylabel("step time [ms]")
    # The first step of a process also builds its programs and plans: cut off, not drawn to.
    later = max(max(r["each_step_seconds"][1:], default=0) for r in runs)
    ax.set_ylim(0, min(500, 1000 * later * 1.6))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    first = runs[0]
    side = round(first["n"] ** (1 / 3))
    bench_lines.save(fig, f"TreePM steps, {side}^3 bodies in {first['box']:g} Mpc/h, {first['mesh']}^3 mesh, "
                     f"theta {first['theta']:g}\n{first['device']}", sys.argv[1])


main()
