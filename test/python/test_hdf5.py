"""The HDF5 filter plugin libH5Z_ghz.so, from h5py and from HDF5's command-line tools.

CTest puts the build's plugin directory in HDF5_PLUGIN_PATH; the tests that need the
plugin missing run their reader in a subprocess with an empty plugin directory.
"""
import os
import subprocess
import sys
import textwrap

import pytest

np = pytest.importorskip("numpy")
h5py = pytest.importorskip("h5py")
ghz = pytest.importorskip("ghz")
import ghz.h5  # noqa: E402

from conftest import tool  # noqa: E402
from test_codec import bits, within  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def plugin():
    if not ghz.h5.register():
        pytest.skip("libH5Z_ghz.so not found (HDF5_PLUGIN_PATH; built with GHZ_BUILD_HDF5_FILTER)")


def tools_env():
    """The environment for HDF5's tools: the plugin's directory in HDF5_PLUGIN_PATH."""
    return dict(os.environ, HDF5_PLUGIN_PATH=ghz.h5.plugin_dir())


def cube(a):
    """A field as a 3-D array with chunks that split it in every direction."""
    n = a.size - a.size % (8 * 64 * 64)
    return a[:n].reshape(-1, 64, 64) if n else a[: 64 * 64].reshape(1, 64, 64)


def write(path, a, chunks, **kw):
    with h5py.File(path, "w") as f:
        d = f.create_dataset("v", data=a, chunks=chunks, **ghz.h5.filter(**kw))
        fid, flags, cd, name = d.id.get_create_plist().get_filter(0)
        assert fid == ghz.h5.FILTER_ID and b"ghz" in name
        assert cd[1] == (1 if a.dtype == np.float32 else 2)  # set_local read the type
        return d.id.get_storage_size()


def check(a, b, e, fill):
    special = ~np.isfinite(a)
    if fill is not None:
        special |= a == a.dtype.type(fill)
    assert np.array_equal(bits(a[special]), bits(b[special]))
    assert not within(a[~special], b[~special], e).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_h5py_round_trip_within_the_bound(tmp_path, fields, dtype):
    for name, a, fill in fields:
        a = cube(a.astype(dtype))
        path = str(tmp_path / "f.h5")
        size = write(path, a, (2, 32, 64), mode="abs", bound=1e-3, fill=fill)
        assert size < a.nbytes, name
        with h5py.File(path, "r") as f:
            b = f["v"][...]
            part = f["v"][1:3, 10:40, 5:60]  # a selection across chunks
        assert b.shape == a.shape and b.dtype == a.dtype
        check(a, b, 1e-3, fill)
        assert np.array_equal(part, b[1:3, 10:40, 5:60])


def test_rel_with_the_datasets_range_and_checksum(tmp_path, field):
    _, a, fill = field
    a = cube(a)
    keep = np.isfinite(a) & ((a != np.float32(fill)) if fill is not None else True)
    lo, hi = float(a[keep].min()), float(a[keep].max())
    path = str(tmp_path / "r.h5")
    write(path, a, (1, 64, 64), mode="rel", bound=1e-4, fill=fill, checksum=True,
          value_range=(lo, hi))
    with h5py.File(path, "r") as f:
        b = f["v"][...]
    check(a, b, 1e-4 * (hi - lo), fill)


def test_other_types_are_refused_not_mangled(tmp_path):
    # The filter's can_apply and set_local refuse any type but little-endian float32 and
    # float64. Whether HDF5 then fails the creation of the dataset (HDF5 2.0 under h5py,
    # which marks its filters optional: "error during user callback") or stores it
    # without the filter depends on HDF5's version; either way the integers are never
    # compressed as floats.
    a = np.arange(4096, dtype=np.int32).reshape(64, 64)
    path = str(tmp_path / "i.h5")
    with h5py.File(path, "w") as f:
        try:
            d = f.create_dataset("v", data=a, chunks=(32, 32), **ghz.h5.filter())
        except ValueError as e:
            assert "callback" in str(e) or "filter" in str(e)
            return
        assert d.id.get_create_plist().get_nfilters() == 0
    with h5py.File(path, "r") as f:
        assert np.array_equal(f["v"][...], a)


def test_h5dump_reads_what_h5py_wrote(tmp_path, field):
    h5dump = tool("h5dump")
    _, a, fill = field
    a = cube(a)
    path, out = str(tmp_path / "d.h5"), str(tmp_path / "d.bin")
    write(path, a, (2, 32, 32), mode="rel", bound=1e-3, fill=fill)
    with h5py.File(path, "r") as f:
        b = f["v"][...]
    r = subprocess.run([h5dump, "-d", "/v", "-b", "LE", "-o", out, path],
                       capture_output=True, text=True, env=tools_env())
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.fromfile(out, dtype="<f4").reshape(a.shape), b)
    r = subprocess.run([h5dump, "-H", "-p", path], capture_output=True, text=True,
                       env=tools_env())
    assert f"FILTER_ID {ghz.h5.FILTER_ID}" in r.stdout and "ghz" in r.stdout


def test_h5repack_applies_the_filter(tmp_path, field):
    h5repack = tool("h5repack")
    _, a, fill = field
    a = cube(a)
    raw, packed = str(tmp_path / "raw.h5"), str(tmp_path / "packed.h5")
    with h5py.File(raw, "w") as f:
        f.create_dataset("v", data=a)
    ud = ghz.h5.ud_argument(ghz.h5.cd_values("abs", 1e-2, fill))
    r = subprocess.run([h5repack, "-l", "/v:CHUNK=4x64x64", "-f", "/v:" + ud, raw, packed],
                       capture_output=True, text=True, env=tools_env())
    assert r.returncode == 0, r.stderr
    with h5py.File(packed, "r") as f:
        assert f["v"].id.get_create_plist().get_filter(0)[0] == ghz.h5.FILTER_ID
        b = f["v"][...]
        assert f["v"].id.get_storage_size() < a.nbytes
    check(a, b, 1e-2, fill)


def _without_plugin(tmp_path):
    env = dict(os.environ)
    empty = tmp_path / "no-plugins"
    empty.mkdir(exist_ok=True)
    env["HDF5_PLUGIN_PATH"] = str(empty)
    return env


def test_reading_without_the_plugin_is_a_clear_error(tmp_path, field):
    _, a, fill = field
    path = str(tmp_path / "m.h5")
    write(path, cube(a), (2, 32, 32), mode="abs", bound=1e-3, fill=fill)
    env = _without_plugin(tmp_path)
    code = textwrap.dedent(f"""
        import h5py
        with h5py.File({path!r}, "r") as f:
            try:
                f["v"][...]
            except OSError as e:
                print("OSError:", e)
                raise SystemExit(3)
        print("read without the plugin")
    """)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "plugin" in r.stdout or "filter" in r.stdout, r.stdout
    h5dump = tool("h5dump")
    r = subprocess.run([h5dump, "--enable-error-stack", "-d", "/v", "-b", "LE", "-o",
                        str(tmp_path / "m.bin"), path], env=env, capture_output=True,
                       text=True)
    assert r.returncode != 0
    assert "required filter 'ghz" in r.stdout + r.stderr


def test_a_corrupted_chunk_is_an_error_not_garbage(tmp_path, field):
    _, a, fill = field
    a = cube(a)
    path = str(tmp_path / "c.h5")
    write(path, a, tuple(a.shape), mode="abs", bound=1e-3, fill=fill, checksum=True)
    with h5py.File(path, "r") as f:
        info = f["v"].id.get_chunk_info(0)
    with open(path, "r+b") as fp:  # a byte in the middle of the one chunk's frame
        fp.seek(info.byte_offset + info.size // 2)
        byte = fp.read(1)
        fp.seek(-1, 1)
        fp.write(bytes([byte[0] ^ 0x5A]))
    code = textwrap.dedent(f"""
        import h5py
        with h5py.File({path!r}, "r") as f:
            try:
                f["v"][...]
            except OSError as e:
                print("OSError:", e)
                raise SystemExit(3)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=tools_env())
    assert r.returncode == 3, r.stdout + r.stderr
    assert "checksum mismatch" in r.stderr  # the plugin's reason, on stderr


def test_cd_values_layout():
    cd = ghz.h5.cd_values("rel", 1e-4, -1e34, dtype="float64", checksum=True,
                          value_range=(1.0, 2.0))
    assert len(cd) == 12 and cd[:3] == (1, 2, 2) and cd[5] == 7
    assert np.array(cd[3:5], dtype="<u4").view("<f8")[0] == 1e-4
    assert np.array(cd[6:8], dtype="<u4").view("<f8")[0] == -1e34
    assert np.array(cd[8:12], dtype="<u4").view("<f8").tolist() == [1.0, 2.0]
    with pytest.raises(TypeError):
        ghz.h5.cd_values(dtype="int32")
    assert ghz.h5.ud_argument(cd).startswith(f"UD={ghz.h5.FILTER_ID},0,12,1,2,2,")


def smooth3d(dtype=np.float32, shape=(32, 64, 96)):
    """A smooth 3-D field (C order: the last axis fastest)."""
    z, y, x = np.meshgrid(*(np.linspace(0, 1, s) for s in shape), indexing="ij")
    return (np.sin(6 * x + 2 * y) * np.cos(5 * z - 3 * y) * 40 + 280 + 7 * x * z).astype(dtype)


def _chunk_frame(path, index=0):
    """The raw bytes of one chunk of /v: its ghz frame."""
    with h5py.File(path, "r") as f:
        info = f["v"].id.get_chunk_info(index)
        return f["v"].id.read_direct_chunk(info.chunk_offset)[1]


def _ratio_shape(frame):
    """A ratio frame's extents, fastest first (RATIO.md: format version 3, codec byte 12,
    d0, d1, d2 at the section's start, offset 64)."""
    assert frame[4] == 3 and frame[12] == 1, "not a ratio frame"
    return tuple(np.frombuffer(frame[64:88], "<u8").tolist())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prefer_ratio_predicts_along_the_chunks_shape(tmp_path, dtype):
    a = smooth3d(dtype)
    a[3, 5, 7] = np.nan
    a[10, 20:30, 40] = np.inf
    path = str(tmp_path / "ratio.h5")
    size = write(path, a, (16, 32, 48), mode="abs", bound=1e-2, prefer="ratio")
    with h5py.File(path, "r") as f:
        fid, flags, cd, name = f["v"].id.get_create_plist().get_filter(0)
        b = f["v"][...]
        part = f["v"][5:20, 10:50, 30:90]
    # Layout 2: the ratio flag, and the chunk's extents fastest first, from set_local.
    assert len(cd) == 15 and cd[0] == 2 and cd[5] & 8 and tuple(cd[12:15]) == (48, 32, 16)
    assert _ratio_shape(_chunk_frame(path)) == (48, 32, 16)
    check(a, b, 1e-2, None)
    assert np.array_equal(part, b[5:20, 10:50, 30:90])
    assert size < a.nbytes / 4


def test_prefer_ratio_is_smaller_than_speed_on_a_smooth_field(tmp_path):
    a = smooth3d()
    sizes = {}
    for prefer in ("speed", "ratio"):
        path = str(tmp_path / f"{prefer}.h5")
        sizes[prefer] = write(path, a, (16, 64, 96), mode="rel", bound=1e-4, prefer=prefer)
        with h5py.File(path, "r") as f:
            b = f["v"][...]
        e = 1e-4 * (float(a.max()) - float(a.min()))  # each chunk's own range is smaller
        check(a, b, e, None)
    assert sizes["ratio"] < sizes["speed"] * 0.75, sizes


def test_prefer_ratio_folds_shapes_and_keeps_fill_and_checksum(tmp_path):
    # A 4-D chunk is folded to 3 extents (the slowest merged), extents of 1 dropped.
    a = smooth3d(np.float64, (6, 16, 20))
    a = np.stack([a, a * 2, a - 1, a + 3])  # shape (4, 6, 16, 20)
    a[1, 2, :, 5] = -9999.0
    cases = {(4, 6, 16, 20): (20, 16, 24), (2, 3, 16, 20): (20, 16, 6),
             (1, 6, 1, 20): (20, 6, 1), (4, 1, 16, 1): (16, 4, 1)}
    for chunks, dims in cases.items():
        path = str(tmp_path / "fold.h5")
        write(path, a, chunks, mode="abs", bound=1e-3, fill=-9999.0, checksum=True,
              prefer="ratio")
        with h5py.File(path, "r") as f:
            cd = f["v"].id.get_create_plist().get_filter(0)[2]
            b = f["v"][...]
        assert tuple(cd[12:15]) == dims, chunks
        assert _ratio_shape(_chunk_frame(path)) == dims, chunks
        check(a, b, 1e-3, -9999.0)


def test_a_layout_1_file_still_reads_and_is_written_for_speed(tmp_path):
    # prefer="speed" (the default) writes layout 1, the 12 values every version of the
    # plugin reads and writes; a file with them reads and takes new chunks.
    cd = ghz.h5.cd_values("abs", 1e-3)
    assert len(cd) == 12 and cd[0] == 1 and cd == ghz.h5.cd_values("abs", 1e-3, prefer="speed")
    a = smooth3d()
    path = str(tmp_path / "v1.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("v", data=a, chunks=(8, 32, 32), maxshape=(None, 64, 96),
                         compression=ghz.h5.FILTER_ID, compression_opts=cd)
    with h5py.File(path, "r+") as f:
        cd_file = f["v"].id.get_create_plist().get_filter(0)[2]
        assert len(cd_file) == 12 and cd_file[0] == 1
        f["v"].resize(40, axis=0)
        f["v"][32:40] = a[:8]
    frame = _chunk_frame(path)
    assert frame[4] == 2 and frame[12] == 0  # a block frame (FORMAT.md version 2)
    with h5py.File(path, "r") as f:
        b = f["v"][...]
    check(a, b[:32], 1e-3, None)
    check(a[:8], b[32:], 1e-3, None)


def test_cd_values_layout_2():
    cd = ghz.h5.cd_values("abs", 1e-3, 5.0, checksum=True, prefer="ratio")
    assert len(cd) == 15 and cd[0] == 2 and cd[5] == 1 | 2 | 8 and cd[12:] == (0, 0, 0)
    speed = ghz.h5.cd_values("abs", 1e-3, 5.0, checksum=True)
    assert cd[1:5] == speed[1:5] and cd[6:12] == speed[6:12] and cd[5] == speed[5] | 8
    assert ghz.h5.ud_argument(cd).startswith(f"UD={ghz.h5.FILTER_ID},0,15,2,0,1,")
    assert ghz.h5.filter("abs", 1e-3, prefer="ratio")["compression_opts"] == \
        ghz.h5.cd_values("abs", 1e-3, prefer="ratio")
    with pytest.raises(ValueError, match="prefer"):
        ghz.h5.cd_values(prefer="size")


def test_h5repack_applies_prefer_ratio(tmp_path):
    h5repack = tool("h5repack")
    a = smooth3d()
    raw, packed = str(tmp_path / "raw.h5"), str(tmp_path / "packed.h5")
    with h5py.File(raw, "w") as f:
        f.create_dataset("v", data=a)
    ud = ghz.h5.ud_argument(ghz.h5.cd_values("abs", 1e-2, prefer="ratio"))
    r = subprocess.run([h5repack, "-l", "/v:CHUNK=8x32x96", "-f", "/v:" + ud, raw, packed],
                       capture_output=True, text=True, env=tools_env())
    assert r.returncode == 0, r.stderr
    with h5py.File(packed, "r") as f:
        assert tuple(f["v"].id.get_create_plist().get_filter(0)[2][12:15]) == (96, 32, 8)
        b = f["v"][...]
    assert _ratio_shape(_chunk_frame(packed)) == (96, 32, 8)
    check(a, b, 1e-2, None)


def _run_isolated(tmp_path, code, env_extra=None):
    """Runs code in a fresh interpreter whose HDF5 has no plugin path of ours: only
    HDF5_PLUGIN_PATH=an empty directory, so that the plugin can come only from the
    package's own directory (what `import ghz` adds)."""
    env = _without_plugin(tmp_path)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True)


@pytest.mark.parametrize("order", ["ghz first", "h5py first"])
def test_import_ghz_registers_the_filter_without_register(tmp_path, order):
    if not os.path.exists(os.path.join(ghz.h5.PLUGIN_DIR, "libH5Z_ghz.so")):
        pytest.skip("the package carries no plugin (built without ghz_h5z)")
    imports = "import ghz.h5, h5py" if order == "ghz first" else "import h5py, ghz.h5"
    path = str(tmp_path / "auto.h5")
    r = _run_isolated(tmp_path, f"""
        {imports}
        import numpy as np
        a = np.linspace(-3, 40, 64 * 64, dtype=np.float32).reshape(64, 64)
        with h5py.File({path!r}, "w") as f:
            f.create_dataset("v", data=a, chunks=(32, 32), compression=422,
                             compression_opts=ghz.h5.cd_values("abs", 1e-3))
        with h5py.File({path!r}, "r") as f:
            assert f["v"].id.get_create_plist().get_filter(0)[0] == 422
            assert f["v"].id.get_storage_size() < a.nbytes
            assert float(abs(f["v"][...] - a).max()) <= 1e-3
        print("ok")
    """)
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr
    # Without `import ghz` the same reader has no filter 422: the path came from ghz.
    r = _run_isolated(tmp_path, f"""
        import h5py
        with h5py.File({path!r}, "r") as f:
            try:
                f["v"][...]
            except OSError:
                raise SystemExit(3)
    """)
    assert r.returncode == 3, r.stdout + r.stderr


def test_the_filter_says_on_stderr_why_it_refuses_a_dataset(tmp_path):
    # Parameters h5py passes through unchecked (a bound of -1 packed by hand), and a
    # big-endian dataset: HDF5 itself only says "error during user callback" or stores
    # the dataset without the filter; the plugin's stderr says why.
    path = str(tmp_path / "bad.h5")
    cd = list(ghz.h5.cd_values("abs", 1.0))
    cd[3:5] = np.array([-1.0], "<f8").view("<u4").tolist()
    r = _run_isolated(tmp_path, f"""
        import ghz.h5, h5py, numpy as np
        with h5py.File({path!r}, "w") as f:
            for name, dt, cd in (("bound", "<f4", {tuple(cd)!r}),
                                 ("order", ">f4", ghz.h5.cd_values("abs", 1e-3))):
                try:
                    f.create_dataset(name, data=np.ones((8, 8), dt), chunks=(8, 8),
                                     compression=422, compression_opts=cd)
                except Exception as e:
                    print("refused:", name)
    """, {"HDF5_PLUGIN_PATH": ghz.h5.plugin_dir()})
    assert "H5Z_ghz: create: the bound (cd_values[3..4]) is not a finite number > 0" in r.stderr
    assert "H5Z_ghz: create: the dataset's type is a float of 4 bytes in big-endian order" in r.stderr
    assert "astype('<f4')" in r.stderr


def test_a_missing_plugin_is_explained(tmp_path):
    # A copy of the package without its plugin, and no HDF5_PLUGIN_PATH: filter() says
    # what to do instead of h5py's "Unknown compression filter number: 422".
    import shutil

    pkg = tmp_path / "pkg"
    shutil.copytree(os.path.dirname(ghz.__file__), pkg / "ghz",
                    ignore=shutil.ignore_patterns("plugin", "__pycache__"))
    r = _run_isolated(tmp_path, """
        import h5py, ghz.h5
        if ghz.h5.register():
            raise SystemExit(5)  # found elsewhere (a system-wide install): nothing to test
        try:
            ghz.h5.filter("abs", 1e-3)
        except RuntimeError as e:
            print(e)
            raise SystemExit(3)
    """, {"HDF5_PLUGIN_PATH": str(tmp_path / "no-plugins"), "PYTHONPATH": str(pkg)})
    if r.returncode == 5:
        pytest.skip("a ghz plugin is installed in HDF5's default plugin directory")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "filter 422 (ghz) is not available" in r.stdout
    assert "pip install" in r.stdout and "HDF5_PLUGIN_PATH" in r.stdout
