"""CUDA arrays (__cuda_array_interface__ and DLPack) on the CUDA codec.

The checks of an array's interface run everywhere (a stand-in object describes the
array); the round trips need a build with the CUDA codec and a GPU, and skip otherwise.
The fields are the real ones of datasets/out/real (realfields.py) when present. CuPy
and PyTorch are used where installed (each through DLPack, its default path, and
through the CUDA Array Interface alone); ghz.to_device makes device arrays without
them. Runs under pytest, or alone on a machine without it (standalone.py):
    PYTHONPATH=BUILD/ghz/python/pkg python3 test/python/test_cuda.py
"""
import numpy as np

import ghz
import standalone
from realfields import real_fields
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


def made_field():
    rng = np.random.default_rng(7)
    x = np.linspace(0, 30, 1 << 20)
    a = (np.sin(x) * 40 + 280 + rng.normal(0, 0.5, x.size)).astype(np.float32)
    a[::97] = -1e34
    a[5::1013] = np.nan
    return "made", a, -1e34


def fields():
    """[(name, float32 array, fill or None)]: the real fields, else a made one."""
    return real_fields() or [made_field()]


def one_field():
    """A real field with a fill value (an ocean field) where there is one."""
    got = fields()
    return next((f for f in got if f[2] is not None), got[0])


def abs_bound(a, fill, rel):
    keep = np.isfinite(a)
    if fill is not None:
        keep &= a != a.dtype.type(fill)
    return rel * float(a[keep].max() - a[keep].min())


def check(a, b, e, fill):
    """Every value within e; NaN, Inf and the fill value bit for bit."""
    b = np.asarray(b)
    special = ~np.isfinite(a)
    if fill is not None:
        special |= a == a.dtype.type(fill)
    assert np.array_equal(a[special].view(np.uint8), b[special].view(np.uint8))
    err = np.abs(a[~special].astype(np.float64) - b[~special])
    assert err.size == 0 or err.max() <= e, (err.max(), e)


def test_gpu_round_trip_of_the_real_fields_equals_the_cpu():
    if not gpu():
        return skip("no CUDA codec or no GPU")
    for name, a, fill in fields():
        for dtype in (np.float32, np.float64):
            h = a.astype(dtype)
            d = ghz.to_device(h)
            for mode, bound in (("rel", 1e-4), ("abs", abs_bound(h, fill, 1e-3))):
                frame = ghz.compress(d, mode, bound, fill)
                assert isinstance(frame, ghz.DeviceBuffer) and frame.typestr == "|u1"
                host = ghz.compress(h, mode, bound, fill)
                # FORMAT.md: the GPU writes the CPU's bytes.
                assert frame.tobytes() == host, (name, dtype, mode)
                vals = ghz.decompress(frame)  # a new DeviceBuffer of values
                assert vals.typestr == ("<f4" if dtype == np.float32 else "<f8")
                back = np.frombuffer(vals.tobytes(), dtype)
                check(h, back, ghz.info(frame).abs_bound, fill)
                # The CPU decoder gives the GPU decoder's values, bit for bit.
                assert np.array_equal(ghz.decompress(frame.tobytes()).view(np.uint8),
                                      back.view(np.uint8)), (name, dtype, mode)
                out = ghz.to_device(np.zeros_like(h))
                assert ghz.decompress(host, out=out) is out  # a host frame into device memory
                # bytes, not values: the real fields hold NaN, which equals nothing
                assert out.tobytes() == back.tobytes()


def test_gpu_errors():
    if not gpu():
        return skip("no CUDA codec or no GPU")
    _, a, fill = one_field()
    host = bytearray(ghz.compress(a, "abs", abs_bound(a, fill, 1e-3), fill, checksum=True))
    host[len(host) // 2] ^= 0x40
    out = ghz.to_device(np.zeros_like(a))
    e = raises(ghz.GhzError, lambda: ghz.decompress(bytes(host), out=out))
    assert e.status == ghz.Status.ERR_CORRUPT
    small = ghz.to_device(np.zeros(a.size - 1, np.float32))
    raises(ValueError, lambda: ghz.decompress(ghz.compress(a, "abs", 1e-2), out=small), "room")
    raises(ValueError, lambda: ghz.compress(ghz.to_device(a), checksum=True), "checksum")


def test_device_frames_ghz_wrote_keep_every_check():
    """A DeviceBuffer frame from compress decodes from what ghz knows of its header,
    without copying the header to the host: the limit, the out checks and the errors
    of a frame changed through its interface stay those of a header read first."""
    if not gpu():
        return skip("no CUDA codec or no GPU")
    _, a, fill = one_field()
    e = abs_bound(a, fill, 1e-3)
    frame = ghz.compress(ghz.to_device(a), "abs", e, fill)
    out = ghz.to_device(np.zeros_like(a))
    err = raises(ghz.GhzError, lambda: ghz.decompress(frame, out=out, max_frame_bytes=a.nbytes - 1))
    assert err.status == ghz.Status.ERR_LIMIT, err
    assert ghz.decompress(frame, out=out, max_frame_bytes=a.nbytes) is out
    check(a, np.frombuffer(out.tobytes(), np.float32), e, fill)
    raises(TypeError, lambda: ghz.decompress(frame, out=ghz.to_device(a.astype(np.float64))),
           "float32")
    raises(ValueError, lambda: ghz.decompress(frame, out=ghz.to_device(a[:-1])), "room")
    raises(TypeError, lambda: ghz.decompress(frame, out=frame), "float32 or float64")
    raises(TypeError, lambda: ghz.decompress(out, out=out), "bytes")
    try:
        import torch
    except ImportError:
        return skip("PyTorch not installed: frames changed through their interface untested")
    if not torch.cuda.is_available():
        return skip("PyTorch without CUDA")
    short = np.frombuffer(ghz.compress(a[: a.size // 2], "abs", e, fill), np.uint8).copy()

    def no_magic(view):
        view[:4] = 0

    def shorter(view):  # a shorter frame over it, trailing bytes after it
        view[: short.size] = torch.from_numpy(short).cuda()

    for change, status in ((no_magic, ghz.Status.ERR_NOT_GHZ),
                           (shorter, ghz.Status.ERR_UNSUPPORTED)):
        for into in (out, None):
            f = ghz.compress(ghz.to_device(a), "abs", e, fill)
            view = torch.as_tensor(f, device="cuda")  # the frame's own memory, writable
            good = view.clone()
            change(view)
            err = raises(ghz.GhzError, lambda: ghz.decompress(f, out=into))
            assert err.status == status, (change.__name__, into is None, err)
            view.copy_(good)  # decoded from its header now, as any device frame
            assert ghz.decompress(f).tobytes() == ghz.decompress(frame).tobytes()


def test_gpu_calls_allocate_nothing_once_warm():
    """compress, decompress(out=) and decompress() in a loop take their device memory
    from ghz's cache: no cudaMalloc (nor cudaFree, which waits for the device) once the
    first iterations have filled it."""
    if not gpu():
        return skip("no CUDA codec or no GPU")
    _, a, fill = one_field()
    d = ghz.to_device(a)
    out = ghz.to_device(np.zeros_like(a))

    def loop():
        f = v = None
        for _ in range(4):
            f = ghz.compress(d, "rel", 1e-3, fill)  # the previous frame is freed after
            ghz.decompress(f, out=out)
            v = ghz.decompress(f)
        return f, v

    loop()
    m = ghz._ghz.cuda_mallocs()
    f, v = loop()
    assert ghz._ghz.cuda_mallocs() == m
    assert v.tobytes() == out.tobytes()


def torch_cuda():
    """torch, where it is installed and sees a GPU, and ghz has one."""
    if not gpu():
        return skip("no CUDA codec or no GPU")
    try:
        import torch
    except ImportError:
        return skip("PyTorch not installed")
    if not torch.cuda.is_available():
        return skip("PyTorch without CUDA")
    return torch


class OnlyCAI:
    """A device array seen through its CUDA Array Interface alone."""

    def __init__(self, x):
        self.x = x
        self.__cuda_array_interface__ = x.__cuda_array_interface__


class OnlyDLPack:
    """A device array seen through DLPack alone; records the stream of each export."""

    def __init__(self, x):
        self.x = x
        self.streams = []

    def __dlpack__(self, stream=None, **kw):
        self.streams.append(stream)
        return self.x.__dlpack__(stream=stream, **kw)

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


def test_torch_tensors_through_dlpack_and_the_cuda_array_interface():
    torch = torch_cuda()
    name, a, fill = one_field()
    for dtype in (np.float32, np.float64):
        h = a.astype(dtype)
        t = torch.from_numpy(h).cuda()
        e = abs_bound(h, fill, 1e-3)
        host = ghz.compress(h, "abs", e, fill)
        for x in (t, OnlyDLPack(t), OnlyCAI(t)):
            frame = ghz.compress(x, "abs", e, fill)
            assert frame.tobytes() == host, (name, dtype, type(x).__name__)
            u = torch.empty_like(t)
            for out in (u, OnlyDLPack(u), OnlyCAI(u)):
                u.zero_()
                assert ghz.decompress(frame, out=out) is out
                check(h, u.cpu().numpy(), e, fill)
        # The frame as a torch uint8 tensor (viewing the DeviceBuffer), through DLPack.
        ft = torch.as_tensor(frame, device="cuda")
        assert ft.dtype == torch.uint8 and ft.numel() == len(host)
        u = torch.empty_like(t)
        ghz.decompress(ft, out=u)
        check(h, u.cpu().numpy(), e, fill)
        # A 2-D tensor is read in memory order, as a numpy array is.
        t2 = t[: (t.numel() // 64) * 64].reshape(-1, 64)
        assert ghz.compress(t2, "abs", e, fill).tobytes() == ghz.compress(
            h[: t2.numel()], "abs", e, fill)
    w = OnlyDLPack(t)
    ghz.compress(w, stream=torch.cuda.Stream())
    assert w.streams[-1] not in (None, 0)


def test_torch_streams_order_ghz_after_the_producers_work():
    torch = torch_cuda()
    if not hasattr(torch.cuda, "_sleep"):
        return skip("torch.cuda._sleep missing (a kernel that keeps a stream busy)")
    _, a, fill = one_field()
    t = torch.from_numpy(a).cuda()
    e = abs_bound(a, fill, 1e-3)
    host = ghz.compress(a, "abs", e, fill)
    busy = 200_000_000  # GPU cycles (~0.1 s): work still queued when ghz is called
    s, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    # 1. ghz on the producer's current stream: the copy into x, queued behind a busy
    #    kernel on s, is done before ghz reads x.
    x = torch.zeros_like(t)
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        torch.cuda._sleep(busy)
        x.copy_(t)
        frame = ghz.compress(x, "abs", e, fill)
    assert frame.tobytes() == host
    # 2. ghz on another stream (stream=): DLPack makes s2 wait for s's pending work.
    x.zero_()
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        torch.cuda._sleep(busy)
        x.copy_(t)
        frame = ghz.compress(x, "abs", e, fill, stream=s2)
    assert frame.tobytes() == host
    # 3. decompress into out= after the producer's pending write to it.
    u = torch.empty_like(t)
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        torch.cuda._sleep(busy)
        u.fill_(7.0)
        ghz.decompress(frame, out=u)
    torch.cuda.synchronize()
    check(a, u.cpu().numpy(), e, fill)
    # 4. The same with a host frame and stream= another stream.
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        torch.cuda._sleep(busy)
        u.fill_(7.0)
        ghz.decompress(host, out=u, stream=s2)
    torch.cuda.synchronize()
    check(a, u.cpu().numpy(), e, fill)


def test_torch_errors():
    torch = torch_cuda()
    _, a, fill = one_field()
    t = torch.from_numpy(a).cuda()
    frame = ghz.compress(t, "abs", 1e-2)
    raises(TypeError, lambda: ghz.compress(t.to(torch.int32)), "float32 or float64")
    raises(TypeError, lambda: ghz.compress(t.to(torch.float16)), "float32 or float64")
    raises(ValueError, lambda: ghz.compress(t[::2]), "C-contiguous")
    n = (t.numel() // 64) * 64
    raises(ValueError, lambda: ghz.compress(t[:n].reshape(-1, 64).T), "C-contiguous")
    raises(TypeError, lambda: ghz.decompress(frame, out=torch.empty(a.size, dtype=torch.float64,
                                                                   device="cuda")), "float32")
    raises(ValueError, lambda: ghz.decompress(frame, out=torch.empty(a.size - 1, device="cuda")),
           "room")
    raises(ValueError, lambda: ghz.decompress(frame, out=torch.empty(2 * a.size,
                                                                     device="cuda")[::2]),
           "C-contiguous")
    raises(TypeError, lambda: ghz.decompress(frame, out=torch.empty(a.size)), "device memory")
    # Corrupted and truncated frames in device memory: GhzError, never a crash.
    good = np.frombuffer(frame.tobytes(), np.uint8)
    out = torch.empty_like(t)
    bad = good.copy()
    bad[:4] = 0
    e = raises(ghz.GhzError, lambda: ghz.decompress(torch.from_numpy(bad).cuda(), out=out))
    assert e.status == ghz.Status.ERR_NOT_GHZ, e
    e = raises(ghz.GhzError, lambda: ghz.decompress(torch.from_numpy(good[:-100].copy()).cuda(),
                                                    out=out))
    assert e.status in (ghz.Status.ERR_TRUNCATED, ghz.Status.ERR_CORRUPT), e
    e = raises(ghz.GhzError, lambda: ghz.decompress(torch.from_numpy(good[:40].copy()).cuda(),
                                                    out=out))
    assert e.status == ghz.Status.ERR_TRUNCATED, e


def test_cupy_arrays_on_their_streams():
    if not gpu():
        return skip("no CUDA codec or no GPU")
    try:
        import cupy
    except ImportError:
        return skip("CuPy not installed")
    _, a, fill = one_field()
    e = abs_bound(a, fill, 1e-3)
    host = ghz.compress(a, "abs", e, fill)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x = cupy.asarray(a)
        for arr in (x, OnlyDLPack(x), OnlyCAI(x)):
            frame = ghz.compress(arr, "abs", e, fill)
            assert frame.tobytes() == host
        frame = ghz.compress(x, "abs", e, fill, stream=s)
        y = cupy.empty_like(x)
        ghz.decompress(frame, out=y, stream=s)
        z = cupy.asarray(ghz.decompress(frame))  # views the DeviceBuffer, no copy
    check(a, cupy.asnumpy(y), e, fill)
    assert cupy.asnumpy(y).tobytes() == cupy.asnumpy(z).tobytes()  # NaN-safe: bit for bit
    raises(ValueError, lambda: ghz.compress(x[::2]), "C-contiguous")
    raises(TypeError, lambda: ghz.compress(x.astype(cupy.int32)), "float32 or float64")


def test_gpu_speed_against_the_cpu_codec_is_printed_not_judged():
    # Not a timed test: prints the 64 MiB rates for the lead's notes (-s shows them).
    if not gpu():
        return skip("no CUDA codec or no GPU")
    import time

    a = np.resize(one_field()[1], 1 << 24)
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
