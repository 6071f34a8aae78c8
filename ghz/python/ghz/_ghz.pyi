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
HEADER_SIZE: int
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
    prefer: int,
    dims: Tuple[int, int, int],
) -> bytes: ...
def decompress(
    frame: Any, out: Any, nthreads: int, max_frame_bytes: int
) -> Tuple[Any, int, int]: ...
def info(frame: Any, max_frame_bytes: int = 0) -> Dict[str, Union[str, float, int, bool, None]]: ...
def header(buf: Any, max_frame_bytes: int) -> Tuple[int, int, int]: ...
def value_range(data: Any, fill: Optional[float], nthreads: int) -> Tuple[float, float, int]: ...
def homo(op: int, a: Any, b: Any) -> bytes: ...
def h5z_cd_values(
    dtype: int,
    mode: int,
    bound: float,
    fill: Optional[float],
    checksum: bool,
    value_range: Optional[Tuple[float, float]],
    ratio: bool = False,
) -> Tuple[int, ...]: ...
def versions() -> Tuple[int, int]: ...

# DLPack, the consumer side (every build):
class DLPackView:
    ptr: int
    n: int
    typestr: str
    device_type: int
    device_id: int
    readonly: bool
    copied: bool
    contiguous: bool
    versioned: bool
    def release(self) -> None: ...

def dlpack_view(capsule: Any) -> DLPackView: ...
def has_buffer(obj: Any) -> bool: ...

# Built with the CUDA codec only (CUDA == 1):
class DeviceBuffer:
    __cuda_array_interface__: Dict[str, Any]
    nbytes: int
    device: int
    typestr: str
    def __len__(self) -> int: ...
    def tobytes(self) -> bytes: ...
    def __bytes__(self) -> bytes: ...

def cuda_compress(
    ptr: Union[int, DeviceBuffer],
    n: int,
    dtype: int,
    mode: int,
    bound: float,
    fill: Optional[float],
    value_range: Optional[Tuple[float, float]],
    stream: int,
) -> DeviceBuffer: ...
def cuda_decompress(
    frame: Any,
    frame_ptr: int,
    frame_size: int,
    out_ptr: Union[int, DeviceBuffer],
    out_bytes: int,
    out_dtype: int,
    stream: int,
    max_frame_bytes: int,
) -> Optional[DeviceBuffer]: ...
def cuda_to_device(array: Any) -> DeviceBuffer: ...
def cuda_mallocs() -> int: ...
