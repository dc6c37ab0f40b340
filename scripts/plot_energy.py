#!/usr/bin/env python3
"""Plots the relative energy error of partcl runs against time, from their energy.csv files.

    scripts/plot_energy.py OUT.png LABEL=DIR/energy.csv [LABEL=DIR/energy.csv ...]

Needs matplotlib (pip install matplotlib)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        sys.exit(__doc__)
    fig, ax = plt.subplots(figsize=(7, 4), dpi=120)
    for spec in argv[2:]:
        label, path = spec.split("=", 1)
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        t = [float(r["time"]) for r in rows]
        e0 = float(rows[0]["total"])
        err = [abs(float(r["total"]) - e0) / abs(e0) for r in rows]
        ax.semilogy(t[1:], err[1:], label=label)
    ax.set_xlabel("time (N-body units, G = M = 1)")
    ax.set_ylabel("|E - E0| / |E0|")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(argv[1])


if __name__ == "__main__":
    main(sys.argv)
