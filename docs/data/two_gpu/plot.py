#!/usr/bin/env python3
"""docs/performance.md's two-GPU figure from scripts/gpu-check.sh's twogpu.jsonl: each family's
speed on one context of both GPUs over its speed on one GPU, per backend, against the goals of
issue 26 (dense 1.85, the others 1.7).

    python3 docs/data/two_gpu/plot.py docs/data/two_gpu/h200x2_pinned_staging.jsonl \
        docs/data/two_gpu/h200x2_tree_scatter.jsonl docs/data/two_gpu/h200x2.png   (needs matplotlib)

Every file but the last argument is read in turn; a later file's lines replace an earlier's of
the same family and backend. Also prints the table docs/performance.md shows.
"""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def backend(r):
    return r.get("backend") or ("cuda" if r["platform"] == "CUDA" else "opencl")


def seconds(r):
    if r["bench"] == "dense":
        return r["seconds"]
    if r["bench"] == "tree":
        return r["total_seconds"]
    return r["seconds_per_step"]


def family(r):
    if r["bench"] == "dense":
        return f"dense 1M {r['precision']}"
    return {"tree": "tree 16M", "pic": "PIC 16M", "mps": "MPS 4M"}[r["bench"]]


one = defaultdict(list)
two = {}
lines = []
for name in sys.argv[1:-1]:
    rows = [json.loads(l) for l in open(name) if l.startswith("{")]
    rows = [r for r in rows if r["bench"] in ("dense", "tree", "pic", "mps")]  # not device_copy
    replaced = {(family(r), backend(r)) for r in rows}
    lines = [r for r in lines if (family(r), backend(r)) not in replaced] + rows
for r in lines:
    if r.get("deposit", "gather") != "gather":  # PIC: the gather deposit, the faster
        continue
    key = (family(r), backend(r))
    alone = r.get("one_device_seconds", r.get("one_device_seconds_per_step"))
    if alone is not None:  # one line: the split time and one GPU's, in turns
        one[key].append(alone)
        two[key] = seconds(r)
    elif r.get("devices", 1) == 1:
        one[key].append(seconds(r))
    else:
        two[key] = seconds(r)

families = ["dense 1M float", "dense 1M double", "tree 16M", "PIC 16M", "MPS 4M"]
goals = {"dense 1M float": 1.85, "dense 1M double": 1.85}
print("| family | backend | one GPU | two GPUs | speed-up | goal |")
print("|---|---|---|---|---|---|")
speedups = defaultdict(dict)
for f in families:
    for b in ("cuda", "opencl"):
        if (f, b) not in two or not one[(f, b)]:
            continue
        alone = min(one[(f, b)])  # the faster of the GPUs alone
        s = alone / two[(f, b)]
        speedups[b][f] = s
        unit = "s" if f.startswith(("dense", "tree")) else "ms/step"
        scale = 1 if unit == "s" else 1e3
        print(f"| {f} | {b} | {alone * scale:.4g} {unit} | {two[(f, b)] * scale:.4g} {unit} "
              f"| {s:.2f}x | {goals.get(f, 1.7)}x |")

fig, ax = plt.subplots(figsize=(9, 4.5))
width = 0.38
for k, b in enumerate(("cuda", "opencl")):
    xs = [i + (k - 0.5) * width for i, f in enumerate(families) if f in speedups[b]]
    ys = [speedups[b][f] for f in families if f in speedups[b]]
    ax.bar(xs, ys, width, label=b)
    for x, y in zip(xs, ys):
        ax.text(x, y * 1.08, f"{y:.2g}" if y < 0.1 else f"{y:.2f}", ha="center", fontsize=8)
for i, f in enumerate(families):
    g = goals.get(f, 1.7)
    ax.plot([i - 0.45, i + 0.45], [g, g], color="black", linewidth=1, linestyle="--")
ax.axhline(1.0, color="grey", linewidth=0.8)
ax.set_xticks(range(len(families)))
ax.set_xticklabels(families)
ax.set_ylabel("two GPUs over one GPU (speed)")
ax.set_yscale("log")
ax.set_ylim(0.003, 3)
ax.set_yticks([0.01, 0.03, 0.1, 0.3, 1, 2])
ax.set_yticklabels(["0.01", "0.03", "0.1", "0.3", "1", "2"])
ax.set_title("One context over two H200s (dashed: goals of issue 26)")
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[-1], dpi=110)
