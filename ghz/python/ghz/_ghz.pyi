# Type stubs of the extension module ghz._ghz (ghz/python/ext/). Use the documented
# functions of the package ghz instead; these take codes, not names.
from typing import Any, Dict, Optional, Tuple, Union

class GhzError(ValueError):
    status: int
    detail: str

F32: int
F64: int
ABS: int
REL: int
OP_ADD: int
OP_SUB: int
OP_MIN: int
OP_MAX: int
FRAME_LIMIT_DEFAULT: int
H5Z_FILTER_ID: int
CUDA: int
_STATUS_NAMES: Dict[str, int]

def compress(
    data: Any,
    mode: int,
    bound: float,
    fill: Optional[float],
    checksum: bool,
    nthreads: int,
    frame_elems: int,
    value_range: Optional[Tuple[float, float]],
) -> bytes: ...
def decompress(
    frame: Any, out: Any, nthreads: int, max_frame_bytes: int
) -> Tuple[Any, int, int]: ...
def info(frame: Any, max_frame_bytes: int = 0) -> Dict[str, Union[str, float, int, bool, None]]: ...
def homo(op: int, a: Any, b: Any) -> bytes: ...
def h5z_cd_values(
    dtype: int,
    mode: int,
    bound: float,
    fill: Optional[float],
    checksum: bool,
    value_range: Optional[Tuple[float, float]],
) -> Tuple[int, ...]: ...
def versions() -> Tuple[int, int]: ...
