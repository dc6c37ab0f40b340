#!/usr/bin/env python3
"""docs/integrators.md's figure from partcl_bench_integrators' JSON lines.

    build/benchmarks/partcl_bench_integrators > docs/data/integrators/figure2.jsonl
    python3 docs/data/integrators/plot.py docs/data/integrators/figure2.jsonl \
        docs/data/integrators/figure2.png     (needs matplotlib)
"""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "evaluations" in r:
        rows[r["method"]].append(r)

fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
markers = "os^vD<>ph*"
for k, (method, points) in enumerate(rows.items()):
    points.sort(key=lambda r: r["evaluations"])
    x = [r["evaluations"] for r in points]
    style = dict(marker=markers[k % len(markers)], linestyle="-" if k < 10 else "--", label=method)
    axes[0].loglog(x, [max(r["energy_change"], 1e-17) for r in points], **style)
    axes[1].loglog(x, [max(r["momentum_change"], 1e-19) for r in points], **style)
n, t = points[0]["n"], points[0]["end_time"]
axes[0].set_title("a) relative energy change |E - E0| / |E0|")
axes[1].set_title("b) momentum change |P - P0| / sum m|v|")
for ax in axes:
    ax.set_xlabel("force evaluations")
    ax.grid(True, which="major", alpha=0.4)
axes[1].legend(fontsize=8, ncol=2)
fig.suptitle("Two colliding Plummer spheres, N = %d, double, t = 0 .. %g" % (n, t))
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=80)
