"""ghz as a zarr format 3 codec: ``ghz.zarr3.Ghz`` (array-to-bytes, codec name "ghz").

    import zarr, ghz.zarr3
    z = zarr.create_array(store, shape=a.shape, chunks=(256, 256), dtype=a.dtype,
                          serializer=ghz.zarr3.Ghz(mode="abs", bound=1e-3))

zarr 3 only. Each chunk is one ghz stream of the chunk's values in C order; the
parameters are those of ghz.numcodecs.Ghz (for zarr format 2 arrays). Installed, the
package registers the codec through zarr's entry point (zarr.codecs: ghz); importing
this module registers it too.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np
from zarr.abc.codec import ArrayBytesCodec
from zarr.core.common import parse_named_configuration
from zarr.registry import register_codec

from ._api import _check_float_dtype, _Params, decompress

CODEC_NAME = "ghz"


@dataclass(frozen=True)
class Ghz(ArrayBytesCodec):
    """zarr 3 codec of ghz: error-bounded compression of float32/float64 chunks.

    Args: as ghz.numcodecs.Ghz (mode, bound, fill, checksum, value_range).
    """

    is_fixed_size = False

    mode: str = "rel"
    bound: float = 1e-4
    fill: Optional[float] = None
    checksum: bool = False
    value_range: Optional[Tuple[float, float]] = None
    prefer: str = "speed"

    def __init__(
        self,
        *,
        mode: str = "rel",
        bound: float = 1e-4,
        fill: Optional[float] = None,
        checksum: bool = False,
        value_range: Optional[Tuple[float, float]] = None,
        prefer: str = "speed",
    ) -> None:
        p = _Params(mode=mode, bound=bound, fill=fill, checksum=checksum,
                    value_range=value_range, prefer=prefer)  # checked here, not at the first write
        object.__setattr__(self, "mode", p.mode)
        object.__setattr__(self, "bound", p.bound)
        object.__setattr__(self, "fill", p.fill)
        object.__setattr__(self, "checksum", p.checksum)
        object.__setattr__(self, "value_range", p.value_range)
        object.__setattr__(self, "prefer", p.prefer)
        object.__setattr__(self, "_params", p)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Ghz":
        _, config = parse_named_configuration(data, CODEC_NAME, require_configuration=False)
        return cls(**(config or {}))

    def to_dict(self) -> Dict[str, Any]:
        # Strict JSON: a NaN or infinite fill is a string (see ghz.numcodecs.Ghz).
        return {"name": CODEC_NAME, "configuration": self._params.config()}

    def validate(self, *, shape: Any, dtype: Any, chunk_grid: Any) -> None:
        _check_float_dtype(np.dtype(dtype.to_native_dtype()), "arrays")

    def _encode(self, arr: Any) -> bytes:
        return self._params.compress(np.ascontiguousarray(arr))

    async def _encode_single(self, chunk_array: Any, chunk_spec: Any) -> Any:
        frame = await asyncio.to_thread(self._encode, chunk_array.as_ndarray_like())
        return chunk_spec.prototype.buffer.from_bytes(frame)

    async def _decode_single(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
        out = await asyncio.to_thread(decompress, chunk_bytes.as_array_like())
        return chunk_spec.prototype.nd_buffer.from_ndarray_like(out.reshape(chunk_spec.shape))

    def compute_encoded_size(self, input_byte_length: int, _chunk_spec: Any) -> int:
        raise NotImplementedError  # variable size


register_codec(CODEC_NAME, Ghz)
