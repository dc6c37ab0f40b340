"""User kernels: OpenCL C built by partcl's JIT, launched with numpy arrays, buffers and
scalars, checked against numpy on fresh random inputs."""

import numpy as np
import pytest

import partcl
from conftest import precisions

AXPY = """
#include "common/real.h"
// y = a x + y
KERNEL void axpy(const uint n, const real a, GLOBAL const real* x, GLOBAL real* y) {
    const uint i = global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

SCRAMBLE = """
#include "common/real.h"
KERNEL void scramble(const uint n, GLOBAL const uint* keys, GLOBAL uint* out, const int shift,
                const ulong salt) {
    const uint i = global_id(0);
    if (i < n) out[i] = (keys[i] * 2654435761u) ^ (uint)(salt >> 3) ^ (uint)(shift + (int)i);
}
"""

DTYPES = {"float": np.float32, "double": np.float64}


@pytest.mark.parametrize("precision", ["float", "double"])
def test_axpy_against_numpy(ctx, rng, precision):
    if precision not in precisions(ctx):
        pytest.skip("a device of the context has no fp64")
    program = partcl.Program(ctx, AXPY, precision=precision, name="axpy.cl")
    assert program.kernel_names == ["axpy"] and program.precision == precision
    assert ("PARTCL_DOUBLE" in program.options) == (precision == "double")
    dtype = DTYPES[precision]
    for n in (1, 7, 1000, 100_003):
        x = rng.standard_normal(n).astype(dtype)
        y = rng.standard_normal(n).astype(dtype)
        a = float(rng.standard_normal())
        expected = dtype(a) * x.astype(np.float64) + y.astype(np.float64)
        program.kernel("axpy")(n, a, x, y, global_size=n, local_size=64)
        # One rounding of the product and one of the sum (or one of a fused multiply-add).
        eps = np.finfo(dtype).eps
        bound = 2 * eps * (np.abs(dtype(a) * x) + np.abs(expected)) + np.finfo(dtype).tiny
        assert np.all(np.abs(y - expected) <= bound), n


def test_buffers_stay_on_the_device_between_launches(ctx, rng):
    n = 5000
    x = rng.standard_normal(n).astype(np.float32)
    y = partcl.Buffer.from_numpy(ctx, np.zeros(n, np.float32))
    assert y.shape == (n,) and y.dtype == np.float32 and y.size == n and y.nbytes == 4 * n
    axpy = partcl.Program(ctx, AXPY).kernel("axpy")
    for _ in range(3):
        axpy(n, 1.0, x, y, global_size=n)  # y += x, on the device
    np.testing.assert_array_equal(y.to_numpy(), (x + x) + x)
    y.write(np.ones(n, np.float32))
    np.testing.assert_array_equal(y.to_numpy(), np.ones(n, np.float32))


def test_integer_arguments_of_every_width_and_numpy_scalars(ctx, rng):
    n = 3001
    keys = rng.integers(0, 2**32, n, dtype=np.uint32)
    out = np.zeros(n, np.uint32)
    salt = int(rng.integers(0, 2**63))
    scramble = partcl.Program(ctx, SCRAMBLE).kernel("scramble")
    scramble(np.uint32(n), keys, out, np.int32(-5), salt, global_size=n)
    i = np.arange(n, dtype=np.int64)
    expected = ((keys.astype(np.uint64) * 2654435761) % 2**32).astype(np.uint32)
    expected ^= np.uint32((salt >> 3) % 2**32)
    expected ^= ((i - 5) % 2**32).astype(np.uint32)
    np.testing.assert_array_equal(out, expected)


def test_read_only_arrays_go_in_and_do_not_come_back(ctx):
    x = np.arange(10, dtype=np.float32)
    y = np.ones(10, np.float32)
    y.flags.writeable = False
    partcl.Program(ctx, AXPY).kernel("axpy")(10, 1.0, x, y, global_size=10)
    np.testing.assert_array_equal(y, np.ones(10, np.float32))


def test_bad_arguments_are_named(ctx):
    axpy = partcl.Program(ctx, AXPY).kernel("axpy")
    x = np.zeros(8, np.float32)
    with pytest.raises(partcl.UsageError, match="argument 2.*C-contiguous"):
        axpy(4, 1.0, np.zeros((8, 2), np.float32)[:, 0], x, global_size=4)
    with pytest.raises(partcl.UsageError, match="argument 1: a bool"):
        axpy(4, True, x, x, global_size=4)
    with pytest.raises(partcl.UsageError, match="argument 1: a str"):
        axpy(4, "1", x, x, global_size=4)
    other = partcl.Context(str(ctx.devices[0].index))
    with pytest.raises(partcl.UsageError, match="another Context"):
        axpy(4, 1.0, x, partcl.Buffer(other, 8), global_size=4)
    with pytest.raises(partcl.UsageError, match="device 5"):
        axpy(4, 1.0, x, x, global_size=4, device=5)
    with pytest.raises(partcl.UsageError, match="no kernel 'axpz'.*axpy"):
        partcl.Program(ctx, AXPY).kernel("axpz")
    with pytest.raises(partcl.UsageError):
        partcl.Buffer(ctx, 4, dtype=np.complex64)


def test_nothing_to_do_is_nothing(ctx):
    y = np.zeros(0, np.float32)
    partcl.Program(ctx, AXPY).kernel("axpy")(0, 1.0, y, y, global_size=0)
    assert partcl.Buffer(ctx, 0).to_numpy().shape == (0,)
    assert partcl.Buffer(ctx, (2, 0, 3), "int16").to_numpy().shape == (2, 0, 3)


def test_buffers_of_every_dtype_round_trip(ctx, rng):
    for dtype in (np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                  np.uint32, np.int64, np.uint64):
        data = (rng.standard_normal((3, 5, 7)) * 100).astype(dtype)
        back = partcl.Buffer.from_numpy(ctx, data).to_numpy()
        assert back.dtype == dtype and back.shape == data.shape
        np.testing.assert_array_equal(back, data)


def test_defines_and_files(ctx, tmp_path):
    source = tmp_path / "scale.cl"
    source.write_text(
        '#include "common/real.h"\n'
        "KERNEL void scale(const uint n, GLOBAL real* y) {\n"
        "    const uint i = global_id(0);\n"
        "    if (i < n) y[i] = y[i] * FACTOR + (real)OFFSET;\n"
        "}\n")
    program = partcl.Program(ctx, source, defines={"FACTOR": 3, "OFFSET": "0.5f"})
    assert "-DFACTOR=3" in program.options
    y = np.arange(5, dtype=np.float32)
    program.kernel("scale")(5, y, global_size=5)
    np.testing.assert_array_equal(y, np.arange(5, dtype=np.float32) * 3 + 0.5)
    with pytest.raises(partcl.UsageError):
        partcl.Program(ctx, source, defines={"not an identifier": 1})


SQUARES = """
#include "common/real.h"
KERNEL void squares(const uint n, GLOBAL uint* out) {
    const uint i = global_id(0);
    if (i < n) out[i] = i * i + 1u;
}
"""


def test_spread_launches_cut_the_items_between_the_devices(ctx):
    # On every device of a context of CPU devices (PoCL's devices share the machine's memory);
    # CTest runs this suite once more with two PoCL devices (python.pytest_two_devices).
    cpus = partcl.devices("cpu")
    context = partcl.Context("cpu") if cpus else ctx
    squares = partcl.Program(context, SQUARES).kernel("squares")
    assert squares.shares == []
    for n, local in ((1, 0), (1000, 0), (100_003, 64), (4096, 256)):
        out = np.zeros(n, np.uint32)
        squares(n, out, global_size=n, local_size=local, spread=True, outputs=[1])
        i = np.arange(n, dtype=np.uint64)
        np.testing.assert_array_equal(out, ((i * i + 1) % 2**32).astype(np.uint32))
    shares = squares.shares
    assert len(shares) == len(context) and sum(shares) == pytest.approx(1.0)
    if len(context) > 1:
        assert all(share > 0 for share in shares)
    with pytest.raises(partcl.UsageError, match="every device"):
        squares(1, np.zeros(1, np.uint32), global_size=1, spread=True, device=1)
    with pytest.raises(partcl.UsageError, match="runs on one"):
        squares(1, np.zeros(1, np.uint32), global_size=1, outputs=[1])


TRIPLES = """
#include "common/real.h"
// Item i reads its three elements of xyz and writes them scaled, and its norm.
KERNEL void scale3(const uint n, const real s, GLOBAL real* xyz, GLOBAL real* norm) {
    const uint i = global_id(0);
    if (i >= n) return;
    real sum = 0;
    for (uint c = 0; c < 3; ++c) {
        xyz[3 * i + c] *= s;
        sum += xyz[3 * i + c] * xyz[3 * i + c];
    }
    norm[i] = sum;
}
"""


def test_spread_launches_over_separate_memories_bring_the_outputs_back(ctx, rng):
    # Each device works on its own copies of the buffers (as two GPUs do); outputs= says what
    # comes back. Two PoCL devices under CTest's python.pytest_two_devices, else one.
    cpus = partcl.devices("cpu")
    context = partcl.Context("cpu", memory="separate") if cpus else ctx
    axpy = partcl.Program(context, AXPY).kernel("axpy")
    for n, local in ((1, 0), (1000, 0), (100_003, 64)):
        x = rng.standard_normal(n).astype(np.float32)
        y0 = rng.standard_normal(n).astype(np.float32)
        y = partcl.Buffer.from_numpy(context, y0)
        axpy(n, 0.5, x, y, global_size=n, local_size=local, spread=True, outputs=[3])
        np.testing.assert_array_equal(y.to_numpy(), np.float32(0.5) * x + y0)
    scale3 = partcl.Program(context, TRIPLES).kernel("scale3")
    n = 20_011
    xyz0 = rng.standard_normal((n, 3)).astype(np.float32)
    xyz, norm = xyz0.copy(), np.zeros(n, np.float32)
    scale3(n, 2.0, xyz, norm, global_size=n, spread=True, outputs=[2, 3])
    np.testing.assert_array_equal(xyz, xyz0 * np.float32(2))
    # Bit for bit one device's result, which is the float64 norm to within three roundings of
    # non-negative terms (and the compiler's choice of fused multiply-adds): 4 float ulps.
    one_xyz, one_norm = xyz0.copy(), np.zeros(n, np.float32)
    scale3(n, 2.0, one_xyz, one_norm, global_size=n)
    np.testing.assert_array_equal(norm, one_norm)
    exact = (xyz.astype(np.float64) ** 2).sum(axis=1)
    np.testing.assert_allclose(norm, exact, rtol=4 * 2.0**-24, atol=0)
    assert len(scale3.shares) == len(context)
    if len(context) > 1:
        assert context.memory == "separate"
        with pytest.raises(partcl.UsageError, match="outputs="):
            scale3(n, 2.0, xyz, norm, global_size=n, spread=True)
    with pytest.raises(partcl.UsageError, match="not a Buffer"):
        scale3(n, 2.0, xyz, norm, global_size=n, spread=True, outputs=[1])
    with pytest.raises(partcl.UsageError, match="call with 4"):
        scale3(n, 2.0, xyz, norm, global_size=n, spread=True, outputs=[4])
    with pytest.raises(partcl.UsageError, match="same number of elements"):
        scale3(n, 2.0, xyz, norm[:-1], global_size=n, spread=True, outputs=[3])
