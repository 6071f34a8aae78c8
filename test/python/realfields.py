"""The real fields of datasets/out/real (datasets/real/extract.sh), without pytest: the
fixtures of conftest.py and the GPU tests, which run alone on machines without pytest
(scripts/gpu_python.sh), read them here.

GHZ_REAL_DIR names the folder (CTest sets it); default datasets/out/real.
"""
import json
import os

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REAL_DIR = os.environ.get("GHZ_REAL_DIR", os.path.join(ROOT, "datasets", "out", "real"))
REAL_MAX_VALUES = 1 << 21  # a window of the larger real fields: the bound is per value


def real_fields(max_values=REAL_MAX_VALUES):
    """[(name, float32 array, fill or None)] of the real fields; [] when absent."""
    path = os.path.join(REAL_DIR, "manifest.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        m = json.load(f)
    out = []
    for fld in m["fields"] if isinstance(m, dict) else m:
        a = np.fromfile(os.path.join(REAL_DIR, fld["file"]), dtype="<f4")[:max_values]
        out.append(("real:" + fld["name"], a, fld.get("fill")))
    return out
