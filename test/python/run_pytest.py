"""Runs one file of test/python under pytest for CTest; exits 77 (CTest's skip code,
SKIP_RETURN_CODE) when pytest or numpy is missing, so that a machine without them
skips the Python tests instead of failing them.

    python3 run_pytest.py TEST_FILE [pytest arguments...]
"""
import importlib.util
import sys

SKIP = 77

missing = [m for m in ("pytest", "numpy") if importlib.util.find_spec(m) is None]
if missing:
    print(f"skipped: {', '.join(missing)} not installed (scripts/setup_python.sh)")
    sys.exit(SKIP)

import pytest  # noqa: E402

rc = pytest.main(["-q", "-p", "no:cacheprovider", "-rs", *sys.argv[1:]])
# Every test skipped (h5py or zarr missing): a skip for CTest too.
sys.exit(SKIP if rc == pytest.ExitCode.NO_TESTS_COLLECTED else int(rc))
