"""ghz as a numcodecs codec, for zarr: ``ghz.numcodecs.Ghz`` (codec id "ghz").

    import zarr, ghz.numcodecs
    z = zarr.create_array(store, shape=a.shape, chunks=(256, 256), dtype=a.dtype,
                          zarr_format=2, compressors=ghz.numcodecs.Ghz(mode="abs", bound=1e-3))

Installed, the package registers the codec through numcodecs' entry point
(numcodecs.codecs: ghz = ghz.numcodecs:Ghz), so numcodecs.get_codec({"id": "ghz", ...})
finds it without an import; importing this module registers it too.

Each chunk is one ghz stream. Under "rel" the bound is relative to each chunk's own
range: give value_range=(min, max) of the whole array (or use "abs") for one bound over
the array. For zarr format 3 arrays use ghz.zarr3.Ghz (an array-to-bytes codec).
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray_like, ensure_ndarray_like
from numcodecs.registry import register_codec

from ._api import _check_float_dtype, _Params, decompress


class Ghz(Codec):
    """numcodecs codec of ghz: error-bounded compression of float32/float64 chunks.

    The parameters are checked when the codec is made (GhzError, TypeError or
    ValueError saying what to pass), not at the first write.

    Args:
        mode: "rel" or "abs".
        bound: the bound, a finite number > 0 (see ghz.compress).
        fill: a fill value kept exactly, or None (zarr's fill_value is not used: pass it).
            float("nan") declares NaN the fill value: NaN values are then left out of
            the blocks' coding, as a fill value is, which compresses NaN-masked fields
            far better. In the stored configuration a NaN or infinite fill is a string
            ("NaN", "Infinity", "-Infinity", or "0x..." of a NaN's float64 bits), so
            that the metadata stays strict JSON; the old NaN literal is read too.
        checksum: end each chunk's frame with a CRC-32C.
        value_range: REL's (min, max) for every chunk, finite with min <= max, or None
            (each chunk's range). ghz.value_range(a) computes it.
        nthreads: CPU threads per chunk (0: all); not part of the stored config.
        prefer: "speed" (default) or "ratio": predicted along the chunk's shape and
            entropy coded (ghz.compress says more); stored in the config when "ratio".
    """

    codec_id = "ghz"

    def __init__(
        self,
        mode: str = "rel",
        bound: float = 1e-4,
        fill: Optional[float] = None,
        checksum: bool = False,
        value_range: Optional[Tuple[float, float]] = None,
        nthreads: int = 0,
        prefer: str = "speed",
    ) -> None:
        self._params = _Params(mode=mode, bound=bound, fill=fill, checksum=checksum,
                               value_range=value_range, prefer=prefer)
        self.mode = self._params.mode
        self.bound = self._params.bound
        self.fill = self._params.fill
        self.checksum = self._params.checksum
        self.prefer = self._params.prefer
        vr = self._params.value_range
        self.value_range = None if vr is None else list(vr)
        self._nthreads = int(nthreads)

    def encode(self, buf: Any) -> bytes:
        arr = ensure_contiguous_ndarray_like(buf, flatten=False)
        _check_float_dtype(arr.dtype, "chunks")
        return self._params.compress(arr, self._nthreads)

    def decode(self, buf: Any, out: Any = None) -> Any:
        frame = ensure_contiguous_ndarray_like(buf, flatten=True)
        if out is None:
            return decompress(frame, nthreads=self._nthreads)
        out = ensure_ndarray_like(out)
        if not out.flags.c_contiguous:
            raise ValueError("ghz: out must be C-contiguous")
        return decompress(frame, out=out, nthreads=self._nthreads)

    def get_config(self) -> Dict[str, Any]:
        return {"id": self.codec_id, **self._params.config()}

    def __repr__(self) -> str:
        return (
            f"Ghz(mode={self.mode!r}, bound={self.bound!r}, fill={self.fill!r}, "
            f"checksum={self.checksum!r}, value_range={self.value_range!r}, "
            f"prefer={self.prefer!r})"
        )


register_codec(Ghz)
