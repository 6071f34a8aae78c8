"""Runs a test file's test_* functions without pytest, for machines that lack it (the
GPU machine of scripts/gpu_python.sh): each test prints ok, skipped or FAILED, and the
exit status is 1 when any failed. Under pytest, skip() is pytest.skip.

    if __name__ == "__main__":
        standalone.main(globals())
"""
import sys
import traceback

try:
    import pytest
except ImportError:
    pytest = None

_ALONE = False


class Skipped(Exception):
    pass


def raises(exc, fn, match=None):
    """Calls fn, which must raise exc (with match in its message): the exception."""
    try:
        fn()
    except exc as e:
        assert match is None or match in str(e), str(e)
        return e
    raise AssertionError(f"{fn} did not raise {exc.__name__}")


def skip(why):
    """Skips the calling test (pytest's skip under pytest)."""
    if pytest is not None and not _ALONE:
        pytest.skip(why)
    raise Skipped(why)


def main(namespace):
    global _ALONE
    _ALONE = True
    failed = passed = skipped = 0
    for name, fn in sorted(namespace.items()):
        if not (name.startswith("test_") and callable(fn)):
            continue
        try:
            fn()
            passed += 1
            print(f"{name}: ok", flush=True)
        except Skipped as e:
            skipped += 1
            print(f"{name}: skipped: {e}", flush=True)
        except Exception as e:  # report every test, then the counts
            failed += 1
            print(f"{name}: FAILED: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc()
    print(f"{passed} passed, {skipped} skipped, {failed} failed", flush=True)
    sys.exit(1 if failed else 0)
