#!/usr/bin/env bash
# scripts/demo.sh: the main demo of ghz. Installs missing build dependencies, builds
# (Release, build/) and runs build/examples/ghz-demo: the generated fields compressed
# under REL bounds 1e-2, 1e-3 and 1e-4 with the CPU reference codec on one thread,
# every value checked against the bound, and a table of ratio, error, PSNR and
# throughput. Then, when MPI is present, a two-rank collective demo on the CPU:
# build/examples/image_stacking/ghz-image-stacking stacks generated telescope frames
# with the compressed allreduce and checks the bound on every pixel (writes
# build/demo-stack.png). Exits non-zero if a build fails or any bound is violated.
#
#   bash scripts/demo.sh [ghz-demo options, e.g. --reps 1]
#   GHZ_ENABLE_CUDA=AUTO bash scripts/demo.sh   # build the CUDA codec even without a GPU
#
# The CUDA codec is built only where a GPU is visible (nvidia-smi -L), or where
# GHZ_ENABLE_CUDA (ON, OFF or AUTO, the CMake option) says so; a build/ configured
# before keeps its setting. Build logs: build/logs/demo-*.log.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
fi
jobs=$(nproc 2>/dev/null || echo 2)

# Each build step's output goes to a log under build/logs/ (its tail is shown when it
# fails); the terminal gets a line per tenth of the step and one at least every 20 s.
GHZ_STEP_PREFIX=demo.sh
GHZ_STEP_LOGDIR=build/logs
# shellcheck source=scripts/steps.sh
. scripts/steps.sh

# The CUDA codec is built only when it can run: where a GPU is visible (nvidia-smi -L
# lists one, or /dev/nvidia0 exists) or GHZ_ENABLE_CUDA=ON|AUTO asks for it. A build/
# configured before keeps its own GHZ_ENABLE_CUDA (CMake's cache) unless it is set.
have_gpu() {
    { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; } ||
        compgen -G '/dev/nvidia[0-9]*' >/dev/null
}
cuda_args=()
cached=$(sed -n 's/^GHZ_ENABLE_CUDA:[A-Z]*=//p' build/CMakeCache.txt 2>/dev/null || true)
if [ -n "${GHZ_ENABLE_CUDA:-}" ]; then
    cuda_args=(-DGHZ_ENABLE_CUDA="$GHZ_ENABLE_CUDA")
    cuda_why="GHZ_ENABLE_CUDA=$GHZ_ENABLE_CUDA from the environment"
elif [ -n "$cached" ]; then
    cuda_why="GHZ_ENABLE_CUDA=$cached, as build/ was configured before"
elif have_gpu; then
    cuda_args=(-DGHZ_ENABLE_CUDA=AUTO)
    cuda_why="a GPU is present: GHZ_ENABLE_CUDA=AUTO (the CUDA codec where nvcc is found)"
else
    cuda_args=(-DGHZ_ENABLE_CUDA=OFF)
    cuda_why="no GPU found: GHZ_ENABLE_CUDA=OFF (GHZ_ENABLE_CUDA=AUTO bash scripts/demo.sh builds the CUDA codec anyway)"
fi
echo "demo.sh: building the demo (Release, build/; $cuda_why)"
run_step demo-configure "configuring" cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}"
if grep -q 'ghz: CUDA codec ON' build/logs/demo-configure.log; then
    echo "demo.sh: the CUDA codec is part of this build: several minutes on 2 cores the first time"
fi
run_step demo-build "building ghz-demo" cmake --build build -j "$jobs" --target ghz-demo
if [ ! -x build/examples/ghz-demo ]; then
    echo "demo.sh: build/examples/ghz-demo was not built (are datasets/ and examples/ present?)" >&2
    exit 1
fi
echo
build/examples/ghz-demo "$@"

# The collective demo: two MPI ranks on this machine's CPU (no GPU needed) stack 8
# generated telescope frames with the compressed ghz_allreduce under a bound and check
# every pixel against the exact allreduce. Skipped when MPI or ghz::coll is missing.
# (the target list is read whole first: grep -q closing the pipe early would make the
# pipeline fail under pipefail)
targets=$(cmake --build build --target help 2>/dev/null || true)
if ! grep -q 'ghz-image-stacking' <<<"$targets"; then
    echo
    echo "demo.sh: no collective demo (ghz-image-stacking is not part of this build: MPI missing?)"
    exit 0
fi
run_step demo-build-stacking "building ghz-image-stacking" cmake --build build -j "$jobs" --target ghz-image-stacking
mpi=(mpirun -np 2)
mpi_version=$(mpirun --version 2>&1 || true)
if grep -q 'Open MPI' <<<"$mpi_version"; then # more ranks than cores; root allowed
    mpi+=(--oversubscribe)
    [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
fi
echo
# --path homo: show the compressed collective itself (GHZ_PATH_AUTO measures and, on
# one machine's CPU, rightly runs exact instead: COLL.md, Choices)
echo "demo.sh: collective demo: ${mpi[*]} ghz-image-stacking --generate 8 --path homo (CPU backend)"
out=$(mktemp "${TMPDIR:-/tmp}/ghz-demo-stack.XXXXXX")
trap 'rm -f "$out"' EXIT
"${mpi[@]}" build/examples/image_stacking/ghz-image-stacking --generate 8 -W 512 -H 512 \
    --rel 1e-4 --path homo -o build/demo-stack --json >"$out" 2>&1 || { cat "$out"; exit 1; }
grep -v '^{' "$out"

# Where the compressed collective helps: the measured time above is one machine, where
# MPI moves bytes at memory speed and this CPU codec runs at about 0.1 GB/s a core. What
# compression buys is fewer bytes on a link; the model of docs/SCALE_MODEL.md prices
# this run's size and ratio on network links with a GPU's codec rates.
json=$(grep -m1 '^{"app"' "$out" || true)
if [ -n "$json" ] && command -v python3 >/dev/null 2>&1; then
    read -r bytes ratio < <(python3 -c 'import json,sys; o=json.loads(sys.argv[1]); print(o["size"], o["ratio"])' "$json")
    echo
    echo "demo.sh: on one machine the exact allreduce moves bytes at memory speed, so"
    echo "compression only adds work; it pays where the link is slower than the codec."
    echo "The CPU backend (about 0.1 GB/s a core) is the reference; on GPUs (1-2 TB/s):"
    python3 scripts/coll_model.py --brief 2 --gpus-per-node 1 --size "$bytes" --ratio "$ratio"
fi
