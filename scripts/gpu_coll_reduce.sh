#!/usr/bin/env bash
# scripts/gpu_coll_reduce.sh: ghz::coll's GPU reductions (ghz/coll/cuda/reduce_cuda.cu)
# in one device call: build test_cuda_coll_reduce and ghz-bench, run the test, run
# `ghz-bench reduce` (before the sanitizer, so that nothing else uses the GPU while it
# times), then the test again under compute-sanitizer memcheck with smaller counts.
#
#   bash scripts/gpu_coll_reduce.sh [test] [bench] [memcheck]   # default: all three
#
# Logs go to $OUT (the device tool's output folder) or ./gpu-out: coll-reduce-*.log,
# bench_reduce.txt and bench_reduce.json. Criterion travels in .device-carry/crit, as
# for scripts/gpu_check.sh: carry ".device-carry". ghz::coll needs MPI's headers on the
# machine (GHZ_BUILD_COLL=ON makes a missing MPI a configure error, not a silent skip).
# Extra CMake arguments: GHZ_CMAKE_ARGS. Exit status 0 when every step passed.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=" ${*:-test bench memcheck} "
C=$PWD/.device-carry/crit
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
status=0
t0=$(date +%s)
since() { echo "$(($(date +%s) - t0)) s"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/coll-reduce-gpu.txt"

# shellcheck disable=SC2086
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGHZ_BUILD_COLL=ON -DGHZ_BUILD_BENCH=ON -DPKG_CONFIG_EXECUTABLE=/nonexistent \
    -DGHZ_CRITERION_INCLUDE="$C/include" -DGHZ_CRITERION_LIBRARY="$C/lib/libcriterion.so" ${GHZ_CMAKE_ARGS:-} \
    >"$OUT/coll-reduce-configure.log" 2>&1 || { tail -30 "$OUT/coll-reduce-configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" --target test_cuda_coll_reduce ghz-bench >"$OUT/coll-reduce-build.log" 2>&1 ||
    { grep -E "error" "$OUT/coll-reduce-build.log" | head -30; exit 1; }
echo "built in $(since)"
T=build-gpu/test/gpu/test_cuda_coll_reduce

if [[ $steps == *" test "* ]]; then
    timeout 300 $T --jobs 1 --verbose >"$OUT/coll-reduce-test.log" 2>&1
    rc=$?
    echo "== test_cuda_coll_reduce: exit $rc; $(grep -E 'Synthesis' "$OUT/coll-reduce-test.log" | tail -1) ($(since))"
    grep -E "FAIL|Assert|crash|Timeout|signal|[a-z]+: .*element|outside the output" "$OUT/coll-reduce-test.log" | head -12
    [ $rc = 0 ] || status=1
fi

if [[ $steps == *" bench "* ]]; then
    echo "== ghz-bench reduce"
    timeout 300 build-gpu/ghz/tools/bench/ghz-bench reduce --json "$OUT/bench_reduce.json" 2>&1 |
        tee "$OUT/bench_reduce.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    echo "bench done ($(since))"
fi

if [[ $steps == *" memcheck "* ]]; then
    # counts that still make every path run, the large test's threads loop a few times
    GHZ_COLL_TEST_N=300007 GHZ_COLL_TEST_LARGE_N=9000003 timeout 420 \
        compute-sanitizer --tool memcheck --error-exitcode 9 $T --jobs 1 >"$OUT/coll-reduce-memcheck.log" 2>&1
    rc=$?
    echo "== memcheck: exit $rc; $(grep -E 'ERROR SUMMARY' "$OUT/coll-reduce-memcheck.log" | tail -1);" \
        "$(grep -E 'Synthesis' "$OUT/coll-reduce-memcheck.log" | tail -1) ($(since))"
    [ $rc = 0 ] || { status=1; grep -E "Invalid|ERROR|FAIL" "$OUT/coll-reduce-memcheck.log" | head -12; }
fi

echo "all done in $(since), status $status"
exit $status
