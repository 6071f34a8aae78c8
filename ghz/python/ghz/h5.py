"""ghz's HDF5 filter (libH5Z_ghz.so) from h5py, and its parameters for HDF5's tools.

    import h5py, ghz.h5
    ghz.h5.register()                      # the wheel's plugin, if HDF5_PLUGIN_PATH lacks it
    with h5py.File("f.h5", "w") as f:
        f.create_dataset("t", data=a, chunks=(256, 256), **ghz.h5.filter(mode="rel", bound=1e-4))

Each chunk is compressed as one ghz frame. The filter id, FILTER_ID (422), is in HDF5's
range for filters under test (256-511): ghz has not registered an id yet, so another
filter could use the same one. A reader without the plugin gets HDF5's error that the
filter is not available, never the compressed bytes.

The dataset's element type (float32 or float64, little-endian) is filled in by the
filter when the dataset is created; other types are refused. Under "rel" the bound is
relative to each chunk's own range unless value_range gives the dataset's range.

For h5repack: ``python -m ghz.h5 --mode rel --bound 1e-4`` prints the UD= argument
(`h5repack -f DATASET:UD=... in.h5 out.h5`).
"""
from __future__ import annotations

import os
from typing import Dict, Optional, Tuple, Union

from . import _ghz
from ._api import _mode, _range

#: The filter's id (HDF5's testing range 256-511; see the module's docstring).
FILTER_ID: int = _ghz.H5Z_FILTER_ID

#: Where an installed wheel keeps libH5Z_ghz.so (absent in a build tree: there
#: HDF5_PLUGIN_PATH names the build's plugin directory).
PLUGIN_DIR: str = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugin")

_DTYPE_CODES = {None: 0, "float32": _ghz.F32, "float64": _ghz.F64, "f4": _ghz.F32, "f8": _ghz.F64}


def cd_values(
    mode: str = "rel",
    bound: float = 1e-4,
    fill: Optional[float] = None,
    *,
    dtype: Optional[str] = None,
    checksum: bool = False,
    value_range: Optional[Tuple[float, float]] = None,
) -> Tuple[int, ...]:
    """The filter's parameters (12 unsigned ints, layout in ghz/h5z/h5z_ghz.h).

    dtype None leaves the element type to the filter, which reads it from the dataset.
    """
    key = None if dtype is None else str(getattr(dtype, "name", dtype))
    if key not in _DTYPE_CODES:
        raise TypeError(f"ghz.h5: dtype must be float32 or float64, got {dtype!r}")
    return _ghz.h5z_cd_values(
        _DTYPE_CODES[key], _mode(mode), float(bound), fill, bool(checksum), _range(value_range)
    )


def filter(  # noqa: A001 - the name hdf5plugin's filters use too
    mode: str = "rel",
    bound: float = 1e-4,
    fill: Optional[float] = None,
    *,
    checksum: bool = False,
    value_range: Optional[Tuple[float, float]] = None,
) -> Dict[str, Union[int, Tuple[int, ...]]]:
    """Keyword arguments for h5py's create_dataset: compression and compression_opts."""
    return {
        "compression": FILTER_ID,
        "compression_opts": cd_values(
            mode, bound, fill, checksum=checksum, value_range=value_range
        ),
    }


def plugin_dir() -> Optional[str]:
    """The directory that holds libH5Z_ghz.so: the wheel's, else the first of
    HDF5_PLUGIN_PATH that has it, else None. Put it in HDF5_PLUGIN_PATH for HDF5's tools
    (h5dump, h5repack), which do not know the wheel's directory."""
    dirs = [PLUGIN_DIR] + os.environ.get("HDF5_PLUGIN_PATH", "").split(os.pathsep)
    for d in dirs:
        if d and os.path.exists(os.path.join(d, "libH5Z_ghz.so")):
            return d
    return None


def register() -> bool:
    """Puts the installed plugin's directory first on h5py's plugin search path.

    Returns True when the filter is then available to h5py. Unneeded when
    HDF5_PLUGIN_PATH already names a directory holding libH5Z_ghz.so.
    """
    import h5py

    if not h5py.h5z.filter_avail(FILTER_ID) and os.path.isdir(PLUGIN_DIR):
        h5py.h5pl.prepend(PLUGIN_DIR.encode())
    return bool(h5py.h5z.filter_avail(FILTER_ID))


def ud_argument(cd: Tuple[int, ...]) -> str:
    """h5repack's -f argument for these parameters (mandatory filter)."""
    return "UD=" + ",".join(str(v) for v in (FILTER_ID, 0, len(cd)) + tuple(cd))


def _main() -> None:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m ghz.h5", description="Prints h5repack's -f UD=... for ghz's filter."
    )
    ap.add_argument("--mode", default="rel", choices=["abs", "rel"])
    ap.add_argument("--bound", type=float, default=1e-4)
    ap.add_argument("--fill", type=float, default=None)
    ap.add_argument("--checksum", action="store_true")
    args = ap.parse_args()
    print(ud_argument(cd_values(args.mode, args.bound, args.fill, checksum=args.checksum)))


if __name__ == "__main__":
    _main()
