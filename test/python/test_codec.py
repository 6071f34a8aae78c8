"""ghz.compress / decompress / info and the homomorphic operations, over the C library."""
import struct

import pytest

np = pytest.importorskip("numpy")
ghz = pytest.importorskip("ghz")


def within(a, b, e):
    """Positions where |a - b| > e holds exactly (float64 two-sum of a and -b): a
    rounded difference could hide a violation of one ulp."""
    a = np.asarray(a, dtype=np.float64)
    nb = -np.asarray(b, dtype=np.float64)
    s = a + nb
    bb = s - a
    err = (a - (s - bb)) + (nb - bb)
    return (np.abs(s) > e) | ((np.abs(s) == e) & (err * np.sign(s) > 0))


def bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def check_round_trip(a, frame, fill=None):
    b = ghz.decompress(frame)
    assert b.dtype == a.dtype and b.size == a.size
    flat = a.reshape(-1)
    special = ~np.isfinite(flat)
    if fill is not None:
        special |= bits(flat) == bits(np.array([fill], dtype=a.dtype))[0]
    # NaN, Inf and fill values bit for bit; every other value within the bound.
    assert np.array_equal(bits(flat[special]), bits(b[special]))
    e = ghz.info(frame).abs_bound
    bad = within(flat[~special], b[~special], e)
    assert not bad.any(), f"{bad.sum()} values beyond the bound {e}"
    return b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode,bound", [("rel", 1e-3), ("rel", 1e-4), ("abs", 1e-2)])
def test_fields_round_trip_within_the_bound(fields, dtype, mode, bound):
    for name, a, fill in fields:
        a = a.astype(dtype)
        frame = ghz.compress(a, mode, bound, fill)
        fi = ghz.info(frame)
        assert (fi.dtype, fi.mode, fi.bound, fi.n, fi.frames) == (
            np.dtype(dtype).name, mode, bound, a.size, 1), name
        assert fi.nbytes == len(frame) and fi.fill is not None
        if fill is None:  # written without a fill: NaN is its fill (FORMAT.md)
            assert np.isnan(fi.fill)
        if mode == "abs":
            assert fi.abs_bound == bound
        else:
            keep = np.isfinite(a) & ((a != np.asarray(fill, dtype)) if fill is not None else True)
            rng = float(a[keep].max()) - float(a[keep].min())
            assert 0 < fi.abs_bound <= bound * rng
        check_round_trip(a, frame, fill)
        assert fi.ratio > 1.0, name  # real fields compress at these bounds


def test_fill_nan_inf_and_signed_zero_exact():
    for dtype in (np.float32, np.float64):
        rng = np.random.default_rng(1)
        a = rng.normal(0, 1, 4096).astype(dtype)
        fill = -9999.0
        a[::7] = fill
        a[3::11] = np.inf
        a[5::13] = -np.inf
        a[9::17] = np.nan
        nan_payload = np.array([0x7FC00001 if dtype == np.float32 else 0x7FF8000000000123],
                               dtype=np.uint32 if dtype == np.float32 else np.uint64)
        a[1] = nan_payload.view(dtype)[0]  # a NaN with a payload stays that NaN
        a[2] = -0.0
        for mode in ("rel", "abs"):
            frame = ghz.compress(a, mode, 1e-2, fill)
            b = check_round_trip(a, frame, fill)
            assert bits(b)[1] == nan_payload[0]
            assert ghz.info(frame).fill == fill


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 31, 32, 33])
def test_empty_and_tiny_arrays(dtype, n):
    a = np.arange(n, dtype=dtype) * dtype(0.37)
    for mode in ("rel", "abs"):
        frame = ghz.compress(a, mode, 1e-3)
        assert ghz.info(frame).n == n
        b = check_round_trip(a, frame)
        assert b.shape == (n,)


def test_shape_is_flattened_and_out_receives_any_shape():
    a = np.random.default_rng(2).normal(size=(64, 48)).astype(np.float32)
    frame = ghz.compress(a, "abs", 1e-3)
    b = ghz.decompress(frame)
    assert b.shape == (a.size,)
    out = np.empty((48, 64), np.float32)
    assert ghz.decompress(frame, out=out) is out
    assert np.array_equal(out.reshape(-1), b)


def test_out_of_the_wrong_dtype_size_or_layout_is_refused():
    frame = ghz.compress(np.zeros(100, np.float32), "abs", 1e-3)
    with pytest.raises(TypeError):
        ghz.decompress(frame, out=np.empty(100, np.float64))
    with pytest.raises(ValueError, match="room"):
        ghz.decompress(frame, out=np.empty(99, np.float32))
    with pytest.raises(ValueError, match="room"):
        ghz.decompress(frame, out=np.empty(101, np.float32))
    with pytest.raises(ValueError, match="contiguous"):
        ghz.decompress(frame, out=np.empty(200, np.float32)[::2])
    ro = np.empty(100, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ghz.decompress(frame, out=ro)


def test_non_contiguous_arrays_are_refused_not_copied():
    a = np.zeros((32, 32), np.float32)
    for view in (a[::2], a[:, 1:], a.T, np.asfortranarray(a)):
        with pytest.raises(ValueError, match="not C-contiguous"):
            ghz.compress(view)
    # A contiguous slice is taken as it is, and the documented copy works.
    assert ghz.info(ghz.compress(a[4:8])).n == 128
    assert ghz.info(ghz.compress(np.ascontiguousarray(a.T))).n == 1024


def test_wrong_dtypes_are_type_errors():
    for bad in (np.zeros(8, np.int32), np.zeros(8, np.float16), np.zeros(8, np.complex64),
                np.zeros(8, ">f4"), np.zeros(8, ">f8"), np.zeros(8, np.uint8)):
        with pytest.raises(TypeError, match="float32 or float64"):
            ghz.compress(bad)
    with pytest.raises(TypeError, match="buffer protocol"):
        ghz.compress([1.0, 2.0])
    with pytest.raises(TypeError):
        ghz.decompress(12345)


def test_other_buffers_than_numpy():
    import array

    a = array.array("d", [1.0, 2.5, -3.25, 4.0])
    frame = ghz.compress(memoryview(a), "abs", 1e-6)
    assert ghz.decompress(frame).tolist() == pytest.approx(list(a), abs=1e-6)
    assert ghz.info(bytearray(frame)).n == 4


def test_bad_arguments_raise_ghz_errors_with_the_status():
    a = np.ones(10, np.float32)
    with pytest.raises(ValueError, match="mode"):
        ghz.compress(a, "relative")
    for bound in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ghz.GhzError) as ei:
            ghz.compress(a, "abs", bound)
        assert ei.value.status == ghz.Status.ERR_BAD_BOUND
        assert isinstance(ei.value, ValueError)
        assert ei.value.detail and ei.value.detail in str(ei.value)


def test_corrupted_frames_raise_never_crash():
    a = np.random.default_rng(3).normal(size=3000).astype(np.float32)
    frame = ghz.compress(a, "rel", 1e-3, checksum=True)
    assert ghz.info(frame).checksum
    # Every truncation.
    for k in range(len(frame)):
        with pytest.raises(ghz.GhzError) as ei:
            ghz.decompress(frame[:k])
        assert ei.value.status in (ghz.Status.ERR_TRUNCATED, ghz.Status.ERR_CORRUPT,
                                   ghz.Status.ERR_NOT_GHZ)
    # Every single-byte change of a checksummed frame is refused.
    rng = np.random.default_rng(4)
    for pos in range(len(frame)):
        bad = bytearray(frame)
        bad[pos] ^= int(rng.integers(1, 256))
        with pytest.raises(ghz.GhzError):
            ghz.decompress(bad)
    # Without a checksum a change may decode to other values, but never crashes.
    plain = ghz.compress(a, "rel", 1e-3)
    for pos in rng.integers(0, len(plain), 2000):
        bad = bytearray(plain)
        bad[pos] ^= int(rng.integers(1, 256))
        try:
            b = ghz.decompress(bad)
            assert b.size == ghz.info(bad).n
        except ghz.GhzError:
            pass
    # Foreign and empty input.
    with pytest.raises(ghz.GhzError) as ei:
        ghz.decompress(b"not a ghz frame at all, just text" * 4)
    assert ei.value.status == ghz.Status.ERR_NOT_GHZ
    for fn in (ghz.decompress, ghz.info):
        with pytest.raises(ghz.GhzError):
            fn(b"")


def test_reader_limit():
    frame = ghz.compress(np.zeros(1 << 16, np.float64), "abs", 1e-3)
    with pytest.raises(ghz.GhzError) as ei:
        ghz.decompress(frame, max_frame_bytes=1 << 16)
    assert ei.value.status == ghz.Status.ERR_LIMIT
    assert ghz.decompress(frame, max_frame_bytes=0).size == 1 << 16


def test_large_arrays_are_frames_under_one_bound(monkeypatch):
    monkeypatch.setattr(ghz._api, "FRAME_ELEMS", 1000)
    x = np.linspace(0, 20, 10500)
    a = (np.sin(x) * (1 + x)).astype(np.float32)
    for mode in ("rel", "abs"):
        frame = ghz.compress(a, mode, 1e-3)
        fi = ghz.info(frame)
        assert (fi.frames, fi.n) == (11, a.size)
        if mode == "rel":  # the whole array's range, not each frame's
            assert fi.abs_bound <= 1e-3 * (float(a.max()) - float(a.min()))
            assert fi.abs_bound > 0.99e-3 * (float(a.max()) - float(a.min()))
        check_round_trip(a, frame)


def test_output_is_the_same_for_every_thread_count(fields):
    _, a, fill = fields[0]
    one = ghz.compress(a, "rel", 1e-4, fill, nthreads=1)
    assert ghz.compress(a, "rel", 1e-4, fill, nthreads=0) == one
    assert np.array_equal(ghz.decompress(one, nthreads=1), ghz.decompress(one, nthreads=2))


def test_threads_compress_in_parallel_with_the_same_bytes(fields):
    from concurrent.futures import ThreadPoolExecutor

    _, a, fill = fields[0]
    one = ghz.compress(a, "rel", 1e-4, fill, nthreads=1)
    with ThreadPoolExecutor(4) as pool:  # the GIL is released inside each call
        outs = list(pool.map(lambda _: ghz.compress(a, "rel", 1e-4, fill, nthreads=1), range(8)))
        backs = list(pool.map(lambda f: ghz.decompress(f, nthreads=1), outs))
    assert all(o == one for o in outs)
    assert all(np.array_equal(b, backs[0], equal_nan=True) for b in backs)


def test_value_range_gives_the_bound_of_that_range():
    a = np.linspace(0, 1, 1000, dtype=np.float64)
    frame = ghz.compress(a, "rel", 1e-3, value_range=(0.0, 10.0))
    assert 9.9e-3 < ghz.info(frame).abs_bound <= 1e-2
    check_round_trip(a, frame)


def _doc(op, a, b, e, fill):
    """HOMO.md's definition: decompress, operate in the dtype, recompress under ABS."""
    x, y = ghz.decompress(a), ghz.decompress(b)
    with np.errstate(all="ignore"):
        r = {"add": x + y, "sub": x - y, "min": np.where(y < x, y, x),
             "max": np.where(y > x, y, x)}[op].astype(x.dtype)
    if fill is not None:
        f = x.dtype.type(fill)
        r[(bits(x) == bits(np.array([f]))[0]) | (bits(y) == bits(np.array([f]))[0])] = f
    return ghz.compress(r, "abs", e, fill)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_homomorphic_operations_equal_decompress_operate_recompress(field, dtype):
    _, a, fill = field
    a = a.astype(dtype)
    rng = np.random.default_rng(5)
    b = a.copy()
    keep = np.isfinite(b) & ((b != dtype(fill)) if fill is not None else True)
    b[keep] += rng.normal(0, 0.1, keep.sum()).astype(dtype)
    e = 1e-2
    fa, fb = ghz.compress(a, "abs", e, fill), ghz.compress(b, "abs", e, fill)
    for op in ("add", "sub", "min", "max"):
        got = getattr(ghz, op)(fa, fb)
        assert got == _doc(op, fa, fb, ghz.info(fa).abs_bound, fill), op


def test_homomorphic_operands_must_match():
    a = ghz.compress(np.ones(100, np.float32), "abs", 1e-3)
    with pytest.raises(ghz.GhzError) as ei:
        ghz.add(a, ghz.compress(np.ones(101, np.float32), "abs", 1e-3))
    assert ei.value.status == ghz.Status.ERR_MISMATCH
    with pytest.raises(ghz.GhzError):
        ghz.sub(a, ghz.compress(np.ones(100, np.float32), "abs", 2e-3))
    with pytest.raises(ghz.GhzError):
        ghz.max(a, a[:50])


def test_version_and_status_names():
    lib, fmt = ghz.version()
    # fmt is the newest version read; a block frame is written as version 2, a ratio
    # frame as version 3
    assert lib > 0 and fmt == 3
    assert struct.unpack_from("<H", ghz.compress(np.ones(1)), 4)[0] == 2
    r = ghz.compress(np.linspace(0, 1, 4096).reshape(64, 64), prefer="ratio")
    assert struct.unpack_from("<H", r, 4)[0] == fmt
    assert ghz.Status.ERR_CORRUPT == 5 and ghz.Status.SUCCESS == 0


def _smooth(shape, dtype):
    grids = np.meshgrid(*[np.linspace(0, 3, s) for s in shape], indexing="ij")
    return (np.sin(sum(grids)) * 100 + sum(g * g for g in grids)).astype(dtype)


@pytest.mark.parametrize("shape", [(5000,), (97, 61), (19, 23, 31), (3, 4, 5, 6)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prefer_ratio_keeps_the_bound_and_writes_fewer_bytes(shape, dtype):
    a = _smooth(shape, dtype)
    a.flat[7] = np.nan
    a.flat[11] = -np.inf
    for bound in (1e-2, 1e-4):
        fast = ghz.compress(a, "rel", bound)
        small = ghz.compress(a, "rel", bound, prefer="ratio")
        b = ghz.decompress(small)
        e = ghz.info(small).abs_bound
        fin = np.isfinite(a.ravel())
        assert np.all(np.abs(b[fin].astype(np.float64) - a.ravel()[fin]) <= e)
        assert np.array_equal(a.ravel()[~fin].view(np.uint8), b[~fin].view(np.uint8))
        if a.size >= 4096:
            assert len(small) < len(fast), (shape, bound, len(small), len(fast))


def test_prefer_ratio_frames_hold_whole_slabs():
    a = _smooth((40, 30, 20), np.float32)
    old = ghz.FRAME_ELEMS
    try:
        ghz._api.FRAME_ELEMS = 30 * 20 * 7 + 5  # 7 slabs of 30 x 20 per frame
        s = ghz.compress(a, "abs", 1e-3, prefer="ratio")
    finally:
        ghz._api.FRAME_ELEMS = old
    assert ghz.info(s).frames == 6  # 40 slabs in frames of 7
    assert np.all(np.abs(ghz.decompress(s).reshape(a.shape) - a) <= 1e-3)


def test_prefer_is_checked():
    with pytest.raises(ValueError, match="prefer"):
        ghz.compress(np.ones(10), prefer="small")
