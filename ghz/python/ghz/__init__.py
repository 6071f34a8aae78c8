"""ghz: error-bounded compression of float arrays, and arithmetic on the compressed data.

A Python interface to the ghz C library (no re-implementation: every call runs libghz):

    >>> import numpy as np, ghz
    >>> a = np.linspace(0, 1, 1000, dtype=np.float32)
    >>> frame = ghz.compress(a, mode="rel", bound=1e-4)
    >>> b = ghz.decompress(frame)
    >>> bool(np.all(np.abs(a - b) <= ghz.info(frame).abs_bound))
    True

ghz.numcodecs.Ghz is the codec for zarr (numcodecs id "ghz"); ghz.h5 gives the HDF5
filter's arguments for h5py. See docs/PYTHON.md.
"""
from ._api import (
    FRAME_ELEMS,
    FRAME_LIMIT_DEFAULT,
    WITH_CUDA,
    FrameInfo,
    GhzError,
    Status,
    add,
    compress,
    decompress,
    info,
    max,
    min,
    sub,
    to_device,
    version,
)

if WITH_CUDA:
    from ._ghz import DeviceBuffer  # noqa: F401

__version__ = "0.2.0"

__all__ = [
    "FRAME_ELEMS",
    "FRAME_LIMIT_DEFAULT",
    "WITH_CUDA",
    "FrameInfo",
    "GhzError",
    "Status",
    "add",
    "compress",
    "decompress",
    "info",
    "max",
    "min",
    "sub",
    "to_device",
    "version",
]
