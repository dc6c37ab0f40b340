"""Buffers shared without a copy through DLPack: the host memory of CPU devices (OpenCL), the GPU
memory of the CUDA backend; other devices say Unsupported."""

import ctypes
import importlib
import importlib.util

import numpy as np
import pytest

import partcl
from test_kernels import AXPY


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


class CudaDriver:
    """Copies to and from device addresses through the CUDA driver (libcuda, always there with
    a GPU), in the device's primary context: the one partcl's CUDA backend, PyTorch and CuPy
    use, where their pointers are valid."""

    def __init__(self, ordinal):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.device, self.context = ctypes.c_int(), ctypes.c_void_p()
        self.check(self.lib.cuInit(0))
        self.check(self.lib.cuDeviceGet(ctypes.byref(self.device), ordinal))
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.context), self.device))
        self.check(self.lib.cuCtxPushCurrent_v2(self.context))
        self.lib.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
        self.lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]

    @staticmethod
    def check(status):
        assert status == 0, f"CUDA driver error {status}"

    def to_host(self, array, address):
        self.check(self.lib.cuMemcpyDtoH_v2(array.ctypes.data, address, array.nbytes))

    def to_device(self, address, array):
        self.check(self.lib.cuMemcpyHtoD_v2(address, array.ctypes.data, array.nbytes))

    def close(self):
        self.check(self.lib.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p())))
        self.check(self.lib.cuDevicePrimaryCtxRelease_v2(self.device))


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
    driver = CudaDriver(device[1])
    address = tensor.data + tensor.byte_offset
    seen = np.empty_like(data)
    driver.to_host(seen, address)
    np.testing.assert_array_equal(seen, data)
    changed = rng.standard_normal((n, 2))
    driver.to_device(address, changed)
    program = partcl.Program(context, AXPY, precision="double")
    program.kernel("axpy")(2 * n, 3.0, np.ones(2 * n), buffer, global_size=2 * n)
    np.testing.assert_array_equal(buffer.to_numpy(), changed + 3.0)
    # The capsule keeps the memory: the buffer may go first.
    del buffer
    driver.to_host(seen, address)
    np.testing.assert_array_equal(seen, changed + 3.0)
    driver.close()
    del capsule
    for name in ("torch", "cupy"):  # the usual consumers, where the machine has them
        if importlib.util.find_spec(name) is None:
            continue
        library = importlib.import_module(name)
        values = partcl.Buffer.from_numpy(context, data)
        shared = library.from_dlpack(values)
        got = shared.cpu().numpy() if name == "torch" else library.asnumpy(shared)
        np.testing.assert_array_equal(got, data)
        shared += 1.0  # written by the consumer's kernel, read back through partcl
        if name == "torch":
            library.cuda.synchronize()
        else:
            library.cuda.Device().synchronize()
        np.testing.assert_array_equal(values.to_numpy(), data + 1.0)
