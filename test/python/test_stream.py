"""Arrays larger than memory: ghz.value_range, compress_chunks, write_stream and
open_stream (an index of frames; ranges read by decompressing only their frames)."""
import io

import pytest

np = pytest.importorskip("numpy")
ghz = pytest.importorskip("ghz")

from test_codec import bits, within  # noqa: E402


def chunks_of(a, size):
    """A generator of a's chunks, as a reader of a large file would give them."""
    for i in range(0, a.size, size):
        yield a[i:i + size]


def field(n=10_000, dtype=np.float32, fill=None):
    x = np.linspace(0, 12, n)
    a = (np.sin(x) * 20 + 5).astype(dtype)
    a[::97] = np.nan
    if fill is not None:
        a[5::31] = dtype(fill)
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rel_chunks_share_one_bound_and_concatenate_to_one_stream(tmp_path, dtype):
    fill = -1e34
    a = field(dtype=dtype, fill=fill)
    vr = ghz.value_range(chunks_of(a, 1000), fill=fill)  # first pass, chunk by chunk
    keep = np.isfinite(a) & (a != dtype(fill))
    assert vr == (float(a[keep].min()), float(a[keep].max()))
    assert ghz.value_range(a, fill=fill) == vr
    frames = list(ghz.compress_chunks(chunks_of(a, 1000), "rel", 1e-3, fill, value_range=vr))
    assert len(frames) == 10
    e = 1e-3 * (vr[1] - vr[0])
    assert {ghz.info(f).abs_bound for f in frames} == {ghz.info(frames[0]).abs_bound}
    stream = b"".join(frames)
    b = ghz.decompress(stream)  # the concatenation is one stream
    assert ghz.info(stream).frames == 10
    special = ~keep
    assert np.array_equal(bits(a[special]), bits(b[special]))
    assert not within(a[keep], b[keep], e).any()

    path = tmp_path / "s.ghz"
    assert ghz.write_stream(path, chunks_of(a, 1000), "rel", 1e-3, fill,
                            value_range=vr) == len(stream)
    assert path.read_bytes() == stream
    with ghz.open_stream(path) as r:
        assert len(r) == a.size and r.dtype == np.dtype(dtype).name and len(r.frames) == 10
        assert r.nbytes == len(stream)
        assert np.array_equal(bits(np.concatenate(list(r))), bits(b))
        for lo, hi in ((0, a.size), (0, 1), (999, 1001), (1500, 4321), (9000, 10_000),
                       (-50, None), (10, 10)):
            assert np.array_equal(bits(r.read(lo, hi)), bits(b[lo:hi])), (lo, hi)
        assert np.array_equal(bits(r[2500:2600]), bits(b[2500:2600]))
        assert bits(np.array([r[-1]]))[0] == bits(b[-1:])[0]
        with pytest.raises(IndexError):
            r[a.size]


def test_a_range_reads_only_the_frames_that_hold_it():
    a = field(20_000)
    stream = b"".join(ghz.compress_chunks(chunks_of(a, 2000), "abs", 1e-3))

    class Counting(io.BytesIO):
        def __init__(self, data):
            super().__init__(data)
            self.read_sizes = []

        def read(self, size=-1):
            self.read_sizes.append(size)
            return super().read(size)

    f = Counting(stream)
    r = ghz.open_stream(f)
    # Opening reads the 64-byte headers only.
    assert set(f.read_sizes) == {64} and len(f.read_sizes) == 10
    f.read_sizes.clear()
    r.read(4100, 4200)  # inside frame 2
    assert f.read_sizes == [r.frames[2][1]]
    assert f.tell() <= len(stream)


def test_rel_without_a_range_and_mixed_dtypes_are_refused():
    a = field()
    with pytest.raises(ghz.GhzError, match="value_range"):
        ghz.compress_chunks(chunks_of(a, 100), "rel", 1e-3)  # refused when made
    mixed = [a[:100], a[100:200].astype(np.float64)]
    with pytest.raises(TypeError, match="one dtype"):
        list(ghz.compress_chunks(mixed, "abs", 1e-3))
    with pytest.raises(ghz.GhzError):
        ghz.compress_chunks([a], "abs", -1)
    assert ghz.value_range([np.full(4, np.nan, np.float32)]) is None


def test_a_cut_stream_is_an_error_or_reads_its_complete_frames(tmp_path):
    a = field(5000)
    frames = list(ghz.compress_chunks(chunks_of(a, 1000), "abs", 1e-3, checksum=True))
    stream = b"".join(frames)
    full = ghz.decompress(stream)
    for cut in (len(stream) - 1, len(stream) - len(frames[-1]) + 10,
                len(stream) - len(frames[-1]) + 63):
        with pytest.raises(ghz.GhzError) as ei:
            ghz.open_stream(stream[:cut])
        assert ei.value.status == ghz.Status.ERR_TRUNCATED
        assert "allow_truncated" in str(ei.value) or "byte" in str(ei.value)
        r = ghz.open_stream(stream[:cut], allow_truncated=True)
        assert len(r) == 4000 and np.array_equal(bits(r.read()), bits(full[:4000]))
    with pytest.raises(ghz.GhzError) as ei:
        ghz.open_stream(stream + b"garbage that is not a frame header" * 3)
    assert ei.value.status == ghz.Status.ERR_NOT_GHZ and f"byte {len(stream)}" in str(ei.value)
    bad = bytearray(stream)
    bad[len(frames[0]) + 200] ^= 0x40  # a payload byte of frame 1: its checksum says so
    r = ghz.open_stream(bytes(bad))
    assert np.array_equal(bits(r.read(0, 1000)), bits(full[:1000]))
    with pytest.raises(ghz.GhzError):
        r.read(1000, 1001)
    assert len(ghz.open_stream(b"")) == 0


def test_a_file_object_is_read_from_its_position(tmp_path):
    a = field(3000)
    path = tmp_path / "p.bin"
    with open(path, "wb") as f:
        f.write(b"HEADER!!")
        n = ghz.write_stream(f, chunks_of(a, 1000), "abs", 1e-2)
    with open(path, "rb") as f:
        f.seek(8)
        r = ghz.open_stream(f)
        assert r.nbytes == n and len(r) == 3000
        assert not within(a[np.isfinite(a)], r.read()[np.isfinite(a)], 1e-2).any()
