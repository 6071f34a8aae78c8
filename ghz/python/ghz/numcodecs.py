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

from ._api import _mode, compress, decompress


class Ghz(Codec):
    """numcodecs codec of ghz: error-bounded compression of float32/float64 chunks.

    Args:
        mode: "rel" or "abs".
        bound: the bound (see ghz.compress).
        fill: a fill value kept exactly, or None (zarr's fill_value is not used: pass it).
        checksum: end each chunk's frame with a CRC-32C.
        value_range: REL's (min, max) for every chunk, or None (each chunk's range).
        nthreads: CPU threads per chunk (0: all); not part of the stored config.
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
    ) -> None:
        _mode(mode)
        self.mode = str(mode).lower()
        self.bound = float(bound)
        self.fill = None if fill is None else float(fill)
        self.checksum = bool(checksum)
        self.value_range = None if value_range is None else [float(v) for v in value_range]
        self._nthreads = int(nthreads)

    def encode(self, buf: Any) -> bytes:
        arr = ensure_contiguous_ndarray_like(buf, flatten=False)
        if arr.dtype not in (np.float32, np.float64):
            raise TypeError(f"ghz: float32 or float64 chunks only, got {arr.dtype}")
        return compress(
            arr,
            self.mode,
            self.bound,
            self.fill,
            checksum=self.checksum,
            nthreads=self._nthreads,
            value_range=None if self.value_range is None else tuple(self.value_range),
        )

    def decode(self, buf: Any, out: Any = None) -> Any:
        frame = ensure_contiguous_ndarray_like(buf, flatten=True)
        if out is None:
            return decompress(frame, nthreads=self._nthreads)
        out = ensure_ndarray_like(out)
        if not out.flags.c_contiguous:
            raise ValueError("ghz: out must be C-contiguous")
        return decompress(frame, out=out, nthreads=self._nthreads)

    def get_config(self) -> Dict[str, Any]:
        return {
            "id": self.codec_id,
            "mode": self.mode,
            "bound": self.bound,
            "fill": self.fill,
            "checksum": self.checksum,
            "value_range": self.value_range,
        }

    def __repr__(self) -> str:
        return (
            f"Ghz(mode={self.mode!r}, bound={self.bound!r}, fill={self.fill!r}, "
            f"checksum={self.checksum!r}, value_range={self.value_range!r})"
        )


register_codec(Ghz)
