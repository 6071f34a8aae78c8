#!/usr/bin/env bash
# scripts/gpu_run.sh: everything the GPU machine does in one call (device time is
# scarce): build for sm_90, run the GPU tests, run them again under compute-sanitizer
# (memcheck and racecheck, on a reduced set), then the benchmark. Logs and JSON go to
# $OUT (the device tool's output folder) or ./gpu-out.
#
#   bash scripts/gpu_run.sh [all|test|sanitize|cpu|bench|homo|fixed|gmres|sanitize-all|profile|profile-nary|sass]...
#
# sanitize-all (never part of `all`: it takes long) runs every GPU test binary, whole,
# under memcheck, racecheck and synccheck (scripts/gpu_sanitize.sh). profile (not in
# `all` either) runs Nsight Compute on the codec's kernels.
#
# Criterion and pkg-config are not on the GPU machine: the session carries their
# Debian packages in .device-carry/debs (see scripts/fetch_device_debs.sh) and this
# script unpacks them into /tmp/ghz-deps.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${*:-all}
has() { [[ " $steps " == *" all "* || " $steps " == *" $1 "* ]]; }
status=0
note() { printf '\n=== %s ===\n' "$*"; }
# Every step runs under a time limit (seconds): a hung kernel costs one step, not the
# whole device call.
T=${GHZ_STEP_TIMEOUT:-240}

# sanitize TOOL TEST FILTER LOG: the GPU test binary build-gpu/test/gpu/TEST, only the
# tests FILTER matches, under compute-sanitizer TOOL; the log in $OUT/LOG, its tail here.
sanitize() {
    timeout $T compute-sanitizer --tool "$1" --error-exitcode 9 "build-gpu/test/gpu/$2" --jobs 1 \
        --filter "$3" >"$OUT/$4" 2>&1
    local rc=$?
    tail -4 "$OUT/$4"
    [ $rc = 0 ] || { status=1; echo "$1 ($2): exit $rc"; }
}

deps=/tmp/ghz-deps
if [ -d .device-carry/debs ] && ! pkg-config --exists criterion 2>/dev/null; then
    mkdir -p $deps
    for f in .device-carry/debs/*.deb; do dpkg -x "$f" $deps; done
    lib=$deps/usr/lib/x86_64-linux-gnu
    for pc in $lib/pkgconfig/*.pc; do sed -i "s|^prefix=.*|prefix=$deps/usr|" "$pc"; done
    export PATH=$deps/usr/bin:$PATH
    export PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PKG_CONFIG=$deps/usr/bin/pkgconf
    export CMAKE_PREFIX_PATH=$deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
fi

nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"

note build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 ${PKG_CONFIG:+-DPKG_CONFIG_EXECUTABLE=$PKG_CONFIG} ${GHZ_CMAKE_ARGS:-} >"$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
echo "built"

if has test; then
    note "GPU tests"
    # the test binary directly, verbose: the log names the test that was running
    timeout $T build-gpu/test/gpu/test_cuda_codec --jobs 1 --verbose 2>&1 | tee "$OUT/ctest-gpu.log" | tail -25
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    for t in checksum badinput; do
        timeout $T build-gpu/test/gpu/test_cuda_$t --jobs 1 --verbose 2>&1 | tee "$OUT/ctest-gpu-$t.log" | tail -6
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    done
    note "CPU tests on this machine too"
    ctest --test-dir build-gpu -L cpu -j8 --timeout $T 2>&1 | tail -4
fi

if has sanitize; then
    for tool in memcheck racecheck synccheck; do
        note "compute-sanitizer $tool"
        sanitize $tool test_cuda_codec \
            'cuda_codec/@(identity_tiny_sizes|batch_equals_single|corrupt_streams_reported|graph_capture)' \
            "sanitize-$tool.log"
        # the checksum verifier and the bad-input statuses (small frames only)
        timeout $T compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/test/gpu/test_cuda_checksum \
            --jobs 1 --filter 'cuda_checksum/@(changed_byte_refused_before_decoding|batch_refuses_only_the_damaged_frame)' \
            >"$OUT/sanitize-$tool-checksum.log" 2>&1 &&
            timeout $T compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/test/gpu/test_cuda_badinput \
                --jobs 1 >>"$OUT/sanitize-$tool-checksum.log" 2>&1
        rc=$?
        tail -2 "$OUT/sanitize-$tool-checksum.log"
        [ $rc = 0 ] || { status=1; echo "$tool (checksum, badinput): exit $rc"; }
    done
fi

if has cpu; then
    # One-core CPU reference numbers on this (quiet, 16-core) machine: the demo runs
    # the generated fields at REL 1e-2, 1e-3 and 1e-4 on one thread.
    note "CPU reference, one core (ghz-demo)"
    lscpu | grep -m1 "Model name" | tee "$OUT/cpu.txt"
    OMP_NUM_THREADS=1 timeout $T build-gpu/examples/ghz-demo --reps 5 2>&1 | tee "$OUT/demo_cpu.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi

if [[ " $steps " == *" sanitize-all "* ]]; then
    note "compute-sanitizer memcheck, racecheck, synccheck: every GPU test"
    GHZ_SAN_TIMEOUT=${GHZ_SAN_TIMEOUT:-$T} bash scripts/gpu_sanitize.sh build-gpu "$OUT" || status=1
fi

if [[ " $steps " == *" profile "* ]]; then
    # Nsight Compute on the codec's kernels (one launch each, smooth2d tiled to 0.25 GiB,
    # REL 1e-4): throughput, occupancy, warp stall reasons. Never part of `all`.
    note "ncu: compress_kernel, decompress_kernel, homo_binary_kernel"
    for k in compress_kernel decompress_kernel; do
        # plus each stall reason in warp cycles per issued instruction (what the
        # WarpStateStats section shows only as a chart)
        timeout $((2 * T)) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats \
            --section LaunchStats --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
            -k regex:"^$k" -c 1 \
            build-gpu/ghz/tools/bench/ghz-bench codec --gen smooth2d --rel 1e-4 --reps 1 --gib 0.25 \
            --json /dev/null >>"$OUT/ncu.txt" 2>&1 || status=1
    done
    # ghz/homo's fused kernel, the same way (its SASS is 358-380 KB per instantiation:
    # look at "no_instruction" first)
    timeout $((2 * T)) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats \
        --section LaunchStats --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
        -k regex:"homo_binary_kernel" -c 1 \
        build-gpu/ghz/tools/bench/ghz-bench homo --gen smooth2d --rel 1e-4 --reps 1 --gib 0.25 \
        --json /dev/null >>"$OUT/ncu.txt" 2>&1 || status=1
    grep -E "_kernel|Throughput|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Issued Warp|stalled_" \
        "$OUT/ncu.txt" | head -140
fi

if [[ " $steps " == *" profile-nary "* ]]; then
    # Nsight Compute on ghz/homo's n-ary sum of 4 inputs next to the decompressor of the
    # same frames (ghz-bench homo's sum4 and dec4, navy_uwnd tiled to 0.25 GiB, REL 1e-4):
    # every kernel of one sum_n call (init, offsets, the combining kernel) and one
    # decompression. Not part of `all`.
    note "ncu: n-ary sum4 against decompress (navy_uwnd)"
    timeout $((2 * T)) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats \
        --section LaunchStats --section MemoryWorkloadAnalysis \
        --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
        -k regex:"homo_nary_kernel|nary_init|nary_offsets|decompress_kernel" -c 16 \
        build-gpu/ghz/tools/bench/ghz-bench homo --rel 1e-4 --reps 1 --gib 0.25 \
        --raw "navy_uwnd:datasets/out/real/navy_uwnd_144x73x132.f32" --json /dev/null >"$OUT/ncu-nary.txt" 2>&1 || status=1
    grep -E "_kernel|Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Warp Cycles Per Issued|Issued Warp|stalled_.*[0-9]\.[0-9]" \
        "$OUT/ncu-nary.txt" | grep -vE " 0(\.0+)?$" | head -150
    # per SASS instruction of the combining kernel: executions and stall samples
    # (read offline: where the instructions and the waits go)
    timeout $((2 * T)) ncu --section SourceCounters --section InstructionStats -k regex:"homo_nary_kernel" -c 1 \
        -f -o "$OUT/src-nary" build-gpu/ghz/tools/bench/ghz-bench homo --rel 1e-4 --reps 1 --gib 0.25 \
        --raw "navy_uwnd:datasets/out/real/navy_uwnd_144x73x132.f32" --json /dev/null >"$OUT/src-nary.log" 2>&1 ||
        { status=1; tail -5 "$OUT/src-nary.log"; }
    ncu -i "$OUT/src-nary.ncu-rep" --page source --csv --print-source sass 2>&1 | gzip >"$OUT/src-nary.csv.gz"
    ncu -i "$OUT/src-nary.ncu-rep" --page details 2>&1 | grep -E "Executed Ipc|Issue Slots|Instructions|Warp Cycles|Duration" | head -12
    rm -f "$OUT/src-nary.ncu-rep"
fi

if [[ " $steps " == *" sass "* ]]; then
    # The kernels' SASS and, per SASS instruction, executed counts and warp-stall
    # samples (ncu SourceCounters), for reading where the instructions and the waits
    # go offline. Build with GHZ_CMAKE_ARGS=-DCMAKE_CUDA_FLAGS=-lineinfo for source lines.
    note "SASS and per-instruction counters"
    cuobjdump -sass build-gpu/ghz/tools/bench/ghz-bench | gzip >"$OUT/sass.txt.gz" || status=1
    for k in compress_kernel decompress_kernel homo_binary_kernel; do
        mode=codec
        [ $k = homo_binary_kernel ] && mode=homo
        timeout $((2 * T)) ncu --section SourceCounters --section InstructionStats --section WarpStateStats \
            -k regex:"^$k" -c 1 -f -o "$OUT/src-$k" \
            build-gpu/ghz/tools/bench/ghz-bench $mode --gen smooth2d --rel 1e-4 --reps 1 --gib 0.25 \
            --json /dev/null >"$OUT/src-$k.log" 2>&1 || { status=1; tail -5 "$OUT/src-$k.log"; }
        ncu -i "$OUT/src-$k.ncu-rep" --page source --csv --print-source sass 2>&1 | gzip >"$OUT/src-$k.csv.gz"
        ncu -i "$OUT/src-$k.ncu-rep" --page details 2>&1 | grep -E "Executed Ipc|Issue Slots|Instructions|Warp Cycles|Duration" | head -12
    done
fi

if has bench; then
    note "ghz-bench codec"
    mapfile -t raw < <(python3 scripts/real_raw_args.py)
    gen=()
    [ -d build-gpu/datasets ] && gen=(--gen wave3d --gen smooth2d --gen noisy2d --gen ocean2d)
    timeout $((2 * T)) build-gpu/ghz/tools/bench/ghz-bench codec --json "$OUT/bench_codec.json" ${GHZ_BENCH_ARGS:-} \
        "${gen[@]}" "${raw[@]}" 2>&1 | tee "$OUT/bench_codec.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if has homo; then
    note "GPU tests of ghz/homo (fused kernel == CPU reference)"
    timeout $T build-gpu/test/gpu/test_cuda_homo --jobs 1 --verbose 2>&1 | tee "$OUT/test-homo.log" | tail -15
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    for tool in memcheck racecheck; do
        note "compute-sanitizer $tool (ghz/homo)"
        sanitize $tool test_cuda_homo \
            'cuda_homo/@(empty_frame|mismatch_and_corruption_reported|few_tiles_pairs_of_classes|sealed_input_changed_byte_corrupt)' \
            "sanitize-homo-$tool.log"
        # in place (SUM through the k-input kernel, MIN and MAX through the fused one)
        sanitize $tool test_cuda_homo 'cuda_homo_nary/inplace_shrink_and_recompute' \
            "sanitize-homo-inplace-$tool.log"
        # the n-ary kernel (its shared staging and accumulators)
        sanitize $tool test_cuda_homo 'cuda_homo_nary/@(sum_n_classes_equal_cpu|sum_n_errors_as_cpu)' \
            "sanitize-homo-nary-$tool.log"
    done
    note "ghz-bench homo"
    timeout $((2 * T)) build-gpu/ghz/tools/bench/ghz-bench homo --json "$OUT/bench_homo.json" ${GHZ_BENCH_HOMO_ARGS:-} \
        2>&1 | tee "$OUT/bench_homo.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi

if has fixed; then
    note "fixed-rate GPU tests (FIXED.md)"
    timeout $T build-gpu/test/gpu/test_cuda_fixed --jobs 1 --verbose 2>&1 | tee "$OUT/test-fixed.log" | tail -12
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    # the decoder stages each warp's values in shared memory: racecheck and synccheck too
    for tool in memcheck racecheck synccheck; do
        note "compute-sanitizer $tool, fixed-rate"
        sanitize $tool test_cuda_fixed \
            'cuda_fixed/@(bad_frames_reported|bad_code_found_at_every_position|accessor_in_a_kernel_equals_cpu)' \
            "sanitize-fixed-$tool.log"
    done
    note "ghz-bench fixed"
    gen=()
    [ -d build-gpu/datasets ] && gen=(--gen wave3d --gen smooth2d --gen noisy2d --gen ocean2d)
    timeout $((2 * T)) build-gpu/ghz/tools/bench/ghz-bench fixed --json "$OUT/bench_fixed.json" ${GHZ_BENCH_FIXED_ARGS:-} \
        "${gen[@]}" 2>&1 | tee "$OUT/bench_fixed.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi

if has gmres; then
    note "CB-GMRES: Krylov basis in f64, f32, fixed l=32, fixed l=16 (examples/cb_gmres)"
    timeout $((2 * T)) build-gpu/examples/cb_gmres/ghz-cb-gmres --json "$OUT/cb_gmres.json" ${GHZ_GMRES_ARGS:-} 2>&1 |
        tee "$OUT/cb_gmres.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi

exit $status
