#!/usr/bin/env bash
# scripts/setup_python.sh: makes the virtual environment that the Python package's tests
# and scripts use, build/venv/ (GHZ_VENV moves it), and installs what they need into it:
# numpy, pytest, numcodecs, zarr, h5py and scikit-build-core with the venv's pip. With
# apt-get it installs what no venv can hold when missing: HDF5's headers and tools
# (libhdf5-dev, hdf5-tools: the filter plugin and h5dump / h5repack), Python's headers
# (python3-dev) and the venv module (python3-venv). Nothing is installed into the
# interpreter itself, so any python3 works, Debian's "externally managed" one (PEP 668)
# included. Idempotent; prints one summary line (the installers' output goes to a log,
# shown only on failure). scripts/test.sh runs it; then, for example:
#
#   build/venv/bin/python -c 'import ghz'                # after pip install . there
#   PYTHON=/usr/bin/python3 bash scripts/setup_python.sh  # the venv from another python3
#
# A venv made from another interpreter than PYTHON (default: python3 on PATH) is made
# again. Remove build/venv/ to start afresh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

py=${PYTHON:-python3}
venv=${GHZ_VENV:-build/venv}
log=$(mktemp "${TMPDIR:-/tmp}/ghz-setup-python.XXXXXX")
trap 'rm -f "$log"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }
fail() {
    echo "setup_python: $1 failed; its output:" >&2
    tail -n 40 "$log" >&2
    exit 1
}
installed=()

have "$py" || { echo "setup_python: no $py (install python3, or set PYTHON)" >&2; exit 1; }
base=$("$py" -c 'import sys; print(sys.executable)')
pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

apt_missing=()
have h5dump && have h5repack || apt_missing+=(hdf5-tools)
[ -e /usr/include/hdf5/serial/H5PLextern.h ] || [ -e /usr/include/H5PLextern.h ] ||
    apt_missing+=(libhdf5-dev)
"$py" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
    apt_missing+=(python3-dev)
# Debian's python3 makes venvs only with python3-venv (ensurepip); an interpreter of its
# own build (pyenv, conda) has ensurepip already.
if ! "$py" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    if have apt-cache && apt-cache show "python$pyver-venv" >/dev/null 2>&1; then
        apt_missing+=("python$pyver-venv")
    else
        apt_missing+=(python3-venv)
    fi
fi
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
        echo "setup_python: no apt-get; missing ${apt_missing[*]} (the HDF5 tests will skip; a venv needs ensurepip)"
    fi
fi

# The venv: made again when it was made from another interpreter or is broken.
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.ghz-base-python" 2>/dev/null)" = "$base" ] &&
    "$venv/bin/python" -c 'import pip' >/dev/null 2>&1; then
    :
else
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "$py" -m venv "$venv" >>"$log" 2>&1 || fail "$py -m venv $venv"
    echo "$base" >"$venv/.ghz-base-python"
    installed+=("venv $venv")
fi
vpy=$venv/bin/python

# Module name -> pip requirement.
declare -A pip_names=([numpy]=numpy [pytest]=pytest [numcodecs]=numcodecs [zarr]=zarr
    [h5py]=h5py [scikit_build_core]=scikit-build-core)
pip_missing=()
for m in numpy pytest numcodecs zarr h5py scikit_build_core; do
    "$vpy" -c "import $m" >/dev/null 2>&1 || pip_missing+=("${pip_names[$m]}")
done
if [ ${#pip_missing[@]} -gt 0 ]; then
    "$vpy" -m pip install -q --disable-pip-version-check "${pip_missing[@]}" >>"$log" 2>&1 ||
        fail "pip install ${pip_missing[*]} (into $venv)"
    installed+=("${pip_missing[@]}")
fi

versions=$("$vpy" - <<'EOF'
from importlib.metadata import version
print(", ".join(f"{m} {version(m)}" for m in ("numpy", "pytest", "numcodecs", "zarr", "h5py")))
EOF
)
echo "setup_python: $venv (Python $("$vpy" -c 'import platform; print(platform.python_version())') from $base), $versions, h5dump $(h5dump --version 2>/dev/null | awk '{print $NF}')${installed:+ (installed now: ${installed[*]})}"
