"""The functions of the ghz package: thin wrappers over the C library (ghz._ghz).

Every array is taken as it is, without a copy, through the buffer protocol, DLPack
(__dlpack__) or the CUDA Array Interface: it must be C-contiguous float32 or float64 in
native byte order. A strided view is refused with a
ValueError (copy it yourself with numpy.ascontiguousarray), another dtype with a
TypeError, and every failure of the library raises GhzError (a ValueError) with ghz's
status code and detail message. The GIL is released while ghz works, so threads that
compress different arrays run in parallel.
"""
from __future__ import annotations

import enum
import math
import struct
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

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


def _param_error(status: str, msg: str) -> Exception:
    """A GhzError (a ValueError) with ghz's status, for a parameter refused before the
    library sees it: the same class and .status as the library's refusal."""
    err = GhzError(msg)
    err.status = getattr(_ghz, "_STATUS_NAMES")[status]
    err.detail = msg.partition(": ")[2]
    return err


def _range(value_range: Optional[Tuple[float, float]]) -> Optional[Tuple[float, float]]:
    """value_range as two floats, refused unless finite with min <= max: a reversed, NaN
    or infinite range would make REL lossless without a word."""
    if value_range is None:
        return None
    try:
        lo, hi = value_range
        lo, hi = float(lo), float(hi)
    except (TypeError, ValueError):
        raise TypeError("ghz: value_range must be a pair (min, max) of numbers, or None, got "
                        f"{value_range!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise _param_error("ERR_BAD_BOUND", f"ghz: value_range must be (min, max) of the data, "
                           f"finite with min <= max, got ({lo!r}, {hi!r}); ghz.value_range(a) "
                           "computes it, None lets each array use its own")
    return (lo, hi)


def _bound(bound: Any) -> float:
    """The bound as a float, refused unless a finite number > 0."""
    try:
        b = float(bound)
    except (TypeError, ValueError):
        raise TypeError(f"ghz: bound must be a number, got {bound!r}") from None
    if not (b > 0 and math.isfinite(b)):
        raise _param_error("ERR_BAD_BOUND", f"ghz: bound must be a finite number > 0, got "
                           f"{bound!r} (under 'rel' a fraction of the value range such as "
                           "1e-4, under 'abs' the largest error allowed, in the data's units)")
    return b


def _fill(fill: Any) -> Optional[float]:
    """The fill value as a float (any float: NaN and +-Inf included), or None. The JSON
    forms of the codecs' configurations are read too: "NaN", "Infinity", "-Infinity"
    and "0x..." (the float64's bits, for a NaN with a payload)."""
    if fill is None:
        return None
    if isinstance(fill, str):
        s = fill.strip()
        if s.lower().startswith("0x"):
            try:
                return struct.unpack("<d", struct.pack("<Q", int(s, 16)))[0]
            except (ValueError, struct.error):
                pass
        elif s in ("NaN", "Infinity", "-Infinity"):
            return float(s.replace("Infinity", "inf"))
        raise ValueError(f"ghz: fill must be a number, None, or one of 'NaN', 'Infinity', "
                         f"'-Infinity', '0x<float64 bits>', got {fill!r}")
    try:
        return float(fill)
    except (TypeError, ValueError):
        raise TypeError(f"ghz: fill must be a number or None, got {fill!r}") from None


_CANONICAL_NAN = struct.unpack("<Q", struct.pack("<d", float("nan")))[0]


def _fill_json(fill: Optional[float]) -> Any:
    """The fill value in strict JSON (no NaN or Infinity literal): a number, or "NaN",
    "Infinity", "-Infinity", or "0x..." of the float64's bits for a NaN with another
    payload. _fill reads each back to the same bits."""
    if fill is None or math.isfinite(fill):
        return fill
    if math.isinf(fill):
        return "Infinity" if fill > 0 else "-Infinity"
    bits = struct.unpack("<Q", struct.pack("<d", fill))[0]
    return "NaN" if bits == _CANONICAL_NAN else f"0x{bits:016x}"


_PREFER_SPEED, _PREFER_RATIO = 0, 1


def _prefer(prefer: Any) -> int:
    """The C value of prefer= ("speed" or "ratio"), or a ValueError that says so."""
    if isinstance(prefer, str) and prefer.lower() in ("speed", "ratio"):
        return _PREFER_RATIO if prefer.lower() == "ratio" else _PREFER_SPEED
    raise ValueError(f"prefer={prefer!r}: pass 'speed' (the default) or 'ratio'")


def _dims_of(array: Any) -> Tuple[int, int, int]:
    """The extents of a C-ordered array, fastest first (the last axis first); axes
    beyond three are folded into the slowest; (0, 0, 0) when the array has no shape."""
    shape = tuple(int(s) for s in getattr(array, "shape", ()) if int(s) != 1)
    if len(shape) < 2:
        return (0, 0, 0)
    rev = list(reversed(shape))
    while len(rev) > 3:
        rev[-2] *= rev[-1]
        rev.pop()
    while len(rev) < 3:
        rev.append(1)
    return (rev[0], rev[1], rev[2])


@dataclass(frozen=True)
class _Params:
    """Compression parameters, checked when made (the codecs and ghz.h5.filter make one
    when they are constructed, so a bad value is refused there, not at the first write).
    A new parameter is one more field here, passed on by _Params.compress."""

    mode: str = "rel"
    bound: float = 1e-4
    fill: Optional[float] = None
    checksum: bool = False
    value_range: Optional[Tuple[float, float]] = None
    prefer: str = "speed"

    def __post_init__(self) -> None:
        _prefer(self.prefer)
        object.__setattr__(self, "prefer", self.prefer.lower())
        _mode(self.mode)
        object.__setattr__(self, "mode", self.mode.lower())
        object.__setattr__(self, "bound", _bound(self.bound))
        object.__setattr__(self, "fill", _fill(self.fill))
        object.__setattr__(self, "checksum", bool(self.checksum))
        object.__setattr__(self, "value_range", _range(self.value_range))

    def config(self) -> Dict[str, Any]:
        """The parameters as strict JSON values (the codecs' stored configuration)."""
        return {
            "mode": self.mode,
            "bound": self.bound,
            "fill": _fill_json(self.fill),
            "checksum": self.checksum,
            "value_range": None if self.value_range is None else list(self.value_range),
            # only when not the default, so that configurations written with the
            # default stay readable by versions without prefer=
            **({"prefer": self.prefer} if self.prefer != "speed" else {}),
        }

    def compress(self, array: Any, nthreads: int = 0) -> Any:
        return compress(array, self.mode, self.bound, self.fill, checksum=self.checksum,
                        nthreads=nthreads, value_range=self.value_range, prefer=self.prefer)


def _check_float_dtype(dtype: Any, what: str) -> None:
    """Refuses a numpy dtype that is not float32/float64 in native byte order (the
    codecs' chunks), saying how to convert one in the other byte order."""
    if dtype.kind == "f" and dtype.itemsize in (4, 8):
        if dtype.isnative:
            return
        native = dtype.newbyteorder("=").str
        raise TypeError(f"ghz: {what} of {dtype.str} (float{dtype.itemsize * 8} in the other "
                        f"byte order); ghz takes this machine's byte order: make the array "
                        f"with dtype '{native}' (arr.astype('{native}'))")
    raise TypeError(f"ghz: float32 or float64 {what} only, got {dtype}")


class RangeWarning(UserWarning):
    """REL took a range that spans 1e30 or more: most likely a fill value (netCDF's
    _FillValue, such as 9.97e36 or -1e34) counted as data, which makes the bound on the
    real values that large. Pass fill= (or value_range=)."""


_warned_range = False
_HUGE_RANGE = 1e30


def _check_rel_range(array: Any, frame: bytes, bound: float) -> None:
    """Warns once per process (RangeWarning) when a REL frame without fill and without
    value_range took a range of 1e30 or more. Reads only the frames' headers."""
    global _warned_range
    if _warned_range:
        return
    abs_bound = _ghz.info(frame, 0)["abs_bound"]
    if not abs_bound / bound >= _HUGE_RANGE:
        return
    _warned_range = True
    big = ""
    try:
        import numpy

        a = numpy.asarray(array).reshape(-1)
        mag = numpy.abs(numpy.where(numpy.isfinite(a), a, 0))
        big = f" (the array holds {float(a[int(numpy.argmax(mag))])!r})"
    except Exception:  # noqa: BLE001 - the hint is optional
        pass
    warnings.warn(
        f"ghz: REL over a value range of {abs_bound / bound:.3g}{big}: every value may be off "
        f"by up to {abs_bound:.3g}. If that value marks missing data, pass fill=<it> (kept "
        "exactly, left out of the range), or value_range=(min, max) of the real values",
        RangeWarning, stacklevel=3)


_CUDA_TYPES = {"<f4": _ghz.F32, "<f8": _ghz.F64}
_CAI = "__cuda_array_interface__"

# Where an array lives, as compress and decompress dispatch on it.
_HOST = 0  #: the buffer protocol (numpy, bytes, memoryview, array.array)
_CAI_DEV = 1  #: __cuda_array_interface__ (CuPy, PyTorch, Numba, ghz.DeviceBuffer)
_DL_DEV = 2  #: DLPack, kDLCUDA (PyTorch, CuPy, JAX on a GPU)
_DL_HOST = 3  #: DLPack, kDLCPU, without the buffer protocol (PyTorch and JAX on the CPU)
_DL_CPU, _DL_CUDA = 1, 2  # DLPack's device types kDLCPU and kDLCUDA
# The newest DLPack this consumer reads (ghz/python/ext/dlpack.h).
_DL_MAX_VERSION = (1, 0)


def _where(obj: Any) -> int:
    """Which path an array takes. DLPack comes first for device arrays: its stream
    argument lets the producer order its pending work before ghz's on ghz's stream, which
    a CUDA Array Interface without a stream (PyTorch's) cannot. Host arrays keep the
    buffer protocol (numpy also speaks DLPack) unless they have none."""
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is not None and hasattr(obj, "__dlpack__"):
        kind = int(dev()[0])
        if kind == _DL_CUDA:
            return _DL_DEV
        if kind == _DL_CPU:
            return _HOST if _ghz.has_buffer(obj) else _DL_HOST
        if _has_cai(obj):
            return _CAI_DEV
        raise TypeError(f"ghz: a DLPack array on device type {kind}: ghz takes CPU (1) and "
                        "CUDA (2) memory")
    return _CAI_DEV if _has_cai(obj) else _HOST


def _has_cai(obj: Any) -> bool:
    # On the type first (CuPy, Numba, ghz.DeviceBuffer: a property), which hasattr()
    # would evaluate, building the interface's dict once more per call.
    return hasattr(type(obj), _CAI) or _CAI in getattr(obj, "__dict__", ())


def _no_cuda(what: str) -> TypeError:
    return TypeError(f"ghz.{what}: this ghz was built without the CUDA codec, so it cannot "
                     "work on CUDA arrays (pip install . -C cmake.define.GHZ_ENABLE_CUDA=ON)")


def _typecode(typestr: str, what: str, frame: bool) -> Tuple[int, int]:
    """(dtype code, item size) of a device array's element type: float32/float64 values,
    or bytes for a frame (code 0)."""
    if frame:
        if typestr[1:] not in ("u1", "i1", "b1"):
            raise TypeError(f"ghz.{what}: a frame in device memory must be bytes, got {typestr}")
        return 0, 1
    if typestr not in _CUDA_TYPES:
        if typestr in (">f4", ">f8"):
            raise TypeError(f"ghz.{what}: the CUDA array holds float{int(typestr[2]) * 8} "
                            f"values in big-endian byte order ({typestr}); ghz takes "
                            "float32 or float64 in little-endian byte order: pass "
                            f"arr.astype('<f{typestr[2]}')")
        raise TypeError(f"ghz.{what}: ghz takes float32 or float64 values in native byte "
                        f"order, got a CUDA array of {typestr}")
    return _CUDA_TYPES[typestr], int(typestr[2:])


def _not_contiguous(what: str) -> ValueError:
    return ValueError(f"ghz.{what}: the CUDA array is not C-contiguous; ghz does not copy "
                      "(pass cupy.ascontiguousarray(a) or a.contiguous())")


def _cuda_array(obj: Any, what: str, *, writable: bool = False, frame: bool = False):
    """(pointer, values, dtype code, interface) of a CUDA array (CUDA Array Interface),
    checked as host arrays are: C-contiguous, float32/float64 (a frame: bytes)."""
    cai = getattr(obj, _CAI)
    if cai.get("mask") is not None:
        raise ValueError(f"ghz.{what}: masked CUDA arrays are not supported")
    code, item = _typecode(cai["typestr"], what, frame)
    shape = tuple(int(d) for d in cai["shape"])
    n = 1
    for d in shape:
        n *= d
    strides = cai.get("strides")
    if strides is not None and n > 1:
        expect = item
        for d, st in reversed(list(zip(shape, strides))):
            if d > 1 and st != expect:
                raise _not_contiguous(what)
            expect *= d
    ptr, readonly = cai["data"]
    if writable and readonly:
        raise ValueError(f"ghz.{what}: the output CUDA array is read-only")
    if not WITH_CUDA:
        raise _no_cuda(what)
    return int(ptr or 0), n, code, cai


def _dlpack_take(obj: Any, stream: Optional[int]) -> Any:
    """The producer's tensor as a _ghz.DLPackView (release() it when done). stream: the
    DLPack stream argument (None on the CPU). A producer older than DLPack 1.0 does not
    take max_version (a TypeError): it is asked again without, and gives the unversioned
    capsule."""
    try:
        cap = obj.__dlpack__(stream=stream, max_version=_DL_MAX_VERSION)
    except TypeError:
        cap = obj.__dlpack__(stream=stream)
    return _ghz.dlpack_view(cap)


def _dlpack_array(view: Any, what: str, *, writable: bool = False, frame: bool = False):
    """(pointer, values, dtype code) of a DLPack CUDA tensor, under the rules of
    _cuda_array."""
    code, _ = _typecode(view.typestr, what, frame)
    if not view.contiguous:
        raise _not_contiguous(what)
    if writable and view.readonly:
        raise ValueError(f"ghz.{what}: the output CUDA array is read-only")
    if writable and view.copied:
        # Values written into the producer's copy would never reach the array.
        raise ValueError(f"ghz.{what}: the producer exported a copy of the output array")
    return view.ptr, view.n, code


def _stream_handle(stream: Any) -> int:
    """The CUDA stream handle of stream= (an int, a CuPy stream's .ptr, a PyTorch
    stream's .cuda_stream)."""
    for attr in ("ptr", "cuda_stream"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


def _stream(stream: Any, cai: Optional[dict]) -> int:
    """The CUDA stream handle to run on: the one given (an int, a CuPy stream's .ptr, a
    PyTorch stream's .cuda_stream), else the array's (its interface's "stream"), else
    the legacy default stream."""
    if stream is None:
        s = cai.get("stream") if cai else None
        return 0 if s is None else int(s)
    return _stream_handle(stream)


def _producer_stream(obj: Any) -> int:
    """The stream a DLPack device array's own library runs on now: PyTorch's and CuPy's
    current stream of the array's device, else the legacy default stream (0)."""
    lib = type(obj).__module__.partition(".")[0]
    mod = sys.modules.get(lib)
    if lib == "torch" and mod is not None:
        return int(mod.cuda.current_stream(obj.device).cuda_stream)
    if lib == "cupy" and mod is not None:
        with obj.device:
            return int(mod.cuda.get_current_stream().ptr)
    return 0


def _dl_stream(handle: int) -> int:
    """The DLPack stream argument for a CUDA stream handle: 0 (the legacy default stream)
    is spelled 1, because DLPack reserves 0; 1 and 2 are also the runtime's own handles
    of the legacy and per-thread default streams (cudaStreamLegacy, cudaStreamPerThread)."""
    return 1 if handle == 0 else handle


# Fast paths for the two device arrays that hot loops pass most: ghz's own DeviceBuffer
# and a plain PyTorch CUDA tensor. They reach the same C calls on the same stream as the
# general paths below, without the Python-level work of those (on an H200, for a torch
# tensor: __dlpack__ and its capsule 20 us, torch.cuda.current_stream 6 us, against a
# C call of 96 us for 64 MiB of f32; for a DeviceBuffer 3 us per interface dict;
# docs/PYTHON.md): a DeviceBuffer goes to C as
# itself, which knows its pointer, device and (a frame) header; a tensor is read
# through its C-level accessors and runs on torch's current stream, where DLPack's
# handshake (the producer orders its pending work before ghz's stream) has nothing to
# do. Anything else, and anything these would refuse, takes the general path, which
# gives the same results and the same errors.
_DevBuf = getattr(_ghz, "DeviceBuffer", None)
_torch_fast: Any = None  # per torch module: (module, {dtype: (code, size)}, stream getter)


def _torch_setup(torch: Any) -> Any:
    global _torch_fast
    # torch's own raw-stream query (what its compiled kernels launch on): an int, where
    # torch.cuda.current_stream() builds a Stream object in Python. Without it (another
    # version), no fast path.
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    types = {torch.float32: (_ghz.F32, 4), torch.float64: (_ghz.F64, 8)}
    _torch_fast = (torch, types, raw if hasattr(torch.Tensor, "is_neg") else None)
    return _torch_fast


def _torch_plain(obj: Any) -> Optional[Tuple[int, int, int, int, int]]:
    """(pointer, values, dtype code, item size, stream) of a PyTorch CUDA tensor that ghz
    takes as it is (C-contiguous float32/float64, strided, not empty, no autograd, no
    lazy negation) on torch's current stream of its device; else None."""
    torch = sys.modules.get("torch")
    if torch is None or type(obj) is not getattr(torch, "Tensor", None):
        return None
    fast = _torch_fast if _torch_fast is not None and _torch_fast[0] is torch else _torch_setup(torch)
    raw = fast[2]
    kind = fast[1].get(obj.dtype)
    if (raw is None or kind is None or not obj.is_cuda or obj.layout is not torch.strided
            or obj.requires_grad or obj.is_neg() or not obj.is_contiguous()):
        return None
    n = obj.numel()
    if n == 0:
        return None
    return obj.data_ptr(), n, kind[0], kind[1], int(raw(obj.get_device()))


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
    prefer: str = "speed",
) -> Any:
    """Compresses an array of float32 or float64 values into a ghz stream.

    Every value v comes back as v' with |v - v'| <= E, where E is ``bound`` (mode
    "abs") or ``bound * (max - min)`` over the finite values that are not the fill value
    (mode "rel"; ``value_range=(min, max)`` gives that range instead of scanning the
    array, e.g. one range for the chunks of a larger array). NaN, +-Inf and values
    equal to ``fill`` (bit for bit, in the array's dtype) come back exactly.

    Args:
        array: any C-contiguous buffer of float32 or float64 (numpy.ndarray,
            array.array, memoryview), or a DLPack array (__dlpack__: a PyTorch or JAX
            CPU tensor), of any shape; it is read in memory order and not copied.
        mode: "rel" or "abs".
        bound: the bound, finite and > 0.
        fill: a fill value (netCDF's _FillValue), or None. NaN needs no declaring:
            a frame written without a fill (prefer="speed") has NaN as its fill, so
            NaN-masked data compresses as well as with a declared fill.
        checksum: end each frame with a CRC-32C that every reader verifies.
        nthreads: CPU threads (0: all). The output is the same for every value.
        value_range: REL's range (min, max), finite with min <= max (else GhzError
            with Status.ERR_BAD_BOUND), or None to scan the array; ignored under
            "abs". ghz.value_range(a) computes it.
        prefer: "speed" (default: the block frames, GB/s to TB/s, homomorphic) or
            "ratio" (ghz/codec/RATIO.md: each value predicted along the array's
            dimensions, taken from its shape, and entropy coded: several times fewer
            bytes on smooth fields at the same bound, several times slower; frames
            hold whole slabs of the slowest axis). CPU only for now.
        stream: CUDA arrays only: the stream to run on (an int handle, a CuPy or
            PyTorch stream); default, for a DLPack array, its library's current stream
            (PyTorch's, CuPy's; else the legacy default stream), which is also passed
            to its __dlpack__ so that the producer's pending work comes first; for a
            CUDA Array Interface array its interface's "stream", else the legacy
            default stream. The call waits for its work on that stream.

    Returns:
        The stream as bytes: one frame, or several for arrays of more than
        FRAME_ELEMS values. The shape is not stored (decompress returns a flat array).
        For a CUDA array (DLPack on kDLCUDA: PyTorch, CuPy, JAX; or
        __cuda_array_interface__: Numba, ghz.DeviceBuffer; built with the CUDA
        codec), one frame in device memory, a
        DeviceBuffer (cupy.asarray views it; tobytes() copies it to the host); the
        GPU writes the same bytes as the CPU. nthreads does not apply and checksum is
        not supported there yet.

    Raises:
        TypeError: not a buffer of float32 or float64 (big-endian data: the message
            says to pass arr.astype('<f4')).
        ValueError: a strided (non-contiguous) array, or a bad mode.
        GhzError: the library refused (e.g. Status.ERR_BAD_BOUND for a bad bound).

    Warns:
        RangeWarning: once per process, when "rel" without fill and value_range took a
            range of 1e30 or more (a fill value such as 9.97e36 counted as data): pass
            fill= with that value.
    """
    if fill is not None and type(fill) is not float:
        fill = _fill(fill)  # a number's float, or a refusal that names fill
    pf = _prefer(prefer)
    if pf == _PREFER_RATIO:
        where = _where(array)
        if where != _HOST:
            raise ValueError("ghz.compress: prefer='ratio' runs on the CPU for now: pass a "
                             "host array (numpy)")
        out = _ghz.compress(array, _mode(mode), float(bound), fill, bool(checksum),
                            int(nthreads), FRAME_ELEMS, _range(value_range), pf,
                            _dims_of(array))
        if fill is None and value_range is None and not _warned_range and _mode(mode) == _ghz.REL:
            _check_rel_range(array, out, float(bound))
        return out
    if WITH_CUDA and not checksum:
        if type(array) is _DevBuf:
            return _ghz.cuda_compress(array, 0, 0, _mode(mode), float(bound), fill,
                                      _range(value_range),
                                      0 if stream is None else _stream_handle(stream))
        if stream is None:
            t = _torch_plain(array)
            if t is not None:
                return _ghz.cuda_compress(t[0], t[1], t[2], _mode(mode), float(bound), fill,
                                          _range(value_range), t[4])
    where = _where(array)
    if where == _HOST:
        out = _ghz.compress(array, _mode(mode), float(bound), fill, bool(checksum),
                            int(nthreads), FRAME_ELEMS, _range(value_range), 0, (0, 0, 0))
        if fill is None and value_range is None and not _warned_range and _mode(mode) == _ghz.REL:
            _check_rel_range(array, out, float(bound))
        return out
    if where == _DL_HOST:
        view = _dlpack_take(array, None)
        try:
            return _ghz.compress(view, _mode(mode), float(bound), fill, bool(checksum),
                                 int(nthreads), FRAME_ELEMS, _range(value_range), 0, (0, 0, 0))
        finally:
            view.release()
    if where == _CAI_DEV:
        ptr, n, code, cai = _cuda_array(array, "compress")
        if checksum:
            raise ValueError("ghz.compress: the CUDA codec writes no checksum yet")
        return _ghz.cuda_compress(ptr, n, code, _mode(mode), float(bound), fill,
                                  _range(value_range), _stream(stream, cai))
    if not WITH_CUDA:
        raise _no_cuda("compress")
    if checksum:
        raise ValueError("ghz.compress: the CUDA codec writes no checksum yet")
    h = _producer_stream(array) if stream is None else _stream_handle(stream)
    view = _dlpack_take(array, _dl_stream(h))
    try:
        ptr, n, code = _dlpack_array(view, "compress")
        return _ghz.cuda_compress(ptr, n, code, _mode(mode), float(bound), fill,
                                  _range(value_range), h)
    finally:
        view.release()


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
        frame: the stream: bytes, bytearray, memoryview or any contiguous buffer (or
            a DLPack array of bytes).
        out: None, or a writable C-contiguous array of the stream's dtype and exactly
            its number of values (any shape), which receives the values: a buffer, a
            DLPack array, or a CUDA array.
        nthreads: CPU threads (0: all).
        max_frame_bytes: the largest frame accepted, in decoded bytes (0: no limit);
            a larger one raises GhzError with Status.ERR_LIMIT before anything is
            allocated for it.
        stream: CUDA only, as for compress (the default comes from ``out`` first,
            then from ``frame``).

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
    if WITH_CUDA and type(frame) is _DevBuf:
        # DeviceBuffers export no stream: stream=, else torch's for a torch out, else the
        # legacy default stream, as the general path chooses.
        limit = int(max_frame_bytes)
        if out is None or type(out) is _DevBuf:
            h = 0 if stream is None else _stream_handle(stream)
            res = _ghz.cuda_decompress(frame, 0, 0, 0 if out is None else out, 0, 0, h, limit)
            return res if out is None else out
        if stream is None:
            t = _torch_plain(out)
            if t is not None:
                _ghz.cuda_decompress(frame, 0, 0, t[0], t[1] * t[3], t[2], t[4], limit)
                return out
    fwhere = _where(frame)
    owhere = _HOST if out is None else _where(out)
    if fwhere in (_CAI_DEV, _DL_DEV) or owhere in (_CAI_DEV, _DL_DEV):
        return _decompress_cuda(frame, fwhere, out, owhere, int(max_frame_bytes), stream)
    views = []
    try:
        if fwhere == _DL_HOST:
            frame = _dlpack_take(frame, None)
            views.append(frame)
        target = out
        if owhere == _DL_HOST:
            target = _dlpack_take(out, None)
            views.append(target)
            if target.copied:
                raise ValueError("ghz.decompress: the producer exported a copy of the output "
                                 "array")
        if target is None:
            try:
                import numpy
            except ImportError:
                numpy = None
            if numpy is not None:
                # numpy's allocator asks the kernel for huge pages on large arrays, so the
                # first touch of a new output costs far less than a bytearray's 4 KiB page
                # faults (docs/PYTHON.md, Benchmark).
                try:
                    head = _ghz.info(frame, int(max_frame_bytes))
                except GhzError as e:  # ghz.info's error, said as decompress's
                    raise _renamed(e, "decompress") from None
                target = numpy.empty(head["n"], dtype=head["dtype"])
        buf, dtype, _ = _ghz.decompress(frame, target, int(nthreads), int(max_frame_bytes))
    finally:
        for v in views:
            v.release()
    if out is not None:
        return out
    if target is not None:
        return target
    return memoryview(buf).cast("f" if dtype == _ghz.F32 else "d")


def _renamed(e: Any, what: str) -> Any:
    """The GhzError e of an inner call, with the message of ghz.<what>."""
    msg = str(e)
    if msg.startswith("ghz.") and ": " in msg:
        msg = f"ghz.{what}: " + msg.partition(": ")[2]
    err = GhzError(msg)
    err.status, err.detail = e.status, e.detail
    return err


def _decompress_cuda(frame: Any, fwhere: int, out: Any, owhere: int, limit: int,
                     stream: Any) -> Any:
    if out is not None and owhere not in (_CAI_DEV, _DL_DEV):
        raise TypeError("ghz.decompress: a frame in device memory decodes into a CUDA "
                        "array: pass one as out=, or copy the frame with frame.tobytes()")
    if not WITH_CUDA and _DL_DEV in (fwhere, owhere):
        raise _no_cuda("decompress")
    fcai = _cuda_array(frame, "decompress", frame=True) if fwhere == _CAI_DEV else None
    ocai = (_cuda_array(out, "decompress", writable=True) if owhere == _CAI_DEV else None)
    # The stream: stream=, else the DLPack producer's (out's first: it is written), else
    # the CUDA Array Interface's, else the legacy default stream.
    if stream is not None:
        h = _stream_handle(stream)
    elif owhere == _DL_DEV:
        h = _producer_stream(out)
    elif fwhere == _DL_DEV:
        h = _producer_stream(frame)
    else:
        h = _stream(None, (fcai or ocai or (None,) * 4)[3])
    views = []
    try:
        host, fptr, fsize = frame, 0, 0
        if fcai is not None:
            fptr, fsize, host = fcai[0], fcai[1], None
            if type(frame) is _DevBuf:
                host = frame  # C reads its pointer, size and (ghz wrote it) header itself
        elif fwhere == _DL_DEV:
            views.append(_dlpack_take(frame, _dl_stream(h)))
            fptr, fsize, _ = _dlpack_array(views[-1], "decompress", frame=True)
            host = None
        elif fwhere == _DL_HOST:
            views.append(_dlpack_take(frame, None))
            host = views[-1]
        optr = obytes = ocode = 0
        if ocai is not None:
            optr, on, ocode = ocai[:3]
            obytes = on * (4 if ocode == _ghz.F32 else 8)
        elif owhere == _DL_DEV:
            views.append(_dlpack_take(out, _dl_stream(h)))
            optr, on, ocode = _dlpack_array(views[-1], "decompress", writable=True)
            obytes = on * (4 if ocode == _ghz.F32 else 8)
        res = _ghz.cuda_decompress(host, fptr, fsize, optr, obytes, ocode, h, limit)
    finally:
        for v in views:
            v.release()
    return out if out is not None else res


@dataclass(frozen=True)
class FrameInfo:
    """What the headers of a ghz stream say (see ghz/codec/FORMAT.md)."""

    dtype: str  #: "float32" or "float64"
    mode: str  #: "abs" or "rel", as the user asked
    bound: float  #: the bound as given (absolute, or the REL factor)
    abs_bound: float  #: the absolute bound every value satisfies (largest over frames)
    #: the fill value, or None. A block frame (prefer="speed") written without a fill
    #: declares NaN as its fill (FORMAT.md, NaN as the fill value): nan here, as for
    #: fill=float("nan"); None for a frame of ghz 0.2 or a ratio frame without a fill.
    fill: Optional[float]
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

    A frame in device memory is copied to the host first (its tobytes(): a
    DeviceBuffer, a CuPy array); copy another device frame yourself (t.cpu()).

    Raises:
        GhzError: a stream whose headers are invalid or truncated.
    """
    where = _where(frame)
    if where in (_CAI_DEV, _DL_DEV):
        if not hasattr(frame, "tobytes"):
            raise TypeError("ghz.info: copy the device frame to the host first (e.g. t.cpu())")
        frame = frame.tobytes()
    elif where == _DL_HOST:
        view = _dlpack_take(frame, None)
        try:
            return FrameInfo(**_ghz.info(view))
        finally:
            view.release()
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
