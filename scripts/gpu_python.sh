#!/usr/bin/env bash
# scripts/gpu_python.sh: the Python package on a GPU machine: builds libghz (shared, with
# the CUDA codec) and the extension module for the python3 there, runs
# test/python/test_cuda.py (CuPy and PyTorch where installed; no pytest needed), then the
# benchmark's GPU part (Python vs the C calls on 64 MiB). Logs go to $OUT (the device
# tool's output folder) or ./gpu-out.
#
#   bash scripts/gpu_python.sh [test] [bench]        # both by default
#
# The benchmark uses datasets/out/real when it is there (carry it), else a made field.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${*:-test bench}
py=$(command -v python3)
b=build-gpu-py
status=0

echo "=== build ($py, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)) ==="
cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DBUILD_SHARED_LIBS=ON -DGHZ_BUILD_PYTHON=ON -DGHZ_BUILD_HDF5_FILTER=OFF \
    -DGHZ_BUILD_TESTS=OFF -DGHZ_BUILD_TOOLS=OFF -DGHZ_BUILD_DATASETS=OFF \
    -DGHZ_BUILD_EXAMPLES=OFF -DGHZ_BUILD_BENCH=OFF -DGHZ_BUILD_COLL=OFF \
    -DPython3_EXECUTABLE="$py" >"$OUT/python-cmake.log" 2>&1 &&
    cmake --build $b -j "$(nproc)" --target ghz_python >"$OUT/python-build.log" 2>&1 || {
    tail -30 "$OUT/python-cmake.log" "$OUT/python-build.log"
    exit 1
}
export PYTHONPATH=$PWD/$b/ghz/python/pkg PYTHONUNBUFFERED=1

if [[ " $steps " == *" test "* ]]; then
    echo "=== test/python/test_cuda.py ==="
    timeout 600 "$py" test/python/test_cuda.py 2>&1 | tee "$OUT/python-test-cuda.log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [[ " $steps " == *" bench "* ]]; then
    echo "=== scripts/bench_python.py --parts gpu,python ==="
    timeout 600 "$py" scripts/bench_python.py --parts gpu,python --pkg "$PYTHONPATH" \
        --libghz "$b/ghz/libghz.so" 2>&1 | tee "$OUT/python-bench.log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
exit $status
