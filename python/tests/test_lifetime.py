"""Objects made in a context keep it: nothing dangles when the Context's name goes, and a
program that leaves everything to the interpreter's exit (globals, cycles) exits cleanly."""

import gc
import subprocess
import sys
import textwrap

import numpy as np

import partcl

SOURCE = """
#include "common/real.h"
KERNEL void twice(const uint n, GLOBAL real* y) {
    const uint i = global_id(0);
    if (i < n) y[i] *= 2;
}
"""


def test_buffers_programs_kernels_and_models_outlive_the_name_of_their_context():
    ctx = partcl.Context()
    buffer = partcl.Buffer.from_numpy(ctx, np.arange(100, dtype=np.float32))
    kernel = partcl.Program(ctx, SOURCE).kernel("twice")
    gravity = partcl.TreeGravity(ctx, softening=0.1)
    del ctx
    gc.collect()
    kernel(100, buffer, global_size=100)
    np.testing.assert_array_equal(buffer.to_numpy(), 2 * np.arange(100, dtype=np.float32))
    assert gravity.accelerations(np.eye(3), np.ones(3)).shape == (3, 3)
    assert buffer.context is gravity.context or len(buffer.context) >= 1
    del buffer, kernel
    gc.collect()
    assert gravity.context.devices


def test_everything_left_to_the_exit_exits_cleanly():
    # Launches still queued, objects in a cycle and in globals: the interpreter's exit
    # releases them in any order while the drivers are still there.
    script = textwrap.dedent(f"""
        import numpy as np
        import partcl
        ctx = partcl.Context()
        kernel = partcl.Program(ctx, {SOURCE!r}).kernel("twice")
        buffers = [partcl.Buffer(ctx, 100_000) for _ in range(4)]
        for b in buffers:
            kernel(100_000, b, global_size=100_000)
        cycle = [ctx, buffers]
        cycle.append(cycle)
        tree = partcl.TreeGravity(ctx)
        tree.accelerations(np.random.rand(500, 3), np.ones(500))
        print("done")
        """)
    for _ in range(3):
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == "done"
