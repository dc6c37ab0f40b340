"""Buffers shared without a copy through DLPack: the host memory of CPU devices (OpenCL), the GPU
memory of the CUDA backend; other devices say Unsupported."""

import ctypes
import importlib
import importlib.util
import re

import numpy as np
import pytest

import partcl

AXPY = """
#include "common/real.h"
// y = a x + y
KERNEL void axpy(const uint n, const real a, GLOBAL const real* x, GLOBAL real* y) {
    const uint i = global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def device_context(backend, kind):
    chosen = [d for d in partcl.devices(backend=backend) if d.type == kind]
    return partcl.Context(str(chosen[0].index), backend=backend) if chosen else None


def test_dlpack_shares_a_cpu_devices_buffer_without_a_copy(rng):
    context = device_context("opencl", "cpu")
    if context is None:
        pytest.skip("no OpenCL CPU device")
    data = rng.standard_normal((40, 3)).astype(np.float32)
    buffer = partcl.Buffer.from_numpy(context, data)
    assert buffer.__dlpack_device__() == (1, 0)
    view = np.from_dlpack(buffer)
    assert view.shape == (40, 3) and view.dtype == np.float32
    np.testing.assert_array_equal(view, data)
    view[0, 0] = 7.0  # the consumer writes, a kernel reads
    partcl.Program(context, AXPY).kernel("axpy")(120, 2.0, np.ones(120, np.float32), buffer,
                                                 global_size=120)
    expected = data.copy()
    expected[0, 0] = 7.0
    np.testing.assert_array_equal(view, expected + 2.0)  # the kernel wrote, the consumer sees
    del view
    assert buffer.to_numpy()[0, 0] == 9.0
    assert np.from_dlpack(partcl.Buffer(context, (0, 3))).shape == (0, 3)


def test_an_opencl_gpu_buffer_is_not_exported():
    context = device_context("opencl", "gpu")
    if context is None:
        pytest.skip("no OpenCL GPU")
    buffer = partcl.Buffer(context, 4)
    with pytest.raises(partcl.Unsupported, match="to_numpy"):
        buffer.__dlpack_device__()
    with pytest.raises(partcl.Unsupported):
        buffer.__dlpack__()


# DLPack's C structures (dlpack.h), to read a capsule as any consumer does.
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


def dltensor(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return DLTensor.from_address(get(capsule, b"dltensor"))  # DLManagedTensor starts with it


def cuda_runtime():
    """The CUDA runtime partcl's CUDA backend loaded into this process: the same instance, so
    the same primary context and device pointers."""
    with open("/proc/self/maps") as maps:
        paths = sorted({m.group(0) for m in re.finditer(r"/\S*libcudart\.so[.\d]*", maps.read())})
    assert paths, "the CUDA backend runs but no libcudart is loaded"
    return ctypes.CDLL(paths[0])


def test_dlpack_shares_a_cuda_buffer_without_a_copy(rng):
    context = device_context("cuda", "gpu")
    if context is None:
        pytest.skip("no CUDA device")
    n = 1000
    data = rng.standard_normal((n, 2)).astype(np.float64)
    buffer = partcl.Buffer.from_numpy(context, data)
    device = buffer.__dlpack_device__()
    assert device[0] == 2  # kDLCUDA
    capsule = buffer.__dlpack__()
    tensor = dltensor(capsule)
    assert (tensor.device.device_type, tensor.device.device_id) == device
    assert tensor.ndim == 2 and [tensor.shape[0], tensor.shape[1]] == [n, 2]
    assert (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (2, 64, 1)  # float64
    # The consumer reads the GPU memory itself, then writes it; a partcl launch sees the write.
    cudart = cuda_runtime()
    cudart.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    seen = np.empty_like(data)
    assert cudart.cudaMemcpy(seen.ctypes.data, tensor.data + tensor.byte_offset, data.nbytes,
                             2) == 0  # cudaMemcpyDeviceToHost
    np.testing.assert_array_equal(seen, data)
    changed = rng.standard_normal((n, 2))
    assert cudart.cudaMemcpy(tensor.data + tensor.byte_offset, changed.ctypes.data, data.nbytes,
                             1) == 0  # cudaMemcpyHostToDevice
    program = partcl.Program(context, AXPY, precision="double")
    program.kernel("axpy")(2 * n, 3.0, np.ones(2 * n), buffer, global_size=2 * n)
    np.testing.assert_array_equal(buffer.to_numpy(), changed + 3.0)
    # The capsule keeps the memory: the buffer may go first.
    del buffer
    assert cudart.cudaMemcpy(seen.ctypes.data, tensor.data + tensor.byte_offset, data.nbytes,
                             2) == 0
    np.testing.assert_array_equal(seen, changed + 3.0)
    del capsule
    for name in ("torch", "cupy"):  # the usual consumers, where the machine has them
        if importlib.util.find_spec(name) is None:
            continue
        library = importlib.import_module(name)
        shared = library.from_dlpack(partcl.Buffer.from_numpy(context, data))
        got = shared.cpu().numpy() if name == "torch" else library.asnumpy(shared)
        np.testing.assert_array_equal(got, data)
