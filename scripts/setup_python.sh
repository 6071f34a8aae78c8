#!/usr/bin/env bash
# scripts/setup_python.sh: installs what the Python package's tests need, when missing:
# HDF5's headers and tools (libhdf5-dev, hdf5-tools: the filter plugin and h5dump /
# h5repack) with apt-get, and numpy, pytest, numcodecs, zarr, h5py and scikit-build-core
# with pip for the python3 on PATH. Idempotent; prints one summary line (the installers'
# output goes to a log, shown only on failure). scripts/test.sh runs it.
#   PYTHON=python3.12 bash scripts/setup_python.sh    # another interpreter
set -euo pipefail

py=${PYTHON:-python3}
log=$(mktemp "${TMPDIR:-/tmp}/ghz-setup-python.XXXXXX")
trap 'rm -f "$log"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }
fail() {
    echo "setup_python: $1 failed; its output:" >&2
    tail -n 40 "$log" >&2
    exit 1
}
installed=()

apt_missing=()
have h5dump && have h5repack || apt_missing+=(hdf5-tools)
[ -e /usr/include/hdf5/serial/H5PLextern.h ] || [ -e /usr/include/H5PLextern.h ] ||
    apt_missing+=(libhdf5-dev)
"$py" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
    apt_missing+=(python3-dev)
if [ ${#apt_missing[@]} -gt 0 ]; then
    if have apt-get; then
        sudo=()
        [ "$(id -u)" -eq 0 ] || sudo=(sudo)
        { "${sudo[@]}" apt-get update -q &&
            DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q \
                --no-install-recommends "${apt_missing[@]}"; } >>"$log" 2>&1 ||
            fail "apt-get install ${apt_missing[*]}"
        installed+=("${apt_missing[@]}")
    else
        echo "setup_python: no apt-get; the HDF5 tests will skip (missing ${apt_missing[*]})"
    fi
fi

# Module name -> pip requirement.
declare -A pip_names=([numpy]=numpy [pytest]=pytest [numcodecs]=numcodecs [zarr]=zarr
    [h5py]=h5py [scikit_build_core]=scikit-build-core)
pip_missing=()
for m in numpy pytest numcodecs zarr h5py scikit_build_core; do
    "$py" -c "import $m" >/dev/null 2>&1 || pip_missing+=("${pip_names[$m]}")
done
if [ ${#pip_missing[@]} -gt 0 ]; then
    "$py" -m pip install -q --disable-pip-version-check --root-user-action=ignore \
        "${pip_missing[@]}" >>"$log" 2>&1 || fail "pip install ${pip_missing[*]}"
    installed+=("${pip_missing[@]}")
fi

versions=$("$py" - <<'EOF'
from importlib.metadata import version
print(", ".join(f"{m} {version(m)}" for m in ("numpy", "pytest", "numcodecs", "zarr", "h5py")))
EOF
)
echo "setup_python: $("$py" -c 'import platform; print("Python", platform.python_version())'), $versions, h5dump $(h5dump --version 2>/dev/null | awk '{print $NF}')${installed:+ (installed now: ${installed[*]})}"
