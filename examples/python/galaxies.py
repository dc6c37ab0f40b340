"""Two Plummer spheres colliding (partcl's galaxies scenario) run from Python: the energy over
the run and the projected density at its end, plotted with matplotlib.

    python examples/python/galaxies.py [--steps N] [--out DIR]

Writes what partcl run writes (energy.csv, frames, snapshots, checkpoint.bin) and
galaxies.png into DIR.
"""

import argparse
import pathlib

import numpy as np

import partcl


def main(steps=None, out="out-galaxies", progress=True):
    # [api:galaxies_run]
    ctx = partcl.Context()
    sim = partcl.Simulation(ctx, "galaxies", out=out)
    print(sim.title)
    summary = sim.run(steps=steps, progress=progress)   # steps=None: to the scenario's end
    energy = sim.diagnostics()                           # {"step": ..., "total": ...}
    bodies = sim.state()                                 # {"position": (N, 3), ...}
    # [api:galaxies_run end]
    print("\n".join(summary["lines"]))
    plot(energy, bodies, pathlib.Path(out) / "galaxies.png")
    return energy, bodies


def plot(energy, bodies, file):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.8))
    left.plot(energy["time"], energy["relative_drift"])
    left.set_xlabel("time")
    left.set_ylabel("|E - E0| / |E0|")
    left.set_title("energy drift")
    x, y = bodies["position"][:, 0], bodies["position"][:, 1]
    extent = np.percentile(np.abs(np.concatenate([x, y])), 99)
    image, _, _ = np.histogram2d(x, y, bins=256, range=[[-extent, extent]] * 2,
                                 weights=bodies["mass"])
    right.imshow(np.log10(image.T + image[image > 0].min() / 10), origin="lower",
                 extent=[-extent, extent, -extent, extent], cmap="magma")
    right.set_title(f"projected density, t = {energy['time'][-1]:g}")
    right.set_xlabel("x")
    right.set_ylabel("y")
    figure.tight_layout()
    figure.savefig(file, dpi=100)
    print(f"wrote {file}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None, help="steps to run (default: all 200)")
    parser.add_argument("--out", default="out-galaxies")
    args = parser.parse_args()
    main(args.steps, args.out)
