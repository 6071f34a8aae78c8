#!/usr/bin/env bash
# scripts/setup.sh: installs what building and testing ghz needs, when it is missing:
# cmake, make (or ninja), a C compiler, pkg-config, Criterion (libcriterion-dev),
# OpenMPI (openmpi-bin, libopenmpi-dev: mpicc and mpirun, for ghz/coll), python3 and clang (libFuzzer, for scripts/fuzz.sh). Debian/Ubuntu (apt-get) only; uses sudo when not root. Idempotent: when
# everything is present it installs nothing. OpenMP comes with GCC (libgomp).
# CUDA is optional and never installed here: the CUDA codec is built when nvcc is found
# (scripts/test.sh also looks in /usr/local/cuda/bin).
set -euo pipefail

missing=()
have() { command -v "$1" >/dev/null 2>&1; }

have cmake || missing+=(cmake)
have make || have ninja || missing+=(make)
have cc || have gcc || missing+=(gcc libc6-dev)
have pkg-config || missing+=(pkg-config)
if ! have pkg-config || ! pkg-config --exists criterion; then
    missing+=(libcriterion-dev)
fi
have python3 || missing+=(python3)
# OpenMPI for the collective library ghz/coll and its MPI tests
have mpicc || missing+=(libopenmpi-dev)
have mpirun || missing+=(openmpi-bin)
# clang with libFuzzer, for scripts/fuzz.sh (part of scripts/test.sh)
have clang-14 || have clang || missing+=(clang)

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all dependencies present (cmake, make/ninja, C compiler, pkg-config, criterion, OpenMPI, python3, clang)"
    exit 0
fi

if ! have apt-get; then
    echo "setup: no apt-get here; install these by hand: ${missing[*]}" >&2
    exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if have sudo; then
        sudo=(sudo)
    else
        echo "setup: not root and no sudo; install these by hand: ${missing[*]}" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# One line on the terminal; apt-get's own output (hundreds of lines) goes to a log that is
# shown only when it fails.
log=${TMPDIR:-/tmp}/ghz-setup-apt.log
printf 'setup: installing with apt-get: %s (log: %s) ...' "${missing[*]}" "$log"
if ! { "${sudo[@]}" apt-get update -q && "${sudo[@]}" apt-get install -y -q \
    --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    echo " failed"
    tail -n 40 "$log" >&2
    echo "setup: apt-get failed (whole log: $log)" >&2
    exit 1
fi
echo " done"

# Check again: a package that installed but does not provide what we need is an error.
have cmake && { have make || have ninja; } && { have cc || have gcc; } && have pkg-config &&
    pkg-config --exists criterion && have python3 && { have clang-14 || have clang; } &&
    have mpicc && have mpirun || {
    echo "setup: dependencies still missing after apt-get install" >&2
    exit 1
}
