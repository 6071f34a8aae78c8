"""ghz: error-bounded compression of float arrays, and arithmetic on the compressed data.

A Python interface to the ghz C library (no re-implementation: every call runs libghz):

    >>> import numpy as np, ghz
    >>> a = np.linspace(0, 1, 1000, dtype=np.float32)
    >>> frame = ghz.compress(a, mode="rel", bound=1e-4)
    >>> b = ghz.decompress(frame)
    >>> bool(np.all(np.abs(a - b) <= ghz.info(frame).abs_bound))
    True

ghz.numcodecs.Ghz is the codec for zarr (numcodecs id "ghz"); ghz.h5 gives the HDF5
filter's arguments for h5py, and importing ghz makes the package's HDF5 plugin
available to h5py (when h5py is imported, now or later). Arrays larger than memory:
compress_chunks / write_stream and open_stream. See docs/PYTHON.md.
"""
from ._api import (
    FRAME_ELEMS,
    FRAME_LIMIT_DEFAULT,
    WITH_CUDA,
    FrameInfo,
    GhzError,
    RangeWarning,
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
from ._h5hook import install as _install_h5py_hook
from ._stream import StreamReader, compress_chunks, open_stream, value_range, write_stream

if WITH_CUDA:
    from ._ghz import DeviceBuffer  # noqa: F401

__version__ = "0.2.0"

__all__ = [
    "FRAME_ELEMS",
    "FRAME_LIMIT_DEFAULT",
    "WITH_CUDA",
    "FrameInfo",
    "GhzError",
    "RangeWarning",
    "Status",
    "StreamReader",
    "add",
    "compress",
    "compress_chunks",
    "decompress",
    "info",
    "max",
    "min",
    "open_stream",
    "sub",
    "to_device",
    "value_range",
    "version",
    "write_stream",
]

_install_h5py_hook()
