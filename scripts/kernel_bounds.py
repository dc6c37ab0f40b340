#!/usr/bin/env python3
"""Sums Nsight Compute's per-launch metrics (ncu --csv, the metrics scripts/gpu-check.sh's
`bounds` part asks for) by kernel name: time, DRAM bytes and the achieved DRAM bandwidth, and
each throughput (percent of peak) averaged over the kernel's launches weighted by their time.

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
    print(f"  {'kernel':48} {'launches':>8} {'ms':>8} {'share':>6} {'GB/s':>7} "
          + " ".join(f"{label:>11}" for label in PERCENTS.values()))
    for name, t in seconds.most_common(args.top):
        shares = " ".join(f"{weighted[name][m] / t if t else 0:11.1f}" for m in PERCENTS)
        print(f"  {name:48} {count[name]:8d} {t * 1e3:8.3f} {100 * t / total:5.1f}% "
              f"{dram[name] / t / 1e9 if t else 0:7.0f} {shares}")
    print(f"  {'all':48} {sum(count.values()):8d} {total * 1e3:8.3f}")


if __name__ == "__main__":
    main()
