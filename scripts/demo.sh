#!/usr/bin/env bash
# scripts/demo.sh: the main demo of ghz. Installs missing build dependencies, builds
# (Release, build/) and runs build/examples/ghz-demo: the generated fields compressed
# under REL bounds 1e-2, 1e-3 and 1e-4 with the CPU reference codec on one thread,
# every value checked against the bound, and a table of ratio, error, PSNR and
# throughput. Exits non-zero if the build fails or any bound is violated.
#
#   bash scripts/demo.sh [ghz-demo options, e.g. --reps 1]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
fi
jobs=$(nproc 2>/dev/null || echo 2)

# Build quietly; show the log only when something fails.
log=$(mktemp "${TMPDIR:-/tmp}/ghz-demo-build.XXXXXX")
trap 'rm -f "$log"' EXIT
echo "demo.sh: building (Release, build/, $jobs jobs)"
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=AUTO &&
    cmake --build build -j "$jobs" --target ghz-demo; } >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "demo.sh: build failed" >&2
    exit 1
fi
if [ ! -x build/examples/ghz-demo ]; then
    echo "demo.sh: build/examples/ghz-demo was not built (are datasets/ and examples/ present?)" >&2
    exit 1
fi
echo
exec build/examples/ghz-demo "$@"
