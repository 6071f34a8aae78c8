"""ghz.numcodecs.Ghz (numcodecs, zarr format 2) and ghz.zarr3.Ghz (zarr format 3)."""
import json

import pytest

np = pytest.importorskip("numpy")
numcodecs = pytest.importorskip("numcodecs")
ghz = pytest.importorskip("ghz")
import ghz.numcodecs  # noqa: E402

from test_codec import bits, within  # noqa: E402


def grid(a):
    """A field as a 2-D array of 96 columns (any length), for chunking in both ways."""
    n = a.size - a.size % 96
    return a[:n].reshape(-1, 96)


def valid(a, fill):
    keep = np.isfinite(a)
    if fill is not None:
        keep &= a != a.dtype.type(fill)
    return keep


def check(a, b, e, fill):
    keep = valid(a, fill)
    assert np.array_equal(bits(a[~keep]), bits(b[~keep]))
    assert not within(a[keep], b[keep], e).any()


def test_config_round_trips_through_json():
    codec = ghz.numcodecs.Ghz(mode="REL", bound=1e-3, fill=-1e34, checksum=True,
                              value_range=(-2.0, 40.0))
    cfg = json.loads(json.dumps(codec.get_config()))
    assert cfg == {"id": "ghz", "mode": "rel", "bound": 1e-3, "fill": -1e34,
                   "checksum": True, "value_range": [-2.0, 40.0]}
    again = numcodecs.get_codec(cfg)
    assert isinstance(again, ghz.numcodecs.Ghz) and again == codec
    assert numcodecs.get_codec({"id": "ghz"}) == ghz.numcodecs.Ghz()
    with pytest.raises(ValueError):
        ghz.numcodecs.Ghz(mode="lossless")


def test_the_entry_point_names_the_codec():
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        eps = distribution("ghz").entry_points
    except PackageNotFoundError:
        pytest.skip("ghz is not installed (the build tree's package has no metadata)")
    names = {(ep.group, ep.name): ep.value for ep in eps}
    assert names[("numcodecs.codecs", "ghz")] == "ghz.numcodecs:Ghz"
    assert names[("zarr.codecs", "ghz")] == "ghz.zarr3:Ghz"


def test_an_installed_package_reads_arrays_without_an_import(tmp_path):
    """Through the entry points alone: a reader that never imports ghz."""
    import subprocess
    import sys
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        distribution("ghz")
    except PackageNotFoundError:
        pytest.skip("ghz is not installed (the build tree's package has no metadata)")
    zarr, major = _zarr()
    a = np.linspace(0, 1, 4096, dtype=np.float32).reshape(64, 64)
    paths = {"v2": str(tmp_path / "v2.zarr")}
    if major >= 3:
        import ghz.zarr3

        paths["v3"] = str(tmp_path / "v3.zarr")
        z = zarr.create_array(paths["v3"], shape=a.shape, chunks=(32, 32), dtype=a.dtype,
                              serializer=ghz.zarr3.Ghz(mode="abs", bound=1e-3), compressors=None)
        z[...] = a
        z = zarr.create_array(paths["v2"], shape=a.shape, chunks=(32, 32), dtype=a.dtype,
                              zarr_format=2, compressors=ghz.numcodecs.Ghz(mode="abs", bound=1e-3))
    else:
        z = zarr.open(paths["v2"], mode="w", shape=a.shape, chunks=(32, 32), dtype=a.dtype,
                      compressor=ghz.numcodecs.Ghz(mode="abs", bound=1e-3))
    z[...] = a
    for path in paths.values():
        code = ("import sys, zarr, numpy as np; b = zarr.open_array(sys.argv[1], mode='r')[...]; "
                "print(float(np.abs(b - np.linspace(0, 1, 4096, dtype=np.float32)"
                ".reshape(64, 64)).max()))")
        r = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert float(r.stdout) <= 1e-3


def test_encode_decode(field):
    _, a, fill = field
    a = grid(a)
    codec = ghz.numcodecs.Ghz(mode="abs", bound=1e-2, fill=fill)
    enc = codec.encode(a)
    assert len(enc) < a.nbytes
    check(a.reshape(-1), codec.decode(enc), 1e-2, fill)
    out = np.empty_like(a)
    assert codec.decode(enc, out=out) is out
    check(a, out, 1e-2, fill)
    with pytest.raises(TypeError):
        codec.encode(np.zeros(10, np.int16))
    with pytest.raises(ghz.GhzError):
        codec.decode(enc[: len(enc) // 2])


def _zarr():
    zarr = pytest.importorskip("zarr")
    return zarr, int(zarr.__version__.split(".")[0])


def test_zarr_v2_array_chunked_over_a_field(tmp_path, fields):
    zarr, major = _zarr()
    for name, a, fill in fields:
        a = grid(a)
        keep = valid(a, fill)
        lo, hi = float(a[keep].min()), float(a[keep].max())
        # One REL bound over the array: every chunk gets the array's range.
        codec = ghz.numcodecs.Ghz(mode="rel", bound=1e-4, fill=fill, value_range=(lo, hi))
        path = str(tmp_path / (name.replace(":", "_") + ".zarr"))
        chunks = (max(1, a.shape[0] // 5), 40)  # edge chunks are partial in both axes
        if major >= 3:
            z = zarr.create_array(path, shape=a.shape, chunks=chunks, dtype=a.dtype,
                                  zarr_format=2, compressors=codec, fill_value=0)
        else:
            z = zarr.open(path, mode="w", shape=a.shape, chunks=chunks, dtype=a.dtype,
                          compressor=codec)
        z[...] = a
        r = zarr.open_array(path, mode="r")
        b = r[...]
        check(a, b, 1e-4 * (hi - lo), fill)
        assert np.array_equal(r[3:17, 50:90], b[3:17, 50:90])
        with open(tmp_path / path / ".zarray") as f:
            meta = json.load(f)
        assert meta["compressor"]["id"] == "ghz" and meta["compressor"]["bound"] == 1e-4


def test_zarr_v3_array_with_the_zarr3_codec(tmp_path, field):
    zarr, major = _zarr()
    if major < 3:
        pytest.skip("zarr format 3 needs zarr >= 3")
    import ghz.zarr3

    _, a, fill = field
    a = grid(a).astype(np.float64)
    path = str(tmp_path / "v3.zarr")
    codec = ghz.zarr3.Ghz(mode="abs", bound=1e-3, fill=fill, checksum=True)
    z = zarr.create_array(path, shape=a.shape, chunks=(64, 48), dtype=a.dtype,
                          serializer=codec, compressors=None, fill_value=0)
    z[...] = a
    r = zarr.open_array(path, mode="r")
    check(a, r[...], 1e-3, fill)
    with open(tmp_path / "v3.zarr" / "zarr.json") as f:
        meta = json.load(f)
    (ser,) = [c for c in meta["codecs"] if c["name"] == "ghz"]
    assert ser["configuration"]["bound"] == 1e-3 and ser["configuration"]["checksum"]
    assert ghz.zarr3.Ghz.from_dict(ser) == codec
    with pytest.raises(TypeError):
        zarr.create_array(str(tmp_path / "i.zarr"), shape=(10,), chunks=(5,), dtype="i4",
                          serializer=codec, compressors=None)
