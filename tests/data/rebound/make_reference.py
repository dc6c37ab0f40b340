#!/usr/bin/env python3
"""REBOUND (IAS15) reference runs for tests/test_rebound.cpp.

    python3 -m venv venv && venv/bin/pip install rebound numpy
    venv/bin/python tests/data/rebound/make_reference.py tests/data/rebound

Writes kepler_e09.txt (two bodies, e = 0.9, 5 periods) and plummer64.txt (64 bodies, Plummer
softening 0.1, one crossing time 2 sqrt(2) in Henon units): a header line "# t_end softening",
then one line per body "m x y z vx vy vz" of the initial state, then one line per body
"x y z" of REBOUND's final positions. G = 1 throughout.
"""
import math
import sys

import numpy as np
import rebound


def plummer(n, rng):
    """Aarseth, Henon & Wielen (1974), scaled to Henon units (G = M = 1, E = -1/4)."""
    bodies = []
    scale = 3 * math.pi / 16
    while len(bodies) < n:
        r = 1 / math.sqrt(rng.uniform(0, 1) ** (-2 / 3) - 1)
        if r > 10:
            continue
        direction = rng.normal(size=3)
        position = r * direction / np.linalg.norm(direction) * scale
        while True:  # von Neumann rejection for q = v / v_escape
            q, p = rng.uniform(0, 1), rng.uniform(0, 0.1)
            if p < q * q * (1 - q * q) ** 3.5:
                break
        speed = q * math.sqrt(2) * (1 + r * r) ** -0.25 / math.sqrt(scale)
        direction = rng.normal(size=3)
        velocity = speed * direction / np.linalg.norm(direction)
        bodies.append((1.0 / n, *position, *velocity))
    b = np.array(bodies)
    b[:, 1:4] -= b[:, 1:4].mean(axis=0)  # equal masses: the centre of mass and its velocity
    b[:, 4:7] -= b[:, 4:7].mean(axis=0)
    return b


def kepler(e):
    ra, v = 1 + e, math.sqrt((1 - e) / (1 + e))
    return np.array([[0.5, -ra / 2, 0, 0, 0, -v / 2, 0], [0.5, ra / 2, 0, 0, 0, v / 2, 0]])


def integrate(bodies, t_end, softening):
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.integrator = "ias15"
    sim.softening = softening
    for m, x, y, z, vx, vy, vz in bodies:
        sim.add(m=m, x=x, y=y, z=z, vx=vx, vy=vy, vz=vz)
    sim.integrate(t_end, exact_finish_time=1)
    return np.array([[p.x, p.y, p.z] for p in sim.particles])


def write(path, bodies, t_end, softening):
    final = integrate(bodies, t_end, softening)
    with open(path, "w") as f:
        f.write("# %.17g %.17g rebound %s ias15\n" % (t_end, softening, rebound.__version__))
        for row in bodies:
            f.write(" ".join("%.17g" % v for v in row) + "\n")
        for row in final:
            f.write(" ".join("%.17g" % v for v in row) + "\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    write(out + "/kepler_e09.txt", kepler(0.9), 5 * 2 * math.pi, 0.0)
    write(out + "/plummer64.txt", plummer(64, np.random.default_rng(22)), 2 * math.sqrt(2), 0.1)


if __name__ == "__main__":
    main()
