#!/usr/bin/env bash
# scripts/fuzz.sh: builds the libFuzzer targets of test/fuzz/ with clang, AddressSanitizer
# and UndefinedBehaviorSanitizer (build-fuzz/), generates the seed corpus (real streams
# made by make_seeds) and runs each target for a bounded time, keeping what it learns
# in fuzz-corpus/<target>/ (gitignored) for the next run.
#
#   bash scripts/fuzz.sh                 # every target, GHZ_FUZZ_SECONDS each (default 60)
#   GHZ_FUZZ_SECONDS=600 bash scripts/fuzz.sh decode
#
# A crash stops the script with a non-zero status; libFuzzer writes the input to
# fuzz-corpus/crash-<target>-*. Make it a regression test: copy it into
# test/fuzz/regress/<target>/ (ctest replays those, test/CMakeLists.txt), fix the bug.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

secs=${GHZ_FUZZ_SECONDS:-60}
cc=${GHZ_FUZZ_CC:-}
if [ -z "$cc" ]; then
    for c in clang-14 clang; do command -v "$c" >/dev/null 2>&1 && { cc=$c; break; }; done
fi
[ -n "$cc" ] || { echo "fuzz.sh: clang not found (set GHZ_FUZZ_CC)" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)

san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
echo "fuzz.sh: building build-fuzz/ with $cc"
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
    -DGHZ_ENABLE_CUDA=OFF -DGHZ_ENABLE_OPENMP=OFF -DGHZ_BUILD_TESTS=OFF -DGHZ_BUILD_TOOLS=OFF \
    -DGHZ_BUILD_DATASETS=OFF -DGHZ_BUILD_EXAMPLES=OFF -DGHZ_BUILD_BENCH=OFF -DGHZ_BUILD_FUZZ=ON \
    -DCMAKE_C_FLAGS="$san" >build-fuzz.log 2>&1 || { tail -30 build-fuzz.log; exit 1; }
cmake --build build-fuzz -j "$jobs" >>build-fuzz.log 2>&1 || { grep -E "error" build-fuzz.log | head -30; exit 1; }

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(decode cli_reader roundtrip)
    [ -x build-fuzz/test/fuzz/fuzz_homo ] && targets+=(homo)
fi

seeds=build-fuzz/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{decode,cli_reader,roundtrip,homo}
build-fuzz/test/fuzz/make_seeds "$seeds"
cp test/golden/*.ghz "$seeds/decode/"
cp test/golden/*.ghz "$seeds/cli_reader/"

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
    bin=build-fuzz/test/fuzz/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz.sh: no $bin" >&2; exit 1; }
    corpus=fuzz-corpus/$t
    mkdir -p "$corpus"
    regress=()
    [ -d test/fuzz/regress/$t ] && regress=(test/fuzz/regress/$t)
    echo "fuzz.sh: $t for ${secs}s (corpus $corpus: $(ls "$corpus" | wc -l) inputs)"
    # New inputs go to the first directory, the kept corpus; seeds and regressions
    # are read only. -rss_limit_mb: a header that makes the reader allocate what it
    # announces is a bug, and shows as an out-of-memory crash.
    if ! "$bin" "$corpus" "$seeds/$t" "${regress[@]}" -max_total_time="$secs" -max_len=8192 \
        -timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=512 -print_final_stats=1 \
        -artifact_prefix="fuzz-corpus/crash-$t-" >"fuzz-corpus/$t.log" 2>&1; then
        tail -50 "fuzz-corpus/$t.log"
        echo "fuzz.sh: $t FAILED; the input is in fuzz-corpus/crash-$t-*" >&2
        status=1
    else
        grep -E "^(stat::number_of_executed_units|stat::new_units_added)|Done [0-9]+ runs" \
            "fuzz-corpus/$t.log" | tr '\n' ' '
        echo
    fi
done
exit $status
