#!/usr/bin/env bash
# scripts/gpu_prebuild.sh: build the GPU binaries HERE (nvcc compiles without a GPU) and
# lay them out as build-gpu/ for the device call, so that the call spends its device
# time running, not compiling (the build takes 190 s of a 30-minute session budget on
# the GPU machines; session 15 ran a call of 55 s with this). gpu_multi.sh and
# gpu_coll.sh skip their build when build-gpu/PREBUILT exists.
#
#   bash scripts/gpu_prebuild.sh [TARGET...]   # default: ghz-coll-bench test_coll_mpi_cuda
#
# Then carry "build-gpu" and ".device-carry/fields" (the collectives' per-rank fields,
# written here), plus ".device-carry/crit" for the Criterion tests (test_cuda_homo,
# test_cuda_coll_reduce): at most 64 MiB together, which this script checks.
#
# The binaries must match the device: the same CUDA major version (13 here and there:
# libcudart.so.13, found on the device under /usr/local/cuda/lib64, which both scripts
# put on LD_LIBRARY_PATH) and Open MPI 4.1 (libmpi.so.40). They are built with this
# machine's compiler (gcc 12), not the device's (gcc 13.3): host code speed may differ
# (codec/range.c says how much it did once).
set -eu
cd "$(dirname "$0")/.."
B=${GHZ_PREBUILD_DIR:-build-prebuilt}
targets=${*:-ghz-coll-bench test_coll_mpi_cuda}
mkdir -p "$B"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGHZ_BUILD_COLL=ON >"$B/prebuild-configure.log" 2>&1 || { tail -20 "$B/prebuild-configure.log"; exit 1; }
# shellcheck disable=SC2086
cmake --build "$B" -j"$(nproc)" --target $targets >"$B/prebuild-build.log" 2>&1 ||
    { grep -E "error" "$B/prebuild-build.log" | head -20; exit 1; }
rm -rf build-gpu
mkdir -p build-gpu
for t in $targets; do
    f=$(find "$B" -type f -name "$t" -perm -u+x | head -1)
    [ -n "$f" ] || { echo "no binary for target $t under $B"; exit 1; }
    mkdir -p "build-gpu/$(dirname "${f#"$B"/}")"
    cp "$f" "build-gpu/${f#"$B"/}"
    strip "build-gpu/${f#"$B"/}"
    echo "build-gpu/${f#"$B"/}"
done
{ echo "targets: $targets"; echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (modified)')";
  echo "built: $(date -u '+%F %T') with $(nvcc --version | tail -1)"; } >build-gpu/PREBUILT
rm -rf .device-carry/fields
python3 scripts/coll_rank_fields.py .device-carry/fields 4 >/dev/null
cat build-gpu/PREBUILT
kib=$(du -sk build-gpu .device-carry/fields .device-carry/crit 2>/dev/null | awk '{s += $1} END {print s}')
echo "carry: [\"build-gpu\", \".device-carry/fields\", \".device-carry/crit\"], $((kib / 1024)) MiB of 64"
[ "$kib" -le $((64 * 1024)) ] || { echo "over the carry limit: fewer targets"; exit 1; }
