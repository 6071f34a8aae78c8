#!/usr/bin/env bash
# scripts/gpu_check.sh: one device call that builds the GPU tests, runs them in
# parallel, then runs compute-sanitizer memcheck on each (whole binaries, or the filter
# given in GHZ_MEMCHECK_<name>), and leaves one tarball of every log in $OUT.
#
#   bash scripts/gpu_check.sh [TEST...]   # names of test/gpu/test_cuda_<TEST>; default:
#                                         # codec homo fixed checksum badinput
#
# Criterion travels in .device-carry/crit (include/ and lib/ with its shared-library
# dependencies, copied from a Debian 12 machine); carry ".device-carry". Extra CMake
# arguments: GHZ_CMAKE_ARGS. Extra targets to build: GHZ_EXTRA_TARGETS.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
logs=$(mktemp -d /tmp/gpu-check.XXXXXX)
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(codec homo fixed checksum badinput)
C=$PWD/.device-carry/crit
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"
t0=$(date +%s)
targets=()
for t in "${tests[@]}"; do targets+=("test_cuda_$t"); done
# shellcheck disable=SC2086
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPKG_CONFIG_EXECUTABLE=/nonexistent -DGHZ_CRITERION_INCLUDE="$C/include" \
    -DGHZ_CRITERION_LIBRARY="$C/lib/libcriterion.so" ${GHZ_CMAKE_ARGS:-} >"$logs/configure.log" 2>&1 ||
    { tail -30 "$logs/configure.log"; tar czf "$OUT/gpu-check.tgz" -C "$logs" .; exit 1; }
# shellcheck disable=SC2086
cmake --build build-gpu -j"$(nproc)" --target "${targets[@]}" ${GHZ_EXTRA_TARGETS:-} >"$logs/build.log" 2>&1 ||
    { grep -E "error" "$logs/build.log" | head -30; tar czf "$OUT/gpu-check.tgz" -C "$logs" .; exit 1; }
echo "built in $(($(date +%s) - t0)) s"
B=build-gpu/test/gpu
status=0
for t in "${tests[@]}"; do
    timeout 300 $B/test_cuda_$t --jobs 1 --verbose >"$logs/test-$t.log" 2>&1 &
done
wait
for t in "${tests[@]}"; do
    echo "== test_cuda_$t: $(grep -E 'Synthesis' "$logs/test-$t.log" | tail -1)"
    grep -E "FAIL|Assert|crash|Timeout|signal" "$logs/test-$t.log" | head -8
    grep -q 'Failing: 0 | Crashing: 0' "$logs/test-$t.log" || status=1
done
echo "tests done at $(($(date +%s) - t0)) s"
for t in "${tests[@]}"; do
    var=GHZ_MEMCHECK_$t
    filter=${!var:-'*'}
    (timeout 400 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_cuda_$t --jobs 1 \
        --filter "$filter" >"$logs/memcheck-$t.log" 2>&1; echo $? >"$logs/memcheck-$t.rc") &
done
wait
for t in "${tests[@]}"; do
    rc=$(cat "$logs/memcheck-$t.rc")
    echo "== memcheck $t: exit $rc; $(grep -E 'ERROR SUMMARY' "$logs/memcheck-$t.log" | tail -1)"
    [ "$rc" = 0 ] || status=1
done
echo "all done at $(($(date +%s) - t0)) s, status $status"
tar czf "$OUT/gpu-check.tgz" -C "$logs" .
exit $status
