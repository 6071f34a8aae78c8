#!/usr/bin/env bash
# scripts/test.sh: all the tests of ghz, as CI runs them (.ci/run calls this).
#
#   bash scripts/test.sh
#
#  1. scripts/setup.sh (installs missing build dependencies with apt-get), and
#     scripts/setup_python.sh (the Python tests' numpy, pytest, numcodecs, zarr, h5py,
#     HDF5's headers and tools)
#  2. Release build in build/, with the CUDA codec when nvcc is found
#     (GHZ_ENABLE_CUDA=AUTO); ctest -L cpu (the GPU tests run on GPU machines only),
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
# Stops at the first failure with a non-zero exit status.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

jobs=$(nproc 2>/dev/null || echo 2)
step() { printf '\n==== test.sh: %s ====\n' "$*"; }
t_start=$(date +%s)

step "dependencies"
bash scripts/setup.sh
bash scripts/setup_python.sh

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

step "Release build (build/, GHZ_ENABLE_CUDA=AUTO)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=AUTO
cmake --build build -j "$jobs"

step "unit and CLI tests (build/)"
run_ctest build
run_mpi_ctest build

step "Python package (build/ with pytest, then pip install . in a venv)"
ctest --test-dir build --output-on-failure -L python
venv=$(mktemp -d "${TMPDIR:-/tmp}/ghz-venv.XXXXXX")
python3 -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check .
(cd "$venv" && env -u HDF5_PLUGIN_PATH PYTHONDONTWRITEBYTECODE=1 \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/test/python")
rm -rf "$venv"

# ---- the installed package ---------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ghz-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# consumer_check NAME BUILD_DIR: installs BUILD_DIR into $tmp/NAME and builds and runs
# test/consumer against it, first with CMake, then with pkg-config.
consumer_check() {
    local name=$1 bdir=$2 prefix=$tmp/$1 pc libdir
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
        # shellcheck disable=SC2046
        cc -std=c99 -Wall -Wextra -Werror -o "$tmp/consumer-$name-coll-pc" test/consumer/coll_main.c \
            $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs ghz-coll)
        LD_LIBRARY_PATH=$ldpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} mpirun --oversubscribe --allow-run-as-root \
            -x LD_LIBRARY_PATH -np 2 "$tmp/consumer-$name-coll-pc"
    fi
}

consumer_check default build

# A shared libghz too (CPU only, library alone: seconds to build).
step "shared-library build (build-shared/)"
cmake -S . -B build-shared -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
    -DGHZ_ENABLE_CUDA=OFF -DGHZ_BUILD_TESTS=OFF -DGHZ_BUILD_TOOLS=OFF \
    -DGHZ_BUILD_DATASETS=OFF -DGHZ_BUILD_EXAMPLES=OFF
cmake --build build-shared -j "$jobs"
consumer_check shared build-shared

# ---- sanitizers ----------------------------------------------------------------------
step "ASan+UBSan Debug build of the CPU reference (build-asan/)"
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGHZ_ENABLE_CUDA=OFF \
    -DGHZ_BUILD_EXAMPLES=OFF -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san"
cmake --build build-asan -j "$jobs"

step "unit and CLI tests under ASan+UBSan (build-asan/)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_ctest build-asan
# under the sanitizers up to 6 ranks: the 7- and 8-rank runs take 5 of CI's minutes
# there and reach no code path the smaller ones miss (the Release build runs them)
run_mpi_ctest build-asan 'np[78]'

if [ "${GHZ_FUZZ_SECONDS:-60}" != 0 ]; then
    step "fuzzing (scripts/fuzz.sh, ${GHZ_FUZZ_SECONDS:-60} s per target)"
    bash scripts/fuzz.sh
fi

step "done"
echo "test.sh: all steps passed in $(($(date +%s) - t_start)) s"
