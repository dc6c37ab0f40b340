"""Reads a partcl snapshot with yt and pynbody, as their users do, and checks what they find
against the file itself (h5py): the particle count, the time in seconds, the total mass and a
projection of the mass that holds all of it. Exit status 0 when every check passes.

    python check_snapshot.py SNAPSHOT.h5 [PROJECTION.png]
"""
import sys
import warnings

import h5py
import numpy as np


def close(found, expected, rtol, what):
    if not np.isclose(found, expected, rtol=rtol, atol=0):
        raise SystemExit(f"{what}: found {found!r}, expected {expected!r} (rtol {rtol})")
    print(f"ok  {what}: {found:.9g} (expected {expected:.9g})")


def main(path, image):
    with h5py.File(path, "r") as f:
        header = dict(f["Header"].attrs)
        units = {k: float(v) for k, v in f["Units"].attrs.items()}
        stored = f["PartType1/Coordinates"][:]
        masses = f["PartType1/Masses"][:]
    n = int(header["NumPart_Total"][1])
    time_s = float(header["Time"]) * units["UnitTime_in_s"]
    mass_g = masses.sum() * units["UnitMass_in_g"]
    box = float(header["BoxSize"])
    if not (stored.min() >= 0 and stored.max() < box):
        raise SystemExit(f"positions [{stored.min()}, {stored.max()}] outside the box [0, {box})")

    import pynbody

    with warnings.catch_warnings():
        # Any warning about units is a failure: the file must say what pynbody needs.
        warnings.simplefilter("error")
        s = pynbody.load(path)
        close(len(s), n, 0, "pynbody particle count")
        close(float(s.properties["time"].in_units("s")), time_s, 1e-6, "pynbody time [s]")
        close(float(s["mass"].in_units("g").sum()), mass_g, 1e-9, "pynbody total mass [g]")
        centre = s["pos"].in_units("cm").mean(axis=0)
        expected = stored.mean(axis=0) * units["UnitLength_in_cm"]
        for axis in range(3):
            close(float(centre[axis]), float(expected[axis]), 1e-9, f"pynbody mean position {axis} [cm]")

    import yt

    yt.set_log_level(40)
    unit_base = {k: units[k] for k in ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s")}
    ds = yt.load(path, unit_base=unit_base)
    ad = ds.all_data()
    close(ad["all", "particle_mass"].size, n, 0, "yt particle count")
    close(float(ds.current_time.in_units("s")), time_s, 1e-6, "yt time [s]")
    close(float(ad["all", "particle_mass"].sum().in_units("g")), mass_g, 1e-9, "yt total mass [g]")
    close(float(ds.domain_width[0].in_units("cm")), box * units["UnitLength_in_cm"], 1e-12, "yt domain width [cm]")
    # The projection of the mass over the whole domain holds all of it (pixels no particle
    # falls in are NaN).
    plot = yt.ParticleProjectionPlot(ds, "z", ("all", "particle_mass"), density=False)
    frb = plot.frb[("all", "particle_mass")]
    if not np.isfinite(frb).any():
        raise SystemExit("yt projection: no pixel holds mass")
    projected = float(np.nansum(frb.in_units("g")))
    close(projected, mass_g, 1e-6, "yt projected mass [g]")
    if image:
        plot.save(image)
        print(f"ok  projection written to {image}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None)
