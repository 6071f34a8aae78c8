#!/usr/bin/env bash
# scripts/gpu_python.sh: the Python package on a GPU machine: the CUDA and DLPack tests
# (test/python/test_cuda.py, test_dlpack.py: CuPy and PyTorch where installed, skipped
# cleanly where not; pytest where installed, else each file runs alone), then the
# benchmark's GPU part (Python against the same C calls on 64 MiB device arrays, target
# Python >= 90 % of C). No network and no pip: the extension is either carried prebuilt
# or built here with the project's CMake into build-gpu-py. Exits non-zero when a build,
# a test or the benchmark fails (a GPU that ghz cannot use is a failure here too).
#
#   bash scripts/gpu_python.sh prebuild      # on the CPU machine (nvcc, no GPU needed)
#   bash scripts/gpu_python.sh [test] [bench]   # on the GPU machine; both by default
#
# prebuild writes .device-carry/python/ (ignored by git): the extension module and a
# shared libghz with the CUDA codec (sm_90) for this machine's python3, and a stamp of
# the C/CUDA sources and the Python version they were built from. On the GPU machine
# the carried build is used when its stamp matches the checkout and that machine's
# python3 (same version and ABI tag); otherwise the script builds there (cmake, nvcc,
# Python's headers; minutes). With the device tool:
#   run(command="bash scripts/gpu_python.sh", carry=[".device-carry", "datasets/out/real"])
# datasets/out/real (datasets/real/extract.sh), or the folder GHZ_REAL_DIR names, gives
# the tests and the benchmark the real fields; without it they use made fields. Logs go to $OUT (the device tool's output
# folder) or ./gpu-out.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-out}
mkdir -p "$OUT"
steps=${*:-test bench}
py=${PYTHON:-$(command -v python3)} # PYTHON=python3.12: another interpreter
carry=$ROOT/.device-carry/python
b=${GHZ_PY_BUILD:-$ROOT/build-gpu-py} # the build folder (GHZ_PY_BUILD: another)
t0=$SECONDS

# The stamp: every input of the compiled parts (not the package's .py files, which are
# copied from the checkout each run), and the interpreter's version and ABI tag; in C
# collation order, which does not depend on the machine's locale.
stamp() {
    {
        find ghz cmake -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \
            -o -name '*.in' -o -name 'CMakeLists.txt' -o -name '*.cmake' \) -print0 |
            LC_ALL=C sort -z | xargs -0 sha256sum
        sha256sum CMakeLists.txt
        "$py" -c 'import sys, sysconfig; print(sys.version_info[:2], sysconfig.get_config_var("EXT_SUFFIX"))'
    } | sha256sum | cut -d' ' -f1
}

build() { # build -jN: libghz (shared, CUDA) and the module into $b (FindPython's cache
    # is dropped, so that a folder configured for another python3 follows $py)
    cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_SHARED_LIBS=ON -DGHZ_BUILD_PYTHON=ON \
        -DGHZ_BUILD_HDF5_FILTER=OFF -DGHZ_BUILD_TESTS=OFF -DGHZ_BUILD_TOOLS=OFF \
        -DGHZ_BUILD_DATASETS=OFF -DGHZ_BUILD_EXAMPLES=OFF -DGHZ_BUILD_BENCH=OFF \
        -DGHZ_BUILD_COLL=OFF -DPython3_EXECUTABLE="$py" -U '_Python3_*' \
        >"$OUT/python-cmake.log" 2>&1 &&
        cmake --build "$b" "$1" --target ghz_python >"$OUT/python-build.log" 2>&1 || {
        tail -n 30 "$OUT/python-cmake.log" "$OUT/python-build.log"
        echo "gpu_python: the build failed (logs in $OUT)"
        exit 1
    }
}

if [[ " $steps " == *" prebuild "* ]]; then
    # -j2: the CPU machine is shared.
    echo "=== prebuild: libghz (CUDA, sm_90) and ghz._ghz for $("$py" -V) into $carry ==="
    build -j2
    rm -rf "$carry" && mkdir -p "$carry/lib" "$carry/pkg" &&
        cp -a "$b"/ghz/libghz.so* "$carry/lib/" &&
        cp -a "$b/ghz/python/pkg/ghz" "$carry/pkg/" &&
        stamp >"$carry/stamp" || exit 1
    du -sh "$carry"
    echo "prebuilt: carry .device-carry (and datasets/out/real) to the GPU machine"
    exit 0
fi

echo "=== $("$py" -V) ($py), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1) ==="
pkg=$b/pkg
# The CUDA runtime of the toolkit (a carried libghz has no run path to it).
cudalib=
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib; do
    [ -e "$d/libcudart.so.13" ] && cudalib=$cudalib:$d
done
use() { # use PKG_DIR LIB_DIR: the package (with the checkout's .py files) and its libghz
    rm -rf "$pkg" && mkdir -p "$pkg" && cp -a "$1/ghz" "$pkg/" &&
        cp ghz/python/ghz/*.py ghz/python/ghz/*.pyi ghz/python/ghz/py.typed "$pkg/ghz/" || exit 1
    export LD_LIBRARY_PATH=$2$cudalib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    lib=$2
}
export PYTHONPATH=$pkg PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
# GHZ_REAL_DIR: another folder of real fields (e.g. one carried under .device-carry).
export GHZ_REAL_DIR=${GHZ_REAL_DIR:-$ROOT/datasets/out/real}
base_ld=${LD_LIBRARY_PATH:-}
built=0
if [ -f "$carry/stamp" ] && [ "$(cat "$carry/stamp")" = "$(stamp)" ]; then
    echo "=== the carried prebuilt extension (its stamp matches) ==="
    use "$carry/pkg" "$carry/lib"
    "$py" -c 'import ghz' || { echo "(the carried build does not load here: building)"; built=1; }
else
    [ -f "$carry/stamp" ] && echo "(the carried build is stale or for another Python: building here)"
    built=1
fi
if [ $built = 1 ]; then
    echo "=== build (cmake, -j$(nproc)) ==="
    build "-j$(nproc)"
    LD_LIBRARY_PATH=$base_ld
    use "$b/ghz/python/pkg" "$b/ghz"
fi
echo "(ready after $((SECONDS - t0)) s)"

# A GPU ghz cannot use fails here, rather than every GPU test skipping.
"$py" - <<'EOF' || exit 1
import numpy as np, ghz
assert ghz.WITH_CUDA, "ghz was built without the CUDA codec"
ghz.to_device(np.zeros(1, np.float32))
mods = []
for m in ("torch", "cupy", "pytest"):
    try:
        mod = __import__(m)
        mods.append(f"{m} {mod.__version__}")
    except ImportError:
        mods.append(f"no {m}")
print("ghz", ghz.__version__, "with CUDA, GPU usable;", ", ".join(mods))
EOF

status=0
if [[ " $steps " == *" test "* ]]; then
    for f in test_dlpack test_cuda; do
        echo "=== test/python/$f.py ==="
        if "$py" -c 'import pytest' 2>/dev/null; then
            timeout 300 "$py" -m pytest -q -rs -p no:cacheprovider "test/python/$f.py" 2>&1 |
                tee "$OUT/python-$f.log"
        else
            timeout 300 "$py" "test/python/$f.py" 2>&1 | tee "$OUT/python-$f.log"
        fi
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    done
fi
if [[ " $steps " == *" bench "* ]]; then
    echo "=== scripts/bench_python.py --parts gpu ==="
    timeout 300 "$py" scripts/bench_python.py --parts gpu --pkg "$pkg" \
        --libghz "$lib/libghz.so" --real "$GHZ_REAL_DIR" 2>&1 | tee "$OUT/python-bench.log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
echo "=== gpu_python: $([ $status = 0 ] && echo ok || echo FAILED) after $((SECONDS - t0)) s ==="
exit $status
