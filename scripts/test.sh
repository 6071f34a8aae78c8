#!/usr/bin/env bash
# scripts/test.sh: all the tests of ghz, as CI runs them (.ci/run calls this).
#
#   bash scripts/test.sh
#
#  1. scripts/setup.sh (installs missing build dependencies with apt-get), and
#     scripts/setup_python.sh (the venv build/venv with the Python tests' numpy, pytest,
#     numcodecs, zarr, h5py; HDF5's headers and tools)
#  2. Release build in build/ for build/venv's Python, with the CUDA codec when nvcc is
#     found (GHZ_ENABLE_CUDA=AUTO; the environment's GHZ_ENABLE_CUDA=ON|OFF|AUTO wins);
#     ctest -L cpu (the GPU tests run on GPU machines only),
#     then ctest -L mpi: the collective library's tests under mpirun on 1 to 8 ranks
#     then ctest -L python: the Python package, its zarr codec and HDF5 filter (pytest,
#     test/python) on the build tree, and again installed by `pip install .` in a venv
#  3. install into a temporary prefix; build and run test/consumer against it through
#     find_package(ghz CONFIG) (from a C project, and from a C++-only one when a C++
#     compiler exists) and through pkg-config (ghz.pc, and ghz-coll.pc where ghz::coll
#     was built), for the default (static) libraries and for shared ones
#  4. AddressSanitizer + UndefinedBehaviorSanitizer Debug build of the CPU reference in
#     build-asan/, ctest -L cpu and -L mpi there too (which replays the fuzz seeds and
#     test/fuzz/regress/ under the sanitizers)
#  5. scripts/fuzz.sh: every libFuzzer target for GHZ_FUZZ_SECONDS (default 60) with
#     clang, ASan and UBSan, the corpus kept in fuzz-corpus/ (GHZ_FUZZ_SECONDS=0 skips)
#
# Stops at the first failure with a non-zero exit status. Prints a line per step with its
# time (and progress lines while it runs, at least one every 20 s), ctest's summaries,
# and on failure the tail of the step's log; every step's whole output is in
# build/logs/test-*.log. GHZ_VERBOSE=1 shows every command's output as it runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

jobs=$(nproc 2>/dev/null || echo 2)
t_start=$(date +%s)
GHZ_STEP_PREFIX=test.sh
GHZ_STEP_LOGDIR=$root/build/logs
# shellcheck source=scripts/steps.sh
. scripts/steps.sh
# the lines of a ctest log printed after the step passes
ctest_summary='tests passed|\(Skipped\)|\(Disabled\)|Total Test time'

bash scripts/setup.sh
bash scripts/setup_python.sh
venv=${GHZ_VENV:-build/venv}
vpy=$root/$venv/bin/python
[[ $venv == /* ]] && vpy=$venv/bin/python

# nvcc is often installed but not on PATH (e.g. /usr/local/cuda/bin).
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
    echo "test.sh: using /usr/local/cuda/bin/nvcc"
fi

# Runs the tests labelled mpi (ghz/coll under mpirun) in build dir $1. Open MPI's own
# allocations outlive MPI_Finalize, so LeakSanitizer is off for them; every other
# sanitizer check stays on. Several ranks share the 2 cores of CI: one test at a time.
run_mpi_ctest() {
    local dir=$1 exclude=${2:-} n_mpi
    n_mpi=$(ctest --test-dir "$dir" -N -L mpi | sed -n 's/^Total Tests: //p')
    if [ "${n_mpi:-0}" -eq 0 ]; then
        echo "test.sh: no MPI tests in $dir (ghz/coll not built: is MPI installed?)" >&2
        return 1
    fi
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        ctest --test-dir "$dir" --output-on-failure -j 1 -L mpi ${exclude:+-E "$exclude"}
}

# Runs the tests labelled cpu in build dir $1; plain ctest when no test has labels.
run_ctest() {
    local dir=$1 n_cpu
    n_cpu=$(ctest --test-dir "$dir" -N -L cpu | sed -n 's/^Total Tests: //p')
    if [ "${n_cpu:-0}" -gt 0 ]; then
        ctest --test-dir "$dir" --output-on-failure -j "$jobs" -L cpu
    else
        echo "test.sh: no test labelled cpu in $dir; running every test"
        ctest --test-dir "$dir" --output-on-failure -j "$jobs"
    fi
}

run_step test-configure "configuring build/ (Release, GHZ_ENABLE_CUDA=${GHZ_ENABLE_CUDA:-AUTO})" \
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA="${GHZ_ENABLE_CUDA:-AUTO}" \
    -DPython3_EXECUTABLE="$vpy"
grep -E '^-- ghz: (CUDA codec|collective library|NCCL|Python extension|HDF5)' \
    "$GHZ_STEP_LOGDIR/test-configure.log" | sed 's/^-- /test.sh:   /' || true
run_step test-build "building build/" cmake --build build -j "$jobs"

GHZ_STEP_SUMMARY=$ctest_summary run_step test-ctest-cpu "unit and CLI tests (ctest -L cpu, build/)" run_ctest build
GHZ_STEP_SUMMARY=$ctest_summary run_step test-ctest-mpi "MPI tests (ctest -L mpi, build/)" run_mpi_ctest build

GHZ_STEP_SUMMARY=$ctest_summary run_step test-ctest-python "Python tests on build/ (ctest -L python, $venv)" \
    ctest --test-dir build --output-on-failure -L python

# The package as a user installs it: pip install . into a fresh venv of the same
# interpreter, which sees the test dependencies of the setup venv through a .pth file.
pip_venv_test() {
    local pipvenv deps
    pipvenv=$(mktemp -d "${TMPDIR:-/tmp}/ghz-venv.XXXXXX")
    "$(cat "$venv/.ghz-base-python")" -m venv "$pipvenv"
    deps=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$deps" >"$("$pipvenv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/ghz-test-deps.pth"
    "$pipvenv/bin/python" -m pip install --disable-pip-version-check .
    (cd "$pipvenv" && env -u HDF5_PLUGIN_PATH PYTHONDONTWRITEBYTECODE=1 \
        "$pipvenv/bin/python" -m pytest -q -p no:cacheprovider "$root/test/python")
    rm -rf "$pipvenv"
}
GHZ_STEP_SUMMARY='^[0-9]+ (passed|failed)' run_step test-pip "Python package installed by pip install . in a fresh venv, pytest" \
    pip_venv_test

# ---- the installed package ---------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ghz-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# consumer_check NAME BUILD_DIR: installs BUILD_DIR into $tmp/NAME and builds and runs
# test/consumer against it, first with CMake, then with pkg-config.
consumer_check() {
    local name=$1 bdir=$2 prefix=$tmp/$1 pc libdir
    step() { printf '\n==== %s ====\n' "$*"; } # a heading in the step's log
    step "install ($name) into $prefix"
    cmake --install "$bdir" --prefix "$prefix"

    step "consumer ($name) via find_package(ghz CONFIG)"
    cmake -S test/consumer -B "$tmp/consumer-$name" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix"
    cmake --build "$tmp/consumer-$name" -j "$jobs"
    ctest --test-dir "$tmp/consumer-$name" --output-on-failure
    if command -v c++ >/dev/null 2>&1; then
        step "consumer ($name) via find_package(ghz CONFIG), C++-only project"
        cmake -S test/consumer -B "$tmp/consumer-$name-cxx" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_PREFIX_PATH="$prefix" -DGHZ_CONSUMER_CXX=ON
        cmake --build "$tmp/consumer-$name-cxx" -j "$jobs"
        ctest --test-dir "$tmp/consumer-$name-cxx" --output-on-failure
    else
        echo "test.sh: no C++ compiler; skipping the C++-only consumer"
    fi

    step "consumer ($name) via pkg-config ghz"
    pc=$(find "$prefix" -name ghz.pc -path '*/pkgconfig/*' | head -n 1)
    [ -n "$pc" ] || { echo "test.sh: no ghz.pc installed under $prefix" >&2; return 1; }
    local pcdir
    pcdir=$(dirname "$pc")
    libdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir ghz)
    [ -d "$libdir" ] || { echo "test.sh: ghz.pc libdir $libdir does not exist" >&2; return 1; }
    echo "pkg-config --cflags --libs ghz: $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs ghz)"
    # shellcheck disable=SC2046
    cc -std=c99 -Wall -Wextra -Werror -o "$tmp/consumer-$name-pc" test/consumer/main.c \
        $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs ghz) -lm
    # Run it as a user would: the -L directories of ghz.pc on the library path.
    local ldpath=$libdir dir
    for dir in $(PKG_CONFIG_PATH=$pcdir pkg-config --libs-only-L ghz); do
        ldpath=$ldpath:${dir#-L}
    done
    LD_LIBRARY_PATH=$ldpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/consumer-$name-pc"

    # ghz-coll.pc wherever libghzcoll was installed: test/consumer/coll_main.c on 2 ranks
    if compgen -G "$libdir/libghzcoll.*" >/dev/null; then
        step "consumer ($name) via pkg-config ghz-coll"
        [ -e "$pcdir/ghz-coll.pc" ] || { echo "test.sh: libghzcoll installed without ghz-coll.pc" >&2; return 1; }
        echo "pkg-config --cflags --libs ghz-coll: $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs ghz-coll)"
        # (coll_main.c calls MPI itself, so links it itself: mpicc)
        # shellcheck disable=SC2046
        mpicc -std=c99 -Wall -Wextra -Werror -o "$tmp/consumer-$name-coll-pc" test/consumer/coll_main.c \
            $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs ghz-coll)
        LD_LIBRARY_PATH=$ldpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} mpirun --oversubscribe --allow-run-as-root \
            -x LD_LIBRARY_PATH -np 2 "$tmp/consumer-$name-coll-pc"
    fi
}

run_step test-consumer-default "installed package (static): CMake, C++ and pkg-config consumers" \
    consumer_check default build

# A shared libghz too (CPU only, library alone: seconds to build).
build_shared() {
    cmake -S . -B build-shared -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
        -DGHZ_ENABLE_CUDA=OFF -DGHZ_BUILD_TESTS=OFF -DGHZ_BUILD_TOOLS=OFF \
        -DGHZ_BUILD_DATASETS=OFF -DGHZ_BUILD_EXAMPLES=OFF
    cmake --build build-shared -j "$jobs"
}
run_step test-build-shared "shared-library build (build-shared/)" build_shared
run_step test-consumer-shared "installed package (shared): CMake, C++ and pkg-config consumers" \
    consumer_check shared build-shared

# ---- sanitizers ----------------------------------------------------------------------
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
run_step test-configure-asan "configuring build-asan/ (ASan+UBSan Debug, CPU)" \
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGHZ_ENABLE_CUDA=OFF \
    -DGHZ_BUILD_EXAMPLES=OFF -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" \
    -DPython3_EXECUTABLE="$vpy"
run_step test-build-asan "building build-asan/" cmake --build build-asan -j "$jobs"

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
GHZ_STEP_SUMMARY=$ctest_summary run_step test-asan-cpu "unit and CLI tests under ASan+UBSan (build-asan/)" \
    run_ctest build-asan
# under the sanitizers up to 6 ranks: the 7- and 8-rank runs take 5 of CI's minutes
# there and reach no code path the smaller ones miss (the Release build runs them)
GHZ_STEP_SUMMARY=$ctest_summary run_step test-asan-mpi "MPI tests under ASan+UBSan, 1 to 6 ranks (build-asan/)" \
    run_mpi_ctest build-asan 'np[78]'

if [ "${GHZ_FUZZ_SECONDS:-60}" != 0 ]; then
    GHZ_STEP_SUMMARY='^fuzz.sh: |stat::number_of_executed_units' run_step test-fuzz \
        "fuzzing (scripts/fuzz.sh, ${GHZ_FUZZ_SECONDS:-60} s per target)" bash scripts/fuzz.sh
fi

echo "test.sh: all steps passed in $(($(date +%s) - t_start)) s (logs: $GHZ_STEP_LOGDIR/test-*.log)"
