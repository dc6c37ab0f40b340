"""partcl: particle-simulation kernels on any OpenCL or CUDA device, from Python.

    >>> import partcl
    >>> partcl.devices()
    >>> ctx = partcl.Context("cpu")
    >>> acc = partcl.DenseGravity(ctx, softening=0.01).accelerations(positions, masses)

Devices and contexts (``devices``, ``Context``), arrays on the device (``Buffer``), your own
OpenCL C kernels (``Program``, ``Kernel``), partcl's gravity models (``DenseGravity``,
``TreeGravity``) and scenario runs (``Simulation``). Errors are ``partcl.Error`` and its subclasses, with the library's messages.
"""

from ._partcl import (
    __version__,
    BackendError,
    Buffer,
    BuildError,
    Context,
    DenseGravity,
    Device,
    Error,
    Gravity,
    Kernel,
    Program,
    SourceError,
    TreeGravity,
    Unsupported,
    UsageError,
    devices,
    kernel_tree,
)
from .simulation import Simulation

__all__ = [
    "__version__",
    "BackendError",
    "Buffer",
    "BuildError",
    "Context",
    "DenseGravity",
    "Device",
    "Error",
    "Gravity",
    "Kernel",
    "Program",
    "Simulation",
    "SourceError",
    "TreeGravity",
    "Unsupported",
    "UsageError",
    "devices",
    "kernel_tree",
]
