"""Arrays larger than memory: a ghz stream written chunk by chunk, and read back frame by
frame or by ranges of values, without holding the whole array or the whole stream.

A ghz stream is a concatenation of independent frames (ghz/codec/FORMAT.md), so the
frames of the chunks of one array, written one after the other, are one stream that
ghz.decompress, ghz-cli and these readers all read. Under REL every chunk must be
compressed against the same value range for one bound over the array: value_range()
computes it in a first pass over the chunks (ghz_value_range on each, merged).
"""
from __future__ import annotations

import io
import os
from typing import Any, BinaryIO, Iterable, Iterator, List, Optional, Tuple, Union

from . import _ghz
from ._api import (
    FRAME_LIMIT_DEFAULT,
    GhzError,
    _Params,
    _param_error,
    decompress,
)

_DTYPES = {_ghz.F32: "float32", _ghz.F64: "float64"}
_ITEM = {_ghz.F32: 4, _ghz.F64: 8}


def value_range(
    data: Any, fill: Optional[float] = None, *, nthreads: int = 0
) -> Optional[Tuple[float, float]]:
    """(min, max) over the finite values that are not ``fill`` of an array, or of every
    array of an iterable of arrays (the chunks of a larger one, read one at a time):
    the value_range to give compress / compress_chunks / the codecs so that every chunk
    has the bound of the whole array under REL. None when no value takes part (every
    value NaN, Inf or fill).
    """
    params = _Params(mode="rel", fill=fill)  # checks fill
    one = _ghz.has_buffer(data) or hasattr(data, "__dlpack__")
    lo = hi = None
    for chunk in [data] if one else data:
        cmin, cmax, count = _ghz.value_range(_as_array(chunk), params.fill, int(nthreads))
        if count:
            lo = cmin if lo is None or cmin < lo else lo
            hi = cmax if hi is None or cmax > hi else hi
    return None if lo is None else (lo, hi)


def _as_array(chunk: Any) -> Any:
    """A chunk without the buffer protocol (a DLPack CPU tensor) as a numpy array view."""
    if _ghz.has_buffer(chunk) or not hasattr(chunk, "__dlpack__"):
        return chunk
    import numpy

    return numpy.from_dlpack(chunk)


def compress_chunks(
    chunks: Iterable[Any],
    mode: str = "rel",
    bound: float = 1e-4,
    fill: Optional[float] = None,
    *,
    value_range: Optional[Tuple[float, float]] = None,
    checksum: bool = False,
    nthreads: int = 0,
) -> Iterator[bytes]:
    """Compresses the chunks of one array, one at a time, into the frames of one stream.

    Returns an iterator of bytes: the frames of each chunk in order (one per chunk, or
    several for a chunk of more than FRAME_ELEMS values). Their concatenation is one
    ghz stream of every chunk's values in order. The parameters are those of
    ghz.compress and are checked here, before any chunk is read.

    Under "rel", value_range=(min, max) of the whole array is required (value_range()
    computes it in a first pass), so that every chunk gets the same absolute bound; a
    single pass over chunks that cannot be read twice uses "abs". Every chunk must have
    the dtype of the first (TypeError otherwise: a stream holds one dtype).
    """
    params = _Params(mode=mode, bound=bound, fill=fill, checksum=checksum,
                     value_range=value_range)
    if params.mode == "rel" and params.value_range is None:
        raise _param_error(
            "ERR_BAD_BOUND",
            "ghz.compress_chunks: under 'rel' pass value_range=(min, max) of the whole "
            "array (ghz.value_range(chunks) computes it in a first pass), so that every "
            "chunk has the same bound; or use mode='abs'")
    return _compress_chunks(iter(chunks), params, int(nthreads))


def _compress_chunks(chunks: Iterator[Any], params: _Params, nthreads: int) -> Iterator[bytes]:
    dtype = None
    for i, chunk in enumerate(chunks):
        frame = params.compress(chunk, nthreads)
        code = _ghz.header(frame, 0)[1]
        if dtype is None:
            dtype = code
        elif code != dtype:
            raise TypeError(f"ghz.compress_chunks: chunk {i} holds {_DTYPES[code]}, the stream "
                            f"{_DTYPES[dtype]} (a stream holds one dtype)")
        yield frame


def write_stream(
    file: Union[str, "os.PathLike[str]", BinaryIO], chunks: Iterable[Any], *args: Any,
    **kwargs: Any
) -> int:
    """Writes the chunks of one array as one ghz stream into a file (a path, created or
    truncated, or a binary file object written from its position); returns the bytes
    written. The other arguments are compress_chunks' (mode, bound, fill, value_range,
    checksum, nthreads). Each frame is written as soon as its chunk
    is compressed, so memory holds one chunk and its frame at a time; a stream cut
    after any frame (a failed chunk, a crash) still reads back up to that frame
    (open_stream(..., allow_truncated=True) for a cut inside a frame)."""
    frames = compress_chunks(chunks, *args, **kwargs)  # checked before the file is opened
    if isinstance(file, (str, bytes, os.PathLike)):
        with open(file, "wb") as f:
            return _write_all(f, frames)
    return _write_all(file, frames)


def _write_all(f: BinaryIO, frames: Iterator[bytes]) -> int:
    total = 0
    for frame in frames:
        f.write(frame)
        total += len(frame)
    return total


class StreamReader:
    """A ghz stream in a file, indexed by frame (open_stream): read any range of values
    by decompressing only the frames that hold it, or iterate over the frames' arrays.

    Attributes:
        n: values in the stream.
        dtype: "float32" or "float64".
        frames: list of (offset, size, first value, values) of every frame.
        nbytes: bytes of the stream's complete frames.
    """

    def __init__(self, f: BinaryIO, close: bool, max_frame_bytes: int, nthreads: int,
                 allow_truncated: bool) -> None:
        self._f, self._close = f, close
        self._limit, self._nthreads = int(max_frame_bytes), int(nthreads)
        self.frames: List[Tuple[int, int, int, int]] = []
        self.n = 0
        self.dtype = "float32"
        start = f.tell()
        pos = start
        code = None
        f.seek(0, io.SEEK_END)
        end = f.tell()
        while pos < end:
            f.seek(pos)
            head = f.read(_ghz.HEADER_SIZE)
            try:
                n, c, size = _ghz.header(head, self._limit)
                if pos + size > end:
                    raise _param_error("ERR_TRUNCATED", f"ghz.open_stream: truncated: the "
                                       f"frame needs {size} bytes, the stream has {end - pos} "
                                       "left (allow_truncated=True reads the frames before)")
            except GhzError as e:
                if allow_truncated and e.status == _ghz._STATUS_NAMES["ERR_TRUNCATED"]:
                    break
                raise _at(e, pos - start) from None
            if code is None:
                code = c
            elif c != code:
                raise _param_error("ERR_CORRUPT", f"ghz.open_stream: the frame at byte "
                                   f"{pos - start} holds {_DTYPES[c]}, the stream "
                                   f"{_DTYPES[code]}")
            self.frames.append((pos, size, self.n, n))
            self.n += n
            pos += size
        if code is not None:
            self.dtype = _DTYPES[code]
        self.nbytes = pos - start

    def __len__(self) -> int:
        return self.n

    def _frame(self, i: int) -> bytes:
        off, size = self.frames[i][:2]
        self._f.seek(off)
        data = self._f.read(size)
        if len(data) != size:
            raise _param_error("ERR_TRUNCATED", f"ghz.open_stream: frame {i} is cut short")
        return data

    def __iter__(self) -> Iterator[Any]:
        """The values of each frame in order, as 1-D numpy arrays (one frame in memory
        at a time)."""
        for i in range(len(self.frames)):
            yield decompress(self._frame(i), nthreads=self._nthreads,
                             max_frame_bytes=self._limit)

    def read(self, start: int = 0, stop: Optional[int] = None) -> Any:
        """Values [start, stop) as a new 1-D numpy array (negative indices count from
        the end, as slices do), decompressing only the frames that hold them."""
        import numpy

        start, stop, _ = slice(start, stop).indices(self.n)
        out = numpy.empty(max(stop - start, 0), dtype=self.dtype)
        if stop <= start:
            return out
        for i, (_, _, first, count) in enumerate(self.frames):
            lo, hi = max(start, first), min(stop, first + count)
            if lo >= hi:
                continue
            dst = out[lo - start:hi - start]
            if lo == first and hi == first + count:
                decompress(self._frame(i), out=dst, nthreads=self._nthreads,
                           max_frame_bytes=self._limit)
            else:
                dst[...] = decompress(self._frame(i), nthreads=self._nthreads,
                                      max_frame_bytes=self._limit)[lo - first:hi - first]
        return out

    def __getitem__(self, key: Any) -> Any:
        """reader[a:b] (step 1) is read(a, b); reader[i] one value."""
        if isinstance(key, slice):
            if key.step not in (None, 1):
                raise ValueError("ghz: a stream is read by ranges of step 1")
            return self.read(key.start or 0, key.stop)
        i = int(key)
        i = i + self.n if i < 0 else i
        if not 0 <= i < self.n:
            raise IndexError(f"ghz: index {key} out of a stream of {self.n} values")
        return self.read(i, i + 1)[0]

    def close(self) -> None:
        if self._close:
            self._f.close()

    def __enter__(self) -> "StreamReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _at(e: Any, offset: int) -> Any:
    """e with the byte offset of its frame in the message."""
    err = GhzError(f"{e} (the frame at byte {offset})")
    err.status, err.detail = e.status, e.detail
    return err


def open_stream(
    file: Union[str, "os.PathLike[str]", BinaryIO, bytes, bytearray, memoryview],
    *,
    max_frame_bytes: int = FRAME_LIMIT_DEFAULT,
    nthreads: int = 0,
    allow_truncated: bool = False,
) -> StreamReader:
    """Opens a ghz stream for reading by frames or by ranges of values (a StreamReader;
    use it in a with block to close a file it opened).

    Args:
        file: a path, a binary file object that can seek (read from its position), or
            the stream's bytes.
        max_frame_bytes: the largest frame accepted, in decoded bytes (0: no limit).
        nthreads: CPU threads per frame (0: all).
        allow_truncated: a stream whose last frame is cut short (a writer that
            stopped) is read up to its last complete frame, instead of refused.

    Only the frames' 64-byte headers are read when it opens (the index); each read
    then decompresses the frames it needs (their checksums verified, when they have
    them).

    Raises:
        GhzError: a frame header that is not ghz, corrupt, over the limit, or (without
            allow_truncated) a stream cut short, with the frame's byte offset.
    """
    if isinstance(file, (bytes, bytearray, memoryview)):
        return StreamReader(io.BytesIO(file), True, max_frame_bytes, nthreads, allow_truncated)
    if isinstance(file, (str, os.PathLike)):
        f = open(file, "rb")
        try:
            return StreamReader(f, True, max_frame_bytes, nthreads, allow_truncated)
        except BaseException:
            f.close()
            raise
    return StreamReader(file, False, max_frame_bytes, nthreads, allow_truncated)
