"""A kernel of your own on numpy data: one step of a damped harmonic oscillator for every
particle, in float or double, checked against numpy.

    python examples/python/user_kernel.py [float|double]
"""

import sys

import numpy as np

import partcl

# [api:kernel_source]
SOURCE = """
#include "common/real.h"

// x'' = -OMEGA^2 x - GAMMA x', one semi-implicit Euler step of dt for each particle.
KERNEL void oscillate(const uint n, const real dt, GLOBAL real* x, GLOBAL real* v) {
    const uint i = global_id(0);
    if (i >= n) return;
    v[i] += dt * (-(real)(OMEGA * OMEGA) * x[i] - (real)GAMMA * v[i]);
    x[i] += dt * v[i];
}
"""
# [api:kernel_source end]


def main(precision="float"):
    # [api:kernel_launch]
    ctx = partcl.Context()  # PARTCL_DEVICE, else a GPU, else a CPU
    program = partcl.Program(ctx, SOURCE, precision=precision,
                             defines={"OMEGA": 2.0, "GAMMA": 0.1}, name="oscillate.cl")
    oscillate = program.kernel("oscillate")

    dtype = np.float64 if precision == "double" else np.float32
    n, dt = 100_000, 0.01
    x0 = np.random.default_rng(1).uniform(-1, 1, n).astype(dtype)
    x = partcl.Buffer.from_numpy(ctx, x0)       # stays on the device
    v = partcl.Buffer(ctx, n, dtype)
    v.write(np.zeros(n, dtype))
    for _ in range(100):
        oscillate(n, dt, x, v, global_size=n, local_size=64)
    x_end = x.to_numpy()
    # [api:kernel_launch end]

    # The same steps in numpy, in the same precision.
    xs, vs = x0.copy(), np.zeros(n, dtype)
    k, g, h = dtype(2.0 * 2.0), dtype(0.1), dtype(dt)
    for _ in range(100):
        vs += h * (-k * xs - g * vs)
        xs += h * vs
    error = np.abs(x_end - xs).max()
    print(f"{n} oscillators, 100 steps in {precision} on {ctx.devices[0].name}: "
          f"largest difference from numpy {error:.2e}")
    return error


def spread(precision="float", steps=10):
    """The same steps spread over every device of the context; True when they give the
    bits one device gives."""
    ctx = partcl.Context()
    program = partcl.Program(ctx, SOURCE, precision=precision,
                             defines={"OMEGA": 2.0, "GAMMA": 0.1}, name="oscillate.cl")
    oscillate = program.kernel("oscillate")
    dtype = np.float64 if precision == "double" else np.float32
    n, dt = 100_003, 0.01
    x0 = np.random.default_rng(2).uniform(-1, 1, n).astype(dtype)
    x, one_x = (partcl.Buffer.from_numpy(ctx, x0) for _ in range(2))
    v, one_v = (partcl.Buffer.from_numpy(ctx, np.zeros(n, dtype)) for _ in range(2))
    for _ in range(steps):
        # [api:kernel_spread]
        # Every device takes a share of the items by its measured speed. x and v (arguments
        # 2 and 3) are written, each item its own element: where the devices have separate
        # memories, each item's elements come back from the device that ran it.
        oscillate(n, dt, x, v, global_size=n, local_size=64, spread=True, outputs=[2, 3])
        # [api:kernel_spread end]
        oscillate(n, dt, one_x, one_v, global_size=n, local_size=64)
    print(f"{steps} steps spread over {len(ctx)} device(s), shares {oscillate.shares}")
    return (np.array_equal(x.to_numpy(), one_x.to_numpy()) and
            np.array_equal(v.to_numpy(), one_v.to_numpy()))


if __name__ == "__main__":
    precision = sys.argv[1] if len(sys.argv) > 1 else "float"
    sys.exit(0 if main(precision) < (1e-5 if precision == "float" else 1e-12) else 1)
