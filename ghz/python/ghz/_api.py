"""The functions of the ghz package: thin wrappers over the C library (ghz._ghz).

Every array is taken as it is, without a copy, through the buffer protocol: it must be
C-contiguous float32 or float64 in native byte order. A strided view is refused with a
ValueError (copy it yourself with numpy.ascontiguousarray), another dtype with a
TypeError, and every failure of the library raises GhzError (a ValueError) with ghz's
status code and detail message. The GIL is released while ghz works, so threads that
compress different arrays run in parallel.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Optional, Tuple

from . import _ghz

GhzError = _ghz.GhzError

#: Values per frame: larger arrays are written as several frames under one bound (the
#: layout of ghz-cli), so that each frame stays within the default reader limit.
FRAME_ELEMS = 1 << 26

#: The default reader limit: the largest frame, in decoded bytes, that decompress
#: accepts unless told otherwise (GHZ_FRAME_LIMIT_DEFAULT, 1 GiB).
FRAME_LIMIT_DEFAULT: int = _ghz.FRAME_LIMIT_DEFAULT

#: True when the C library was built with the CUDA codec.
WITH_CUDA = bool(_ghz.CUDA)

Status = enum.IntEnum("Status", _ghz._STATUS_NAMES)  # type: ignore[misc]
Status.__doc__ = "ghz's status codes (ghz/errors.h): GhzError.status is one of them."

_MODES = {"abs": _ghz.ABS, "rel": _ghz.REL}


def _mode(mode: str) -> int:
    try:
        return _MODES[mode.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"ghz: mode must be 'abs' or 'rel', got {mode!r}") from None


def _range(value_range: Optional[Tuple[float, float]]) -> Optional[Tuple[float, float]]:
    if value_range is None:
        return None
    lo, hi = value_range
    return (float(lo), float(hi))


_CUDA_TYPES = {"<f4": _ghz.F32, "<f8": _ghz.F64}
_CAI = "__cuda_array_interface__"


def _on_device(obj: Any) -> bool:
    return hasattr(obj, _CAI)


def _cuda_array(obj: Any, what: str, *, writable: bool = False, frame: bool = False):
    """(pointer, values, dtype code, interface) of a CUDA array (CUDA Array Interface),
    checked as host arrays are: C-contiguous, float32/float64 (a frame: bytes)."""
    cai = getattr(obj, _CAI)
    if cai.get("mask") is not None:
        raise ValueError(f"ghz.{what}: masked CUDA arrays are not supported")
    typestr = cai["typestr"]
    if frame:
        if typestr[1:] not in ("u1", "i1", "b1"):
            raise TypeError(f"ghz.{what}: a frame in device memory must be bytes, got {typestr}")
        code, item = 0, 1
    else:
        if typestr not in _CUDA_TYPES:
            raise TypeError(f"ghz.{what}: ghz takes float32 or float64 values in native byte "
                            f"order, got a CUDA array of {typestr}")
        code, item = _CUDA_TYPES[typestr], int(typestr[2:])
    shape = tuple(int(d) for d in cai["shape"])
    n = 1
    for d in shape:
        n *= d
    strides = cai.get("strides")
    if strides is not None and n > 1:
        expect = item
        for d, st in reversed(list(zip(shape, strides))):
            if d > 1 and st != expect:
                raise ValueError(f"ghz.{what}: the CUDA array is not C-contiguous; ghz does not "
                                 "copy (pass cupy.ascontiguousarray(a) or a.contiguous())")
            expect *= d
    ptr, readonly = cai["data"]
    if writable and readonly:
        raise ValueError(f"ghz.{what}: the output CUDA array is read-only")
    if not WITH_CUDA:
        raise TypeError(f"ghz.{what}: this ghz was built without the CUDA codec, so it cannot "
                        "work on CUDA arrays (pip install . -C cmake.define.GHZ_ENABLE_CUDA=ON)")
    return int(ptr or 0), n, code, cai


def _stream(stream: Any, cai: Optional[dict]) -> int:
    """The CUDA stream handle to run on: the one given (an int, a CuPy stream's .ptr, a
    PyTorch stream's .cuda_stream), else the array's (its interface's "stream"), else
    the legacy default stream."""
    if stream is None:
        s = cai.get("stream") if cai else None
        return 0 if s is None else int(s)
    for attr in ("ptr", "cuda_stream"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


def compress(
    array: Any,
    mode: str = "rel",
    bound: float = 1e-4,
    fill: Optional[float] = None,
    *,
    checksum: bool = False,
    nthreads: int = 0,
    value_range: Optional[Tuple[float, float]] = None,
    stream: Any = None,
) -> Any:
    """Compresses an array of float32 or float64 values into a ghz stream.

    Every value v comes back as v' with |v - v'| <= E, where E is ``bound`` (mode
    "abs") or ``bound * (max - min)`` over the finite values that are not the fill value
    (mode "rel"; ``value_range=(min, max)`` gives that range instead of scanning the
    array, e.g. one range for the chunks of a larger array). NaN, +-Inf and values
    equal to ``fill`` (bit for bit, in the array's dtype) come back exactly.

    Args:
        array: any C-contiguous buffer of float32 or float64 (numpy.ndarray,
            array.array, memoryview), of any shape; it is read in memory order and not
            copied.
        mode: "rel" or "abs".
        bound: the bound, finite and > 0.
        fill: a fill value (netCDF's _FillValue), or None.
        checksum: end each frame with a CRC-32C that every reader verifies.
        nthreads: CPU threads (0: all). The output is the same for every value.
        value_range: REL's range (min, max), or None to scan the array.
        stream: CUDA arrays only: the stream to run on (an int handle, a CuPy or
            PyTorch stream); default the array's own (__cuda_array_interface__), else
            the default stream. The call waits for its work on that stream.

    Returns:
        The stream as bytes: one frame, or several for arrays of more than
        FRAME_ELEMS values. The shape is not stored (decompress returns a flat array).
        For a CUDA array (an object with __cuda_array_interface__: CuPy, PyTorch,
        Numba; built with the CUDA codec), one frame in device memory, a
        DeviceBuffer (cupy.asarray views it; tobytes() copies it to the host); the
        GPU writes the same bytes as the CPU. nthreads does not apply and checksum is
        not supported there yet.

    Raises:
        TypeError: not a buffer of float32 or float64.
        ValueError: a strided (non-contiguous) array, or a bad mode.
        GhzError: the library refused (e.g. Status.ERR_BAD_BOUND for a bad bound).
    """
    if _on_device(array):
        ptr, n, code, cai = _cuda_array(array, "compress")
        if checksum:
            raise ValueError("ghz.compress: the CUDA codec writes no checksum yet")
        return _ghz.cuda_compress(ptr, n, code, _mode(mode), float(bound), fill,
                                  _range(value_range), _stream(stream, cai))
    return _ghz.compress(
        array, _mode(mode), float(bound), fill, bool(checksum), int(nthreads), FRAME_ELEMS,
        _range(value_range),
    )


def decompress(
    frame: Any,
    out: Any = None,
    *,
    nthreads: int = 0,
    max_frame_bytes: int = FRAME_LIMIT_DEFAULT,
    stream: Any = None,
) -> Any:
    """Decompresses a ghz stream (one or more frames).

    Args:
        frame: the stream: bytes, bytearray, memoryview or any contiguous buffer.
        out: None, or a writable C-contiguous array of the stream's dtype and exactly
            its number of values (any shape), which receives the values.
        nthreads: CPU threads (0: all).
        max_frame_bytes: the largest frame accepted, in decoded bytes (0: no limit);
            a larger one raises GhzError with Status.ERR_LIMIT before anything is
            allocated for it.
        stream: CUDA only, as for compress.

    Returns:
        ``out`` when given; otherwise a new 1-D numpy array (a memoryview of format
        'f' or 'd' where numpy is not installed).

    On the GPU (built with the CUDA codec): a frame in device memory (a DeviceBuffer
    from compress, or any CUDA array of bytes) decodes there, into ``out`` (a CUDA
    array) or into a new DeviceBuffer of values; a host frame decodes on the GPU when
    ``out`` is a CUDA array. One frame per call there.

    Raises:
        GhzError: a truncated, corrupted or foreign stream (never a crash), or a frame
            over the limit.
        TypeError, ValueError: ``out`` of the wrong dtype, size or layout.
    """
    if _on_device(frame) or _on_device(out):
        return _decompress_cuda(frame, out, int(max_frame_bytes), stream)
    if out is None:
        try:
            import numpy
        except ImportError:
            numpy = None
        if numpy is not None:
            # numpy's allocator asks the kernel for huge pages on large arrays, so the
            # first touch of a new output costs far less than a bytearray's 4 KiB page
            # faults (docs/PYTHON.md, Benchmark).
            head = _ghz.info(frame, int(max_frame_bytes))
            out = numpy.empty(head["n"], dtype=head["dtype"])
    buf, dtype, _ = _ghz.decompress(frame, out, int(nthreads), int(max_frame_bytes))
    if out is None:
        return memoryview(buf).cast("f" if dtype == _ghz.F32 else "d")
    return out


def _decompress_cuda(frame: Any, out: Any, limit: int, stream: Any) -> Any:
    if out is not None and not _on_device(out):
        raise TypeError("ghz.decompress: a frame in device memory decodes into a CUDA "
                        "array: pass one as out=, or copy the frame with frame.tobytes()")
    host, fptr, fsize, fcai = frame, 0, 0, None
    if _on_device(frame):
        fptr, fsize, _, fcai = _cuda_array(frame, "decompress", frame=True)
        host = None
    optr = obytes = ocode = 0
    ocai = None
    if out is not None:
        optr, on, ocode, ocai = _cuda_array(out, "decompress", writable=True)
        obytes = on * (4 if ocode == _ghz.F32 else 8)
    res = _ghz.cuda_decompress(host, fptr, fsize, optr, obytes, ocode,
                               _stream(stream, fcai or ocai), limit)
    return out if out is not None else res


@dataclass(frozen=True)
class FrameInfo:
    """What the headers of a ghz stream say (see ghz/codec/FORMAT.md)."""

    dtype: str  #: "float32" or "float64"
    mode: str  #: "abs" or "rel", as the user asked
    bound: float  #: the bound as given (absolute, or the REL factor)
    abs_bound: float  #: the absolute bound every value satisfies (largest over frames)
    fill: Optional[float]  #: the fill value, or None
    checksum: bool  #: the (first) frame ends with a CRC-32C
    n: int  #: values in the stream
    frames: int  #: frames in the stream
    nbytes: int  #: bytes of the stream
    format_version: int  #: the format version of the (first) frame

    @property
    def ratio(self) -> float:
        """Compression ratio: decoded bytes over compressed bytes."""
        item = 4 if self.dtype == "float32" else 8
        return self.n * item / self.nbytes if self.nbytes else 0.0


def info(frame: Any) -> FrameInfo:
    """Reads and validates the headers of every frame of a stream (not the payload).

    A frame in device memory is copied to the host first (its tobytes()).

    Raises:
        GhzError: a stream whose headers are invalid or truncated.
    """
    if _on_device(frame):
        frame = frame.tobytes()
    return FrameInfo(**_ghz.info(frame))


def add(a: Any, b: Any) -> bytes:
    """The stream of a + b, element-wise, computed on the compressed streams.

    The result is byte for byte what decompressing both, adding in the dtype's
    arithmetic and recompressing under ABS with the inputs' absolute bound would give
    (ghz/homo/HOMO.md); a position that is fill in either input is fill. The inputs
    must match frame by frame (count, dtype, absolute bound, fill): otherwise GhzError
    with Status.ERR_MISMATCH. Compress both with the same ``value_range`` (or under
    ABS) to give them the same bound.
    """
    return _ghz.homo(_ghz.OP_ADD, a, b)


def sub(a: Any, b: Any) -> bytes:
    """The stream of a - b, element-wise (see add)."""
    return _ghz.homo(_ghz.OP_SUB, a, b)


def min(a: Any, b: Any) -> bytes:  # noqa: A001 - the operation's name
    """The stream of the element-wise minimum of a and b (see add; NaN rules in HOMO.md)."""
    return _ghz.homo(_ghz.OP_MIN, a, b)


def max(a: Any, b: Any) -> bytes:  # noqa: A001 - the operation's name
    """The stream of the element-wise maximum of a and b (see add)."""
    return _ghz.homo(_ghz.OP_MAX, a, b)


def to_device(array: Any) -> Any:
    """A copy of a host float32/float64 array on the current CUDA device, as a
    DeviceBuffer (for callers without CuPy or PyTorch; built with CUDA only)."""
    if not WITH_CUDA:
        raise TypeError("ghz.to_device: this ghz was built without the CUDA codec")
    return _ghz.cuda_to_device(array)


def version() -> Tuple[int, int]:
    """(library version number, stream format version) of the linked libghz."""
    return _ghz.versions()
