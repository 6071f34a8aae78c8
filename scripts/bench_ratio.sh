#!/usr/bin/env bash
# scripts/bench_ratio.sh: ghz against SZ3 and zfp on every real field, same absolute
# bound, one CPU core (scripts/bench_ratio.py says what is measured and how).
#
#   bash scripts/bench_ratio.sh [bench_ratio.py options, e.g. --fields navy_uwnd]
#
# Installs what is missing and prepares everything, one line each (the logs are shown
# only when a step fails):
#   - ghz-cli: built CPU-only in build-cpu/ (configured with CUDA and the tests off
#     where build-cpu/ does not exist yet; rebuilt incrementally every run, so a
#     changed ghz-cli is measured); GHZ_CLI=PATH uses another one instead;
#   - ghz's Python package and HDF5 filter, built in the same tree where CMake found
#     Python's headers (for the rat-h5 column: ghz's ratio mode through h5py, timed as
#     SZ3 and zfp are); without them, or with GHZ_CLI, that column is "-";
#   - Python: a virtual environment build-bench/venv (python3 -m venv; no system
#     packages touched, so PEP 668 does not apply) with numpy, scipy, pillow, h5py and
#     hdf5plugin (SZ3 and zfp as HDF5 filters) from pip;
#   - the fields: datasets/real/extract.sh datasets/out/real_bench --extra (the six
#     fields of datasets/out/real and seven more; Debian's ferret-datasets) and
#     datasets/real_frames/extract.sh (the two scenes, no frames; Debian's
#     python3-skimage); both idempotent.
# Then runs scripts/bench_ratio.py, which prints the table and writes
# build-bench/bench_ratio.json (JSON lines) and build-bench/bench_ratio.md.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bb=build-bench
mkdir -p "$bb"
log=$(mktemp "${TMPDIR:-/tmp}/ghz-bench-ratio.XXXXXX")
trap 'rm -f "$log"' EXIT
step() {  # step "what" command...: runs it with its output in the log
    local what=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "bench_ratio: $what failed; its output:" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
}

# ghz-cli
if [ -n "${GHZ_CLI:-}" ]; then
    cli=$GHZ_CLI
else
    if [ ! -f build-cpu/CMakeCache.txt ]; then
        step "configuring build-cpu" cmake -S . -B build-cpu -DCMAKE_BUILD_TYPE=Release \
            -DGHZ_ENABLE_CUDA=OFF -DGHZ_BUILD_TESTS=OFF
    fi
    step "building ghz-cli" cmake --build build-cpu -j2 --target ghz-cli
    cli=$root/build-cpu/ghz/tools/ghz-cli
fi
echo "bench_ratio: ghz-cli $cli"
ghz_py=()
if [ -z "${GHZ_CLI:-}" ] && cmake --build build-cpu -j2 --target ghz_python ghz_h5z >"$log" 2>&1; then
    ghz_py=(--ghz-py "$root/build-cpu/ghz/python/pkg")
    echo "bench_ratio: ghz Python package and HDF5 filter in build-cpu/ghz/python/pkg"
else
    echo "bench_ratio: no ghz Python package in build-cpu (no Python headers found, or GHZ_CLI set): rat-h5 is -"
fi

# Python
py=$bb/venv/bin/python
if [ ! -x "$py" ]; then
    if ! python3 -m venv "$bb/venv" >"$log" 2>&1; then
        # Debian's python3 needs python3-venv for ensurepip
        rm -rf "$bb/venv"
        sudo=()
        [ "$(id -u)" -eq 0 ] || sudo=(sudo)
        step "apt-get install python3-venv" env DEBIAN_FRONTEND=noninteractive \
            "${sudo[@]}" apt-get install -y -q --no-install-recommends python3-venv
        step "python3 -m venv $bb/venv" python3 -m venv "$bb/venv"
    fi
fi
if ! "$py" -c 'import numpy, scipy.io, PIL.Image, h5py, hdf5plugin' >/dev/null 2>&1; then
    step "pip install numpy scipy pillow h5py hdf5plugin" "$py" -m pip install -q \
        --disable-pip-version-check numpy scipy pillow h5py hdf5plugin
    echo "bench_ratio: installed numpy scipy pillow h5py hdf5plugin into $bb/venv"
fi
echo "bench_ratio: $("$py" -c 'import sys, numpy, h5py, hdf5plugin; print("Python", sys.version.split()[0], "numpy", numpy.__version__, "h5py", h5py.__version__, "hdf5plugin", hdf5plugin.version)')"

# the fields
PYTHON=$root/$py step "datasets/real/extract.sh --extra" \
    datasets/real/extract.sh "$root/datasets/out/real_bench" --extra
echo "bench_ratio: $(tail -n 1 "$log")"
PYTHON=$root/$py step "datasets/real_frames/extract.sh" \
    datasets/real_frames/extract.sh "$root/datasets/out/real_frames" 0
echo "bench_ratio: real_frames scenes in datasets/out/real_frames"

exec "$py" scripts/bench_ratio.py --cli "$cli" "${ghz_py[@]}" \
    --dirs datasets/out/real_bench datasets/out/real_frames \
    --json "$bb/bench_ratio.json" --markdown "$bb/bench_ratio.md" "$@"
