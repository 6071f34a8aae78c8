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


def compress(
    array: Any,
    mode: str = "rel",
    bound: float = 1e-4,
    fill: Optional[float] = None,
    *,
    checksum: bool = False,
    nthreads: int = 0,
    value_range: Optional[Tuple[float, float]] = None,
) -> bytes:
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

    Returns:
        The stream as bytes: one frame, or several for arrays of more than
        FRAME_ELEMS values. The shape is not stored (decompress returns a flat array).

    Raises:
        TypeError: not a buffer of float32 or float64.
        ValueError: a strided (non-contiguous) array, or a bad mode.
        GhzError: the library refused (e.g. Status.ERR_BAD_BOUND for a bad bound).
    """
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

    Returns:
        ``out`` when given; otherwise a new 1-D numpy array (a memoryview of format
        'f' or 'd' where numpy is not installed).

    Raises:
        GhzError: a truncated, corrupted or foreign stream (never a crash), or a frame
            over the limit.
        TypeError, ValueError: ``out`` of the wrong dtype, size or layout.
    """
    if out is None:
        try:
            import numpy
        except ImportError:
            numpy = None
        if numpy is not None:
            # numpy's allocator asks the kernel for huge pages on large arrays: a new
            # 64 MiB output costs 13 % over a reused one, a bytearray's pages 60 %.
            head = _ghz.info(frame, int(max_frame_bytes))
            out = numpy.empty(head["n"], dtype=head["dtype"])
    buf, dtype, _ = _ghz.decompress(frame, out, int(nthreads), int(max_frame_bytes))
    if out is None:
        return memoryview(buf).cast("f" if dtype == _ghz.F32 else "d")
    return out


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

    Raises:
        GhzError: a stream whose headers are invalid or truncated.
    """
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


def version() -> Tuple[int, int]:
    """(library version number, stream format version) of the linked libghz."""
    return _ghz.versions()
