"""CUDA arrays (__cuda_array_interface__) on the CUDA codec.

The checks of an array's interface run everywhere (a stand-in object describes the
array); the round trips need a build with the CUDA codec and a GPU, and skip otherwise.
CuPy and PyTorch are used where installed; ghz.to_device makes device arrays without
them. Runs under pytest, or alone on a machine without it:
    PYTHONPATH=BUILD/ghz/python/pkg python3 test/python/test_cuda.py
"""
import numpy as np

import ghz
import standalone
from standalone import raises, skip


class CudaArray:
    """A stand-in that only describes a CUDA array (no memory behind it)."""

    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x7F0000000000, readonly=False,
                 mask=None):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "strides": strides, "version": 3,
            "data": (ptr, readonly), "mask": mask, "stream": None}


def test_interfaces_are_checked_before_any_device_work():
    raises(ValueError, lambda: ghz.compress(CudaArray((8, 8), strides=(4, 32))), "C-contiguous")
    raises(TypeError, lambda: ghz.compress(CudaArray((8,), typestr="<i4")), "float32 or float64")
    raises(TypeError, lambda: ghz.compress(CudaArray((8,), typestr=">f4")), "float32 or float64")
    raises(ValueError, lambda: ghz.compress(CudaArray((8,), mask=(1, False))), "masked")
    raises(ValueError, lambda: ghz.decompress(b"x" * 64, out=CudaArray((8,), readonly=True)),
           "read-only")
    raises(TypeError, lambda: ghz.decompress(CudaArray((64,), typestr="<f4")), "bytes")
    # Explicit C-order strides are accepted as contiguous.
    if not ghz.WITH_CUDA:
        raises(TypeError, lambda: ghz.compress(CudaArray((8, 8), strides=(32, 4))),
               "without the CUDA codec")


def test_without_the_cuda_codec_device_arrays_are_type_errors():
    if ghz.WITH_CUDA:
        return
    for fn in (lambda: ghz.compress(CudaArray((16,))),
               lambda: ghz.decompress(CudaArray((100,), typestr="|u1")),
               lambda: ghz.decompress(b"", out=CudaArray((4,))),
               lambda: ghz.to_device(np.zeros(4, np.float32))):
        raises(TypeError, fn, "without the CUDA codec")


def test_a_device_frame_needs_a_device_out():
    frame = CudaArray((100,), typestr="|u1")
    raises(TypeError, lambda: ghz.decompress(frame, out=np.zeros(4, np.float32)),
           "device memory")


def gpu():
    """True where the CUDA codec and a GPU are usable."""
    if not ghz.WITH_CUDA:
        return False
    try:
        ghz.to_device(np.zeros(1, np.float32))
        return True
    except ghz.GhzError:
        return False


def test_without_a_gpu_a_clear_error():
    if not ghz.WITH_CUDA or gpu():
        return
    for fn in (lambda: ghz.to_device(np.zeros(4, np.float32)),
               lambda: ghz.compress(CudaArray((16,))),
               lambda: ghz.decompress(CudaArray((100,), typestr="|u1")),
               lambda: ghz.decompress(ghz.compress(np.ones(4, np.float32)), out=CudaArray((4,)))):
        e = raises(ghz.GhzError, fn)
        assert e.status in (ghz.Status.ERR_NO_DEVICE, ghz.Status.ERR_CUDA), e


def fields():
    rng = np.random.default_rng(7)
    x = np.linspace(0, 30, 1 << 20)
    a = (np.sin(x) * 40 + 280 + rng.normal(0, 0.5, x.size)).astype(np.float32)
    a[::97] = -1e34
    a[5::1013] = np.nan
    return a, -1e34


def check(a, b, e, fill):
    special = ~np.isfinite(a) | (a == a.dtype.type(fill))
    assert np.array_equal(a[special].view(np.uint8), b[special].view(np.uint8))
    err = np.abs(a[~special].astype(np.float64) - b[~special])
    assert err.max() <= e, (err.max(), e)


def test_gpu_round_trip_equals_the_cpu_bytes():
    if not gpu():
        return skip("no CUDA codec or no GPU")
    a, fill = fields()
    for dtype in (np.float32, np.float64):
        h = a.astype(dtype)
        d = ghz.to_device(h)
        for mode, bound in (("rel", 1e-4), ("abs", 1e-2)):
            frame = ghz.compress(d, mode, bound, fill)
            assert isinstance(frame, ghz.DeviceBuffer) and frame.typestr == "|u1"
            host = ghz.compress(h, mode, bound, fill)
            assert frame.tobytes() == host  # FORMAT.md: the GPU writes the CPU's bytes
            vals = ghz.decompress(frame)  # a new DeviceBuffer of values
            assert vals.typestr == ("<f4" if dtype == np.float32 else "<f8")
            back = np.frombuffer(vals.tobytes(), dtype)
            check(h, back, ghz.info(frame).abs_bound, fill)
            out = ghz.to_device(np.zeros_like(h))
            assert ghz.decompress(host, out=out) is out  # a host frame into device memory
            assert np.array_equal(np.frombuffer(out.tobytes(), dtype), back)


def test_gpu_errors():
    if not gpu():
        return skip("no CUDA codec or no GPU")
    a, fill = fields()
    host = bytearray(ghz.compress(a, "abs", 1e-2, fill, checksum=True))
    host[len(host) // 2] ^= 0x40
    out = ghz.to_device(np.zeros_like(a))
    e = raises(ghz.GhzError, lambda: ghz.decompress(bytes(host), out=out))
    assert e.status == ghz.Status.ERR_CORRUPT
    small = ghz.to_device(np.zeros(a.size - 1, np.float32))
    raises(ValueError, lambda: ghz.decompress(ghz.compress(a, "abs", 1e-2), out=small), "room")
    raises(ValueError, lambda: ghz.compress(ghz.to_device(a), checksum=True), "checksum")


def test_cupy_and_torch_arrays_on_their_streams():
    if not gpu():
        return skip("no CUDA codec or no GPU")
    a, fill = fields()
    ran = 0
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            x = cupy.asarray(a)
            frame = ghz.compress(x, "rel", 1e-4, fill, stream=s)
            y = cupy.empty_like(x)
            ghz.decompress(frame, out=y, stream=s)
            z = cupy.asarray(ghz.decompress(frame))  # views the DeviceBuffer, no copy
        check(a, cupy.asnumpy(y), ghz.info(frame).abs_bound, fill)
        assert cupy.array_equal(y, z)
        raises(ValueError, lambda: ghz.compress(x[::2]), "C-contiguous")
        ran += 1
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        t = torch.from_numpy(a).cuda()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            frame = ghz.compress(t, "abs", 1e-2, fill, stream=s)
            u = torch.empty_like(t)
            ghz.decompress(frame, out=u, stream=s)
        check(a, u.cpu().numpy(), 1e-2, fill)
        assert frame.tobytes() == ghz.compress(a, "abs", 1e-2, fill)
        ran += 1
    if not ran:
        return skip("neither CuPy nor PyTorch with CUDA")


def test_gpu_speed_against_the_cpu_codec_is_printed_not_judged():
    # Not a timed test: prints the 64 MiB rates for the lead's notes (-s shows them).
    if not gpu():
        return skip("no CUDA codec or no GPU")
    import time

    a = np.resize(fields()[0], 1 << 24)
    d = ghz.to_device(a)
    ghz.compress(d, "rel", 1e-4)  # the context and workspace, once
    t = time.perf_counter()
    for _ in range(10):
        frame = ghz.compress(d, "rel", 1e-4)
    tc = (time.perf_counter() - t) / 10
    out = ghz.to_device(np.zeros_like(a))
    t = time.perf_counter()
    for _ in range(10):
        ghz.decompress(frame, out=out)
    td = (time.perf_counter() - t) / 10
    print(f"\nGPU via Python, 64 MiB f32 REL 1e-4: compress {a.nbytes / tc / 1e9:.1f} GB/s, "
          f"decompress {a.nbytes / td / 1e9:.1f} GB/s (each call synchronises its stream)")


if __name__ == "__main__":
    standalone.main(globals())
