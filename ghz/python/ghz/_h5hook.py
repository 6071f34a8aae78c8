"""`import ghz` makes the package's HDF5 filter plugin available to h5py, as
hdf5plugin does on import, without importing h5py itself (no dependency, no import
cost): when h5py is already imported the plugin's directory is added to its plugin
path now; otherwise a finder on sys.meta_path does it right after h5py is imported.

Only the directory is added (h5py.h5pl.append, after the directories of
HDF5_PLUGIN_PATH, which win): HDF5 loads the plugin when a dataset first needs filter
FILTER_ID. A build tree's package carries the plugin there too (ghz/h5z's CMake). Any
failure here is silent: ghz.h5.register() and ghz.h5.filter() say what is wrong.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
from typing import Any, Optional, Sequence

PLUGIN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugin")
PLUGIN_FILE = "libH5Z_ghz.so"


def add_plugin_dir(h5py: Any) -> bool:
    """Appends PLUGIN_DIR to h5py's plugin search path once; True when it is there."""
    if not os.path.exists(os.path.join(PLUGIN_DIR, PLUGIN_FILE)):
        return False
    try:
        h5pl = h5py.h5pl
        want = PLUGIN_DIR.encode()
        if any(h5pl.get(i) == want for i in range(h5pl.size())):
            return True
        h5pl.append(want)
        return True
    except Exception:  # noqa: BLE001 - an h5py without h5pl (HDF5 < 1.10.1): no change
        return False


class _H5pyFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for h5py it asks the other finders, and wraps the loader's
    exec_module so that the plugin directory is added once h5py has loaded."""

    def find_spec(self, name: str, path: Optional[Sequence[str]], target: Any = None) -> Any:
        if name != "h5py":
            return None
        uninstall()
        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec

        def exec_module(module: Any) -> None:
            run(module)
            add_plugin_dir(module)

        loader.exec_module = exec_module  # this spec's loader instance only
        return spec


_finder = _H5pyFinder()


def uninstall() -> None:
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)


def install() -> None:
    """Adds the plugin directory to h5py now, or when h5py is imported."""
    h5py = sys.modules.get("h5py")
    if h5py is not None and hasattr(h5py, "h5pl"):
        add_plugin_dir(h5py)
    elif _finder not in sys.meta_path and os.path.exists(os.path.join(PLUGIN_DIR, PLUGIN_FILE)):
        sys.meta_path.insert(0, _finder)
