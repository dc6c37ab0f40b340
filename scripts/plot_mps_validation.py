# Draws docs/images/mps_validation.png, issue 25's cases with the still-water set (docs/mps.md,
# "Result"): (a) still water's largest particle speed over sqrt(g h) against time, one line per
# case, beside the 1% bound; (b) the sloshing tank's centre of mass against time in periods of
# linear theory; (c) `partcl run hydrostatic`'s bottom pressure over rho g h, the set against the
# seed's method. Run from the repository root:
#   python3 scripts/plot_mps_validation.py [--data docs/data/mps_validation/twelfth_pass_samples.csv]
#       [--out docs/images/mps_validation.png]
# The data file has rows kind,name,param,t,value: kind "still" (value: the largest speed [m/s]
# within the 50 ms before t; param: the depth h [m]), "sloshing" (the centre of mass x [m] less
# the tank's middle, t from when the mode was set; param: the linear period [s]), "hydrostatic"
# (the bottom pressure over rho g h). Rows are added from
# the runs' own files, and nothing is drawn, by
#   --add still NAME DEPTH SAMPLES.csv           (partcl_bench_mps_validation --csv)
#   --add sloshing NAME PERIOD SAMPLES.csv MIDDLE
#   --add hydrostatic NAME 0 bottom_pressure.csv  (partcl run hydrostatic)
import argparse
import csv
import math
import os
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="docs/data/mps_validation/twelfth_pass_samples.csv")
parser.add_argument("--out", default="docs/images/mps_validation.png")
parser.add_argument("--add", nargs="+", metavar="KIND NAME PARAM FILE [MIDDLE]")
args = parser.parse_args()

if args.add:
    kind, name, param, source = args.add[:4]
    if kind not in ("still", "sloshing", "hydrostatic") or len(args.add) != (5 if kind == "sloshing" else 4):
        raise SystemExit("--add still|hydrostatic NAME PARAM FILE, or --add sloshing NAME PERIOD FILE MIDDLE")
    with open(source) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"{source}: no rows")
    new_file = not os.path.exists(args.data)
    with open(args.data, "a", newline="") as f:
        out = csv.writer(f)
        if new_file:
            out.writerow(["kind", "name", "param", "t", "value"])
        if kind == "still":  # the largest speed of each 50 ms (10 samples): the bursts stay
            window = defaultdict(float)
            for r in rows:
                key = math.ceil(float(r["t"]) / 0.05 - 1e-9) * 0.05
                window[key] = max(window[key], float(r["max_speed"]))
            for t, value in sorted(window.items()):
                out.writerow([kind, name, param, f"{t:.4g}", f"{value:.6g}"])
        elif kind == "sloshing":
            # Its clock starts when the mode is set, a sample interval before its first row.
            start = 2 * float(rows[0]["t"]) - float(rows[1]["t"]) if len(rows) > 1 else 0
            for r in rows:
                value = float(r["x_cm"]) - float(args.add[4])
                out.writerow([kind, name, param, f"{float(r['t']) - start:.6g}", f"{value:.6g}"])
        else:
            for r in rows:
                if float(r["t"]) == 0:
                    continue  # no pressure before the first step
                value = float(r["bottom_pressure"]) / float(r["rho_g_h"])
                out.writerow([kind, name, param, f"{float(r['t']):.6g}", f"{value:.6g}"])
    print(f"added {len(rows)} rows of {source} to {args.data}")
    raise SystemExit(0)

series = defaultdict(lambda: {"t": [], "v": []})
meta = {}
with open(args.data) as f:
    for row in csv.DictReader(f):
        key = (row["kind"], row["name"])
        series[key]["t"].append(float(row["t"]))
        series[key]["v"].append(float(row["value"]))
        meta[key] = float(row["param"])
if not series:
    raise SystemExit(f"{args.data}: no rows")

fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
still, slosh, hydro = axes
for (kind, name), s in sorted(series.items()):
    if kind == "still":
        scale = math.sqrt(9.81 * meta[(kind, name)])
        still.plot(s["t"], [100 * v / scale for v in s["v"]], lw=0.7, label=name)
    elif kind == "sloshing":
        period = meta[(kind, name)]
        slosh.plot([t / period for t in s["t"]], [1000 * v for v in s["v"]], lw=1, label=name)
    elif kind == "hydrostatic":
        hydro.plot(s["t"], s["v"], lw=0.8, label=name)
still.axhline(1, color="k", ls="--", lw=1, label="bound: 1% after 1 s")
still.axvline(1, color="grey", ls=":", lw=1)
still.set_yscale("log")
still.set_xlabel("t [s]")
still.set_ylabel("largest particle speed / sqrt(g h) [%]")
still.set_title("(a) still water: largest speed of each 50 ms")
still.legend(fontsize=8)
for k in range(1, 7):
    slosh.axvline(k / 2, color="grey", ls=":", lw=1)
slosh.axhline(0, color="k", lw=0.5)
slosh.set_xlabel("t / linear period 2 pi / sqrt(g k tanh(k h))")
slosh.set_ylabel("centre of mass x - middle [mm]")
slosh.set_title("(b) sloshing: crossings on the dotted lines if the period is exact")
slosh.legend(fontsize=8)
hydro.axhline(1, color="k", ls="--", lw=1)
hydro.set_xlabel("t [s]")
hydro.set_ylabel("bottom pressure / rho g h")
hydro.set_title("(c) partcl run hydrostatic")
hydro.legend(fontsize=8)
fig.tight_layout()
fig.savefig(args.out, dpi=110)
print("wrote", args.out)
