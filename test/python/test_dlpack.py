"""DLPack arrays (__dlpack__ / __dlpack_device__), the consumer side, on the CPU.

Runs on any build: numpy (>= 1.22) speaks DLPack, and a wrapper that hides its buffer
protocol sends a numpy array down ghz's DLPack path; a producer written here with
ctypes hands out capsules of chosen layout, flags and version, and counts its
deleter's calls. PyTorch CPU tensors are used where installed. The CUDA side is in
test_cuda.py. Runs under pytest, or alone (standalone.py):
    PYTHONPATH=BUILD/ghz/python/pkg python3 test/python/test_dlpack.py
"""
import ctypes

import numpy as np

import ghz
import standalone
from realfields import real_fields
from standalone import raises, skip


class OnlyDLPack:
    """A numpy array behind DLPack alone (as a PyTorch or JAX CPU array is)."""

    def __init__(self, a):
        self.a = a
        self.calls = []

    def __dlpack__(self, **kw):
        self.calls.append(kw)
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


# ---- a producer written from the DLPack specification, with ctypes -------------------
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManaged(ctypes.Structure):
    pass


class DLManagedVersioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManaged))
DELETER_V = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedVersioned))
DLManaged._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                      ("deleter", DELETER)]
DLManagedVersioned._fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                               ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER_V),
                               ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]
READ_ONLY, IS_COPIED = 1, 2

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


class Producer:
    """Hands out a numpy array's memory in a capsule of the given kind; records each
    __dlpack__ call's arguments, the capsules, and how often the deleter ran."""

    def __init__(self, a, *, shape=None, strides=None, offset=0, device=(1, 0), flags=0,
                 major=1, versioned=True, legacy=False, code=None, bits=None, reuse=False):
        self.a, self.offset, self.device, self.flags = a, offset, device, flags
        self.major, self.versioned, self.legacy, self.reuse = major, versioned, legacy, reuse
        self.shape = a.shape if shape is None else shape
        self.strides = strides
        self.code = code if code is not None else {"f": 2, "u": 1, "i": 0}[a.dtype.kind]
        self.bits = bits if bits is not None else a.dtype.itemsize * 8
        self.calls, self.capsules, self.deleted = [], [], 0
        self._keep = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, *, stream=None, max_version=None):
        if self.legacy and max_version is not None:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        self.calls.append({"stream": stream, "max_version": max_version})
        if self.reuse and self.capsules:
            return self.capsules[-1]
        nd = len(self.shape)
        shape = (ctypes.c_int64 * max(nd, 1))(*self.shape)
        strides = None if self.strides is None else (ctypes.c_int64 * max(nd, 1))(*self.strides)
        t = DLTensor(self.a.ctypes.data, DLDevice(*self.device), nd,
                     DLDataType(self.code, self.bits, 1), shape, strides, self.offset)
        versioned = self.versioned and max_version is not None

        def deleter(_):
            self.deleted += 1

        if versioned:
            cb = DELETER_V(deleter)
            m = DLManagedVersioned(self.major, 0, None, cb, self.flags, t)
            name = b"dltensor_versioned"
        else:
            cb = DELETER(deleter)
            m = DLManaged(t, None, cb)
            name = b"dltensor"
        self._keep += [shape, strides, cb, m, name]
        cap = _capsule_new(ctypes.addressof(m), name, None)
        self.capsules.append(cap)
        return cap

    def names(self):
        return [_capsule_name(c).decode() for c in self.capsules]


# ---- numpy through DLPack --------------------------------------------------------------
def fields():
    got = real_fields()
    if got:
        return got[:3]
    x = np.linspace(0, 20, 1 << 18)
    a = (np.sin(x) * 30 + 280).astype(np.float32)
    a[::50] = -1e34
    return [("numpy:made", a, -1e34)]


def check(a, b, e, fill):
    special = ~np.isfinite(a)
    if fill is not None:
        special |= a == a.dtype.type(fill)
    assert np.array_equal(a[special].view(np.uint8), np.asarray(b)[special].view(np.uint8))
    err = np.abs(a[~special].astype(np.float64) - np.asarray(b)[~special])
    assert err.size == 0 or err.max() <= e, (err.max(), e)


def test_numpy_through_dlpack_is_the_buffer_path():
    for name, a32, fill in fields():
        for a in (a32, a32.astype(np.float64)):
            w = OnlyDLPack(a)
            frame = ghz.compress(w, "rel", 1e-4, fill)
            assert frame == ghz.compress(a, "rel", 1e-4, fill), name
            assert w.calls and w.calls[0].get("stream") is None  # CPU: no stream
            out = OnlyDLPack(np.empty_like(a))
            assert ghz.decompress(frame, out=out) is out
            check(a, out.a, ghz.info(frame).abs_bound, fill)
            # The frame itself through DLPack: bytes as a uint8 array.
            f = OnlyDLPack(np.frombuffer(frame, np.uint8))
            assert ghz.info(f).n == a.size
            assert ghz.decompress(f).tobytes() == out.a.tobytes()  # NaN-safe


def test_numpy_dlpack_errors():
    a = np.linspace(0, 1, 4096, dtype=np.float32)
    raises(ValueError, lambda: ghz.compress(OnlyDLPack(a[::2])), "C-contiguous")
    raises(ValueError, lambda: ghz.compress(OnlyDLPack(a.reshape(64, 64).T)), "C-contiguous")
    raises(TypeError, lambda: ghz.compress(OnlyDLPack(a.astype(np.int32))), "float32 or float64")
    raises(TypeError, lambda: ghz.compress(OnlyDLPack(a.astype(np.float16))), "float32 or float64")
    frame = ghz.compress(a, "abs", 1e-3)
    raises(TypeError, lambda: ghz.decompress(frame, out=OnlyDLPack(np.empty(4096, np.float64))),
           "float32")
    raises(ValueError, lambda: ghz.decompress(frame, out=OnlyDLPack(np.empty(100, np.float32))),
           "room")
    ro = np.empty_like(a)
    ro.flags.writeable = False
    if np.lib.NumpyVersion(np.__version__) >= "2.1.0":  # DLPack 1.0: the read-only flag
        raises(ValueError, lambda: ghz.decompress(frame, out=OnlyDLPack(ro)), "read-only")
    bad = bytearray(frame)
    bad[:4] = b"XXXX"
    e = raises(ghz.GhzError, lambda: ghz.decompress(OnlyDLPack(np.frombuffer(bad, np.uint8))))
    assert e.status == ghz.Status.ERR_NOT_GHZ


# ---- the capsule rules, with the ctypes producer ------------------------------------
def test_capsule_taken_renamed_and_deleted_once():
    a = np.linspace(-5, 5, 1000)
    for versioned in (True, False):
        p = Producer(a, versioned=versioned)
        frame = ghz.compress(p, "abs", 1e-3)
        assert frame == ghz.compress(a, "abs", 1e-3)
        assert p.calls == [{"stream": None, "max_version": (1, 0)}]
        assert p.deleted == 1
        assert p.names() == ["used_dltensor_versioned" if versioned else "used_dltensor"]
        out = np.empty_like(a)
        q = Producer(out, versioned=versioned)
        assert ghz.decompress(frame, out=q) is q and q.deleted == 1
        check(a, out, 1e-3, None)


def test_a_producer_before_dlpack_1_is_asked_again_without_max_version():
    a = np.linspace(-5, 5, 1000, dtype=np.float32)
    p = Producer(a, legacy=True)
    assert ghz.compress(p, "abs", 1e-3) == ghz.compress(a, "abs", 1e-3)
    assert p.calls == [{"stream": None, "max_version": None}]
    assert p.names() == ["used_dltensor"] and p.deleted == 1


def test_layouts_strides_offsets_and_scalars():
    a = np.arange(64, dtype=np.float32)
    ref = ghz.compress(a[8:40], "abs", 1e-3)
    # byte_offset moves the first element; explicit C-order strides are contiguous, and
    # so are any strides of extent-1 dimensions.
    assert ghz.compress(Producer(a, shape=(32,), offset=32), "abs", 1e-3) == ref
    assert ghz.compress(Producer(a, shape=(4, 8), strides=(8, 1), offset=32), "abs", 1e-3) == ref
    assert ghz.compress(Producer(a, shape=(1, 32), strides=(99, 1), offset=32), "abs",
                        1e-3) == ref
    p = Producer(a, shape=(8, 4), strides=(1, 8))
    raises(ValueError, lambda: ghz.compress(p), "C-contiguous")
    assert p.deleted == 1
    assert ghz.info(ghz.compress(Producer(a, shape=()), "abs", 1e-3)).n == 1
    assert ghz.info(ghz.compress(Producer(a, shape=(0, 5)), "abs", 1e-3)).n == 0


def test_flags_versions_and_foreign_capsules():
    a = np.linspace(0, 1, 100)
    frame = ghz.compress(a, "abs", 1e-3)
    p = Producer(np.empty_like(a), flags=READ_ONLY)
    raises(ValueError, lambda: ghz.decompress(frame, out=p), "read-only")
    assert p.deleted == 1
    # A copy the producer made cannot receive values; as an input it is fine.
    p = Producer(np.empty_like(a), flags=IS_COPIED)
    raises(ValueError, lambda: ghz.decompress(frame, out=p), "copy")
    assert ghz.compress(Producer(a, flags=IS_COPIED | READ_ONLY), "abs", 1e-3) == frame
    # Another major version: freed unread.
    p = Producer(a, major=2)
    raises(BufferError, lambda: ghz.compress(p), "major version")
    assert p.deleted == 1
    # A capsule is taken once.
    p = Producer(a, reuse=True)
    ghz.compress(p)
    raises(BufferError, lambda: ghz.compress(p), "already consumed")
    assert p.deleted == 1
    # Complex values, and memory on a device ghz does not know.
    raises(TypeError, lambda: ghz.compress(Producer(a, code=5, bits=64)), "float32 or float64")
    p = Producer(a, device=(4, 0))  # OpenCL
    raises(TypeError, lambda: ghz.compress(p), "device type 4")
    assert not p.calls


def test_cuda_dlpack_arrays_get_the_stream_or_a_clear_error():
    a = np.linspace(0, 1, 100, dtype=np.float32)
    p = Producer(a, device=(2, 0))
    if not ghz.WITH_CUDA:
        raises(TypeError, lambda: ghz.compress(p), "without the CUDA codec")
        raises(TypeError, lambda: ghz.decompress(b"", out=p), "without the CUDA codec")
        assert not p.calls  # refused before the producer was asked
        return
    # Host memory described as CUDA memory: the capsule is taken on the stream ghz runs
    # on (DLPack spells the legacy default stream 1, since 0 is reserved), then refused.
    raises(ValueError, lambda: ghz.compress(p))
    raises(ValueError, lambda: ghz.compress(p, stream=12345))
    assert [c["stream"] for c in p.calls] == [1, 12345] and p.deleted == 2


def test_torch_cpu_tensors():
    try:
        import torch
    except ImportError:
        return skip("PyTorch not installed")
    name, a, fill = fields()[0]
    for dtype in (torch.float32, torch.float64):
        t = torch.from_numpy(a).to(dtype)
        h = t.numpy()
        frame = ghz.compress(t, "rel", 1e-4, fill)
        assert frame == ghz.compress(h, "rel", 1e-4, fill)
        out = torch.empty_like(t)
        assert ghz.decompress(frame, out=out) is out
        check(h, out.numpy(), ghz.info(frame).abs_bound, fill)
        raises(ValueError, lambda: ghz.compress(t[::2]), "C-contiguous")
    raises(TypeError, lambda: ghz.compress(torch.zeros(8, dtype=torch.int32)), "float32")


if __name__ == "__main__":
    standalone.main(globals())
