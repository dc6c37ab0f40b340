#!/usr/bin/env python3
"""Sums Nsight Compute's per-launch metrics (ncu --csv: gpu__time_duration.sum, and those of
scripts/gpu-check.sh's `bounds` part where it asked for them) by kernel name: time, the DRAM
bandwidth achieved, and each throughput (percent of peak) averaged over the kernel's launches
weighted by their time. Columns of metrics the CSV lacks are left out.

    python3 scripts/kernel_bounds.py bounds.csv [--top 16]
"""
import argparse
import collections
import csv

UNITS = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3,
         "s": 1.0, "second": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
         "KB": 1e3, "MB": 1e6, "GB": 1e9, "%": 1.0}
PERCENTS = {
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM %",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed": "L2 %",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM %",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy %",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--top", type=int, default=16)
    args = parser.parse_args()
    rows = [line for line in open(args.csv) if line.startswith('"')]
    launches = collections.defaultdict(dict)  # launch id -> metric -> value
    names = {}
    for row in csv.DictReader(rows):
        value = float(row["Metric Value"].replace(",", "") or 0)
        value *= UNITS.get(row["Metric Unit"], 1.0)
        launch = row["ID"]
        name = row["Kernel Name"].removeprefix("void ")
        names[launch] = name.split("(")[0].split("<")[0][:48]
        launches[launch][row["Metric Name"]] = value
    seconds = collections.Counter()
    count = collections.Counter()
    dram = collections.Counter()
    weighted = collections.defaultdict(collections.Counter)
    for launch, metrics in launches.items():
        name = names[launch]
        t = metrics.get("gpu__time_duration.sum", 0.0)
        seconds[name] += t
        count[name] += 1
        dram[name] += metrics.get("dram__bytes.sum", 0.0)
        for metric in PERCENTS:
            weighted[name][metric] += t * metrics.get(metric, 0.0)
    total = sum(seconds.values())
    present = {metric for metrics in launches.values() for metric in metrics}
    percents = [metric for metric in PERCENTS if metric in present]
    bandwidth = "dram__bytes.sum" in present
    print(f"  {'kernel':48} {'launches':>8} {'ms':>9} {'share':>6}" + (f" {'GB/s':>7}" if bandwidth else "")
          + "".join(f" {PERCENTS[metric]:>11}" for metric in percents))
    for name, t in seconds.most_common(args.top):
        line = f"  {name:48} {count[name]:8d} {t * 1e3:9.3f} {100 * t / total:5.1f}%"
        if bandwidth:
            line += f" {dram[name] / t / 1e9 if t else 0:7.0f}"
        line += "".join(f" {weighted[name][m] / t if t else 0:11.1f}" for m in percents)
        print(line)
    print(f"  {'all':48} {sum(count.values()):8d} {total * 1e3:9.3f}")

if __name__ == "__main__":
    main()
