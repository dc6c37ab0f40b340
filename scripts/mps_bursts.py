#!/usr/bin/env python3
"""Where still water's bursts are: the samples of partcl_bench_mps_validation --csv in which the
fastest fluid particle moves faster than 1% of sqrt(g h) after the first second, sorted by where
that particle is, against the share of the fluid's lattice in the same place (docs/mps.md,
issue 25's eighth pass).

    python3 scripts/mps_bursts.py BURSTS.csv CASES.txt

BURSTS.csv: lines `name,<a row of the --csv file>`; CASES.txt: lines `name <the program's
arguments>` (--depth, --spacing, --dims, --channel, --width as the program takes them).
"""
import collections
import csv
import math
import sys

RE = 3.1  # re / l0: how far from a boundary a particle's number density misses neighbours


def parse_cases(path):
    cases = {}
    for line in open(path):
        f = line.split()
        if not f:
            continue
        a = dict(zip(f[1::2], f[2::2]))
        cases[f[0]] = dict(depth=float(a.get('--depth', 0.1)), l0=float(a.get('--spacing', 0.005)),
                           dims=int(a.get('--dims', 2)), channel=float(a.get('--channel', 0.03)),
                           width=float(a.get('--width', 0.2)))
    return cases


def region(c, x, y, z):
    """(height, side): height 'surface layer' within re of the surface, 'floor' within re of
    the floor, else 'between'; side 'x wall' within re of an end wall, 'z wall' (3-D) within re
    of a side wall, else 'interior'."""
    l0, reach = c['l0'], RE * c['l0']
    height = 'surface layer' if c['depth'] - y < reach else ('floor' if y < reach else 'between')
    if min(x, c['width'] - x) < reach:
        side = 'x wall'
    elif c['dims'] == 3 and min(z, c['channel'] - z) < reach:
        side = 'z wall'
    else:
        side = 'interior'
    return height, side


def lattice_share(c):
    l0 = c['l0']
    counts = collections.Counter()
    nx, ny = round(c['width'] / l0), round(c['depth'] / l0)
    nz = round(c['channel'] / l0) if c['dims'] == 3 else 1
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                z = (k + 0.5) * l0 if c['dims'] == 3 else 0
                counts[region(c, (i + 0.5) * l0, (j + 0.5) * l0, z)] += 1
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()}


def main():
    cases = parse_cases(sys.argv[2])
    rows = collections.defaultdict(list)
    for r in csv.reader(open(sys.argv[1])):
        rows[r[0]].append([float(v) for v in r[1:]])
    for name, samples in rows.items():
        c = cases[name]
        by_region, at_zero = collections.Counter(), collections.Counter()
        vertical = 0
        for t, _, _, speed, _, x, a1, a2, ux, u1, u2, p in samples:
            # The csv's axes are the tank's, the last one up: (x, up) in 2-D, (x, across, up) in 3-D.
            (y, z, uy, uz) = (a1, a2, u1, u2) if c['dims'] == 2 else (a2, a1, u2, u1)
            key = region(c, x, y, z)
            by_region[key] += 1
            at_zero[key] += p <= 0
            vertical += abs(uy) > 2 * math.hypot(ux, uz)
        seconds = collections.Counter(int(s[0]) for s in samples)
        print(f"{name}: {len(samples)} samples above 1% after 1 s; per second "
              f"{dict(sorted(seconds.items()))}; {vertical} moving vertically")
        share = lattice_share(c)
        for key in sorted(set(share) | set(by_region), key=lambda k: -by_region[k]):
            print(f"    {key[0]:>13}, {key[1]:>8}: {by_region[key]:5d} ({100 * by_region[key] / len(samples):4.1f}%"
                  f" of the bursts, {100 * share.get(key, 0):4.1f}% of the lattice), {at_zero[key]} at P = 0")


if __name__ == '__main__':
    main()
