#!/usr/bin/env bash
# scripts/gpu_prebuild.sh: build the GPU binaries HERE (nvcc compiles without a GPU),
# laid out as build-gpu/ and packed into .device-carry/prebuilt.tar.xz for the device
# call, so that the call spends its device time running, not compiling (the build takes
# 190 s of a 30-minute session budget on the GPU machines; session 15 ran a call of 55
# s with prebuilt binaries). gpu_multi.sh and gpu_coll.sh unpack it and skip their
# build (build-gpu/PREBUILT says what was built, from which commit).
#
#   bash scripts/gpu_prebuild.sh [TARGET...]   # default: every target gpu_multi.sh uses
#
# Then carry ".device-carry" (the archive, xz: 5 MB for two 12 MB binaries; the
# collectives' per-rank fields, written here; Criterion for the tests), and
# "datasets/out/real" only for ghz-bench's real fields (homobench, abref, floor): at
# most 64 MiB together, which this script checks for the first.
#
# The binaries must match the device: the same CUDA major version (13 here and there:
# libcudart.so.13, found on the device under /usr/local/cuda/lib64, which both scripts
# put on LD_LIBRARY_PATH) and Open MPI 4.1 (libmpi.so.40). They are built with this
# machine's compiler (gcc 12), not the device's (gcc 13.3): host code speed may differ
# (codec/range.c says how much it did once).
set -eu
cd "$(dirname "$0")/.."
B=${GHZ_PREBUILD_DIR:-build-prebuilt}
targets=${*:-ghz-coll-bench test_coll_mpi_cuda test_coll_move_cuda test_cuda_homo test_cuda_coll_reduce ghz-bench}
mkdir -p "$B"
# (Criterion from this machine's packages: the same libcriterion.so.3 as .device-carry/crit)
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
# GHZ_PREBUILD_ALT=DIR: also DIR's ghz-coll-bench (another worktree, built in DIR/build-prebuilt)
# as build-gpu/alt/ghz-coll-bench, for gpu_multi.sh's `altab` step
if [ -n "${GHZ_PREBUILD_ALT:-}" ]; then
    A=$GHZ_PREBUILD_ALT/build-prebuilt
    cmake -S "$GHZ_PREBUILD_ALT" -B "$A" -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DGHZ_BUILD_COLL=ON >"$A.configure.log" 2>&1 && cmake --build "$A" -j"$(nproc)" --target ghz-coll-bench \
        >"$A.build.log" 2>&1 || { grep -E "error" "$A.build.log" | head -20; exit 1; }
    mkdir -p build-gpu/alt
    cp "$(find "$A" -type f -name ghz-coll-bench -perm -u+x | head -1)" build-gpu/alt/ghz-coll-bench
    strip build-gpu/alt/ghz-coll-bench
    git -C "$GHZ_PREBUILD_ALT" log --oneline -1 >build-gpu/alt/COMMIT
    echo "build-gpu/alt/ghz-coll-bench: $(cat build-gpu/alt/COMMIT)"
fi
{ echo "targets: $targets"; echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (modified)')";
  echo "built: $(date -u '+%F %T') with $(nvcc --version | tail -1)"; } >build-gpu/PREBUILT
mkdir -p .device-carry
tar -cJf .device-carry/prebuilt.tar.xz build-gpu
rm -rf .device-carry/fields
python3 scripts/coll_rank_fields.py .device-carry/fields 4 >/dev/null
cat build-gpu/PREBUILT
kib=$(du -sk .device-carry | awk '{print $1}')
echo "carry: [\".device-carry\"] ($((kib / 1024)) MiB of 64; add \"datasets/out/real\", 35 MiB, for ghz-bench's fields)"
[ "$kib" -le $((64 * 1024)) ] || { echo "over the carry limit: fewer targets"; exit 1; }
