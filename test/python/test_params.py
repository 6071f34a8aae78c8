"""Parameters checked when an object is made (ghz.compress, the numcodecs and zarr 3
codecs, ghz.h5.filter / cd_values), the RangeWarning of REL over a fill value taken as
data, a NaN fill in strict-JSON metadata, and the messages of issue 45 (byte order,
decompress errors)."""
import json
import warnings

import pytest

np = pytest.importorskip("numpy")
ghz = pytest.importorskip("ghz")
import ghz._api  # noqa: E402
import ghz.h5  # noqa: E402

BAD_BOUNDS = (0.0, -1, -1e-3, float("nan"), float("inf"))
BAD_RANGES = ((2.0, 1.0), (0.0, float("nan")), (float("nan"), 1.0), (0.0, float("inf")),
              (float("-inf"), 0.0))


def _makers():
    """Every object that takes compression parameters: name -> callable(**kw)."""
    makers = {
        "compress": lambda **kw: ghz.compress(np.ones(100, np.float32), **kw),
        "h5.cd_values": lambda **kw: ghz.h5.cd_values(**kw),
        "compress_chunks": lambda **kw: ghz.compress_chunks([], **kw),
    }
    try:
        import ghz.numcodecs

        makers["numcodecs.Ghz"] = lambda **kw: ghz.numcodecs.Ghz(**kw)
    except ImportError:
        pass
    try:
        import ghz.zarr3

        makers["zarr3.Ghz"] = lambda **kw: ghz.zarr3.Ghz(**kw)
    except ImportError:
        pass
    return makers


@pytest.mark.parametrize("name", sorted(_makers()))
def test_bad_bounds_and_ranges_are_refused_when_made(name):
    make = _makers()[name]
    for bound in BAD_BOUNDS:
        with pytest.raises(ghz.GhzError) as ei:
            make(mode="abs", bound=bound, value_range=(0.0, 1.0))
        assert ei.value.status == ghz.Status.ERR_BAD_BOUND
        assert "> 0" in str(ei.value)
    for vr in BAD_RANGES:
        with pytest.raises(ghz.GhzError) as ei:
            make(mode="rel", bound=1e-3, value_range=vr)
        assert ei.value.status == ghz.Status.ERR_BAD_BOUND
        assert "min <= max" in str(ei.value) and "ghz.value_range" in str(ei.value)
    with pytest.raises(TypeError, match="value_range"):
        make(mode="rel", bound=1e-3, value_range=5.0)
    with pytest.raises(ValueError, match="mode"):
        make(mode="lossy", bound=1e-3)
    with pytest.raises((TypeError, ValueError), match="fill"):
        make(mode="abs", bound=1e-3, fill="land")


def test_h5_filter_refuses_bad_parameters_before_a_file_sees_them():
    with pytest.raises(ghz.GhzError, match="bound"):
        ghz.h5.filter("abs", -1)
    with pytest.raises(ghz.GhzError, match="value_range"):
        ghz.h5.filter("rel", 1e-3, value_range=(1.0, 0.0))
    # A zero-width range is a valid range (REL is then lossless), not an error.
    assert len(ghz.h5.cd_values("rel", 1e-3, value_range=(1.0, 1.0))) == 12


def test_rel_over_a_huge_fill_value_warns_once_with_the_fix():
    a = np.linspace(-2.0, 31.0, 50000).astype(np.float32)
    a[::9] = np.float32(9.969209968386869e36)  # netCDF's default _FillValue
    ghz._api._warned_range = False
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ghz.compress(a, "rel", 1e-3)
            ghz.compress(a, "rel", 1e-3)  # once per process
        assert len(w) == 1 and issubclass(w[0].category, ghz.RangeWarning)
        msg = str(w[0].message)
        assert "fill=" in msg and "9.969209968386869e+36" in msg
        ghz._api._warned_range = False
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ghz.compress(a, "rel", 1e-3, fill=9.969209968386869e36)  # the fix: silent
            ghz.compress(a, "rel", 1e-3, value_range=(-2.0, 31.0))
            ghz.compress(a, "abs", 1e-3)
            ghz.compress(np.linspace(0, 1e29, 1000), "rel", 1e-3)  # a real range < 1e30
        # Through a codec too (its chunks are compressed by ghz.compress).
        codecs = pytest.importorskip("ghz.numcodecs")
        with pytest.warns(ghz.RangeWarning):
            codecs.Ghz(mode="rel", bound=1e-3).encode(a)
    finally:
        ghz._api._warned_range = False


@pytest.mark.parametrize("fill", [float("nan"), float("inf"), float("-inf"), -1e34,
                                  np.array([0x7FF8000000000123], np.uint64).view(np.float64)[0]])
def test_non_finite_fill_is_strict_json_and_reads_back(fill):
    codecs = pytest.importorskip("ghz.numcodecs")
    import numcodecs

    codec = codecs.Ghz(mode="abs", bound=1e-3, fill=fill)
    text = json.dumps(codec.get_config(), allow_nan=False)  # strict JSON
    again = numcodecs.get_codec(json.loads(text))
    bits = np.array([fill], np.float64).view(np.uint64)[0]
    assert np.array([again.fill], np.float64).view(np.uint64)[0] == bits
    assert again == codec
    # The old metadata (a NaN literal, which Python's json reads) still loads.
    old = dict(codec.get_config(), fill=float(fill))
    assert np.isnan(numcodecs.get_codec(old).fill) == np.isnan(fill)
    try:
        import ghz.zarr3
    except ImportError:
        return
    z3 = ghz.zarr3.Ghz(mode="abs", bound=1e-3, fill=fill)
    d = json.loads(json.dumps(z3.to_dict(), allow_nan=False))
    back = ghz.zarr3.Ghz.from_dict(d)
    assert np.array([back.fill], np.float64).view(np.uint64)[0] == bits


def test_nan_fill_keeps_nan_exactly():
    a = np.linspace(0, 1, 10000).astype(np.float32)
    a[::5] = np.nan
    frame = ghz.compress(a, "rel", 1e-3, fill=float("nan"))
    b = ghz.decompress(frame)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.all(np.abs(a[~np.isnan(a)] - b[~np.isnan(b)]) <= 1e-3)
    assert np.isnan(ghz.info(frame).fill)


def test_nan_needs_no_declaring():
    # A block frame written without a fill declares NaN as its fill (FORMAT.md, NaN as
    # the fill value): the same bytes as fill=float("nan"), NaN-masked data as small as
    # with a declared fill, and ghz.info reports the NaN. A ratio frame has no fill.
    for dtype in (np.float32, np.float64):
        a = np.sin(np.linspace(0, 20, 1 << 16)).astype(dtype)
        land = (np.arange(a.size) // 700) % 3 == 0
        masked, filled = a.copy(), a.copy()
        masked[land] = np.nan
        filled[land] = -1e34
        frame = ghz.compress(masked, "rel", 1e-3)
        assert frame == ghz.compress(masked, "rel", 1e-3, fill=float("nan"))
        assert len(frame) == len(ghz.compress(filled, "rel", 1e-3, fill=-1e34))
        assert np.isnan(ghz.info(frame).fill)
        b = ghz.decompress(frame)
        assert np.array_equal(b.view(np.uint8)[np.repeat(land, a.itemsize)],
                              masked.view(np.uint8)[np.repeat(land, a.itemsize)])
        assert ghz.info(ghz.compress(a, "rel", 1e-3, prefer="ratio")).fill is None


def test_big_endian_is_refused_saying_the_byte_order_and_the_fix():
    for dt in (">f4", ">f8"):
        with pytest.raises(TypeError) as ei:
            ghz.compress(np.ones(8, dt))
        msg = str(ei.value)
        assert "big-endian" in msg and f"astype('<{dt[1:]}')" in msg
        with pytest.raises(TypeError, match="byte order"):
            ghz.decompress(ghz.compress(np.ones(8, "<" + dt[1:]), "abs", 1e-3),
                           out=np.empty(8, dt))
    codecs = pytest.importorskip("ghz.numcodecs")
    with pytest.raises(TypeError, match=r"astype\('<f4'\)"):
        codecs.Ghz().encode(np.ones(8, ">f4"))


def test_decompress_errors_say_decompress():
    for bad in (b"", b"not a ghz frame" * 8, ghz.compress(np.ones(64, np.float32))[:40]):
        with pytest.raises(ghz.GhzError) as ei:
            ghz.decompress(bad)
        assert str(ei.value).startswith("ghz.decompress:"), str(ei.value)
        assert "ghz.info" not in str(ei.value)
