"""Fixtures of the Python tests: the fields to compress, and the tools they run.

Fields: the real ones of datasets/out/real (datasets/real/extract.sh) when they are
there, else the generated ones of ghz-datagen (the build's, named by GHZ_DATAGEN), else
small fields made here with numpy (so the tests run from any checkout). CTest sets the
environment (test/python/CMakeLists.txt).
"""
import os
import shutil
import subprocess

import pytest

np = pytest.importorskip("numpy")

from realfields import real_fields as _real_fields  # noqa: E402

# ghz-datagen's fields at sizes that keep the suite to seconds, and their fill values.
DATAGEN = [("wave3d", (64, 64, 32), None), ("smooth2d", (512, 256, 1), None),
           ("noisy2d", (512, 256, 1), None), ("ocean2d", (720, 360, 1), -1e34)]


def _datagen_fields(tmp):
    exe = os.environ.get("GHZ_DATAGEN")
    if not exe or not os.path.exists(exe):
        return []
    out = []
    for name, dims, fill in DATAGEN:
        path = os.path.join(tmp, name + ".f32")
        subprocess.run([exe, name, "-d", *map(str, dims), "-o", path], check=True,
                       stderr=subprocess.DEVNULL)
        out.append(("datagen:" + name, np.fromfile(path, dtype="<f4"), fill))
    return out


def _numpy_fields():
    rng = np.random.default_rng(42)
    x = np.linspace(0, 8 * np.pi, 1 << 18)
    smooth = (np.sin(x) * 30 + 280 + np.cos(3.1 * x) * 5).astype(np.float32)
    noisy = smooth + rng.normal(0, 1.5, smooth.size).astype(np.float32)
    ocean = smooth.copy()
    ocean[(np.sin(x / 3) > 0.4)] = np.float32(-1e34)
    return [("numpy:smooth", smooth, None), ("numpy:noisy", noisy, None),
            ("numpy:ocean", ocean, -1e34)]


@pytest.fixture(scope="session")
def fields(tmp_path_factory):
    """[(name, float32 array, fill or None)], at least three fields."""
    got = _real_fields() or _datagen_fields(str(tmp_path_factory.mktemp("fields")))
    return got or _numpy_fields()


@pytest.fixture(scope="session")
def field(fields):
    """One field with a fill value where one exists (the ocean fields), float32."""
    with_fill = [f for f in fields if f[2] is not None]
    return (with_fill or fields)[0]


def tool(name):
    """The path of an HDF5 command-line tool, or skip."""
    path = shutil.which(name)
    if not path:
        pytest.skip(f"{name} not installed (apt-get install hdf5-tools)")
    return path
