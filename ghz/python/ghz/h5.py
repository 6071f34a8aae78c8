"""ghz's HDF5 filter (libH5Z_ghz.so) from h5py, and its parameters for HDF5's tools.

    import h5py, ghz.h5
    with h5py.File("f.h5", "w") as f:
        f.create_dataset("t", data=a, chunks=(256, 256), **ghz.h5.filter(mode="rel", bound=1e-4))

`import ghz` makes the package's plugin available to h5py (ghz/_h5hook.py); register()
is only needed to check that it is there. Each chunk is compressed as one ghz frame.
The filter id, FILTER_ID (422), is in HDF5's range for filters under test (256-511):
ghz has not registered an id with The HDF Group yet (docs/PYTHON.md, "The filter id"),
so another unregistered filter could use the same one. A reader without the plugin
gets HDF5's error that the filter is not available, never the compressed bytes.

The dataset's element type (float32 or float64, little-endian) is filled in by the
filter when the dataset is created; other types are refused. Under "rel" the bound is
relative to each chunk's own range unless value_range gives the dataset's range.

prefer="ratio" writes each chunk as a ratio frame (ghz/codec/RATIO.md), predicted along
the chunk's dimensions, which the filter reads from the dataset when it is created:
several times smaller on smooth fields, several times slower to write. Give the chunks
the shape of the data (e.g. (16, 64, 64) of a 3-D field, not (1, 1, 65536)). Reading such
a file needs a ghz plugin that reads ratio frames (format version 3: this version or
newer); files written with prefer="speed" (the default) keep the parameters every
version reads.

For h5repack: ``python -m ghz.h5 --mode rel --bound 1e-4 [--prefer ratio]`` prints
the UD= argument (`h5repack -f DATASET:UD=... in.h5 out.h5`).
"""
from __future__ import annotations

import os
import sys
from typing import Dict, Optional, Tuple, Union

from . import _ghz
from ._api import _Params
from ._h5hook import PLUGIN_DIR as _PLUGIN_DIR
from ._h5hook import PLUGIN_FILE as _PLUGIN_FILE
from ._h5hook import add_plugin_dir as _add_plugin_dir

#: The filter's id (HDF5's testing range 256-511; see the module's docstring).
FILTER_ID: int = _ghz.H5Z_FILTER_ID

#: Where the package keeps libH5Z_ghz.so (an installed wheel, and a build tree's
#: package).
PLUGIN_DIR: str = _PLUGIN_DIR

_DTYPE_CODES = {None: 0, "float32": _ghz.F32, "float64": _ghz.F64, "f4": _ghz.F32, "f8": _ghz.F64}


def cd_values(
    mode: str = "rel",
    bound: float = 1e-4,
    fill: Optional[float] = None,
    *,
    dtype: Optional[str] = None,
    checksum: bool = False,
    value_range: Optional[Tuple[float, float]] = None,
    prefer: str = "speed",
) -> Tuple[int, ...]:
    """The filter's parameters (unsigned ints, layout in ghz/h5z/h5z_ghz.h), checked
    as ghz.compress checks them (GhzError, TypeError or ValueError saying what to pass):
    12 values (layout 1) for prefer="speed", 15 (layout 2) for prefer="ratio", whose
    last three, the chunk's shape, the filter fills in from the dataset.

    dtype None leaves the element type to the filter, which reads it from the dataset.
    """
    key = None if dtype is None else str(getattr(dtype, "name", dtype))
    if key not in _DTYPE_CODES:
        raise TypeError(f"ghz.h5: dtype must be float32 or float64, got {dtype!r}")
    p = _Params(mode=mode, bound=bound, fill=fill, checksum=checksum, value_range=value_range,
                prefer=prefer)
    return _ghz.h5z_cd_values(
        _DTYPE_CODES[key], _ghz.ABS if p.mode == "abs" else _ghz.REL, p.bound, p.fill,
        p.checksum, p.value_range, p.prefer == "ratio"
    )


def filter(  # noqa: A001 - the name hdf5plugin's filters use too
    mode: str = "rel",
    bound: float = 1e-4,
    fill: Optional[float] = None,
    *,
    checksum: bool = False,
    value_range: Optional[Tuple[float, float]] = None,
    prefer: str = "speed",
) -> Dict[str, Union[int, Tuple[int, ...]]]:
    """Keyword arguments for h5py's create_dataset: compression and compression_opts.

    prefer: "speed" (default: the block frames) or "ratio" (each chunk predicted along
    its own dimensions and entropy coded; see the module's docstring).

    The parameters are checked here (a bad bound or range never reaches a file: h5py
    marks its filters optional, so a chunk the filter refuses would be stored raw).
    When h5py is imported and cannot load the plugin, raises RuntimeError saying where
    the plugin was looked for and how to make it available."""
    cd = cd_values(mode, bound, fill, checksum=checksum, value_range=value_range,
                   prefer=prefer)
    h5py = sys.modules.get("h5py")
    if h5py is not None and hasattr(h5py, "h5z") and not register():
        raise RuntimeError(missing_plugin_hint())
    return {"compression": FILTER_ID, "compression_opts": cd}


def plugin_dir() -> Optional[str]:
    """The directory that holds libH5Z_ghz.so: the package's, else the first of
    HDF5_PLUGIN_PATH that has it, else None. Put it in HDF5_PLUGIN_PATH for HDF5's tools
    (h5dump, h5repack), which do not know the package's directory."""
    dirs = [PLUGIN_DIR] + os.environ.get("HDF5_PLUGIN_PATH", "").split(os.pathsep)
    for d in dirs:
        if d and os.path.exists(os.path.join(d, _PLUGIN_FILE)):
            return d
    return None


def register() -> bool:
    """Makes sure h5py can load the filter (import ghz already added the package's
    plugin directory to h5py's plugin path); True when HDF5 then has filter FILTER_ID.
    False: see missing_plugin_hint()."""
    import h5py

    if not h5py.h5z.filter_avail(FILTER_ID):
        _add_plugin_dir(h5py)
    return bool(h5py.h5z.filter_avail(FILTER_ID))


def missing_plugin_hint() -> str:
    """What to do when h5py cannot load ghz's filter (reading a ghz dataset then fails
    with h5py's "can't find plugin" / "required filter ... is not registered")."""
    where = plugin_dir()
    if where is None:
        return (f"ghz.h5: HDF5 filter {FILTER_ID} (ghz) is not available: this ghz package "
                f"has no {_PLUGIN_FILE} in {PLUGIN_DIR} and HDF5_PLUGIN_PATH names no "
                "directory with it. Reinstall ghz with `pip install .` (it builds the plugin "
                "on Linux without HDF5's development files), or build the CMake target "
                "ghz_h5z and put its directory in HDF5_PLUGIN_PATH.")
    return (f"ghz.h5: HDF5 filter {FILTER_ID} (ghz) is not available although {where} has "
            f"{_PLUGIN_FILE}: HDF5 could not load it (run `python -c \"import ctypes; "
            f"ctypes.CDLL('{os.path.join(where, _PLUGIN_FILE)}')\"` to see why), or this "
            "h5py's HDF5 is older than 1.10 (ghz's plugin needs 1.10 or newer).")


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
    ap.add_argument("--prefer", default="speed", choices=["speed", "ratio"])
    args = ap.parse_args()
    print(ud_argument(cd_values(args.mode, args.bound, args.fill, checksum=args.checksum,
                                prefer=args.prefer)))


if __name__ == "__main__":
    _main()
