#!/usr/bin/env bash
# scripts/gpu_ab.sh: A/B of a compile-time tuning macro on the GPU machine, in one
# device call: builds ghz-bench once per value (in parallel), then benchmarks every
# build on the same fields, one after the other, and prints the compress (range given)
# and decompress GB/s of each. A measurement, not a validation: a value worth keeping
# still goes through `gpu_run.sh test sanitize bench`.
#
#   bash scripts/gpu_ab.sh MACRO "V1 V2 ..." [ghz-bench codec options]
#   e.g. bash scripts/gpu_ab.sh GHZ_CUDA_PREFETCH_AHEAD_PCT "0 50 100" --rel 1e-4
#
# GHZ_AB_BENCH=homo runs `ghz-bench homo` instead (its options then), for ghz/homo's
# macros (e.g. GHZ_CUDA_HOMO_NARY_REGS), and prints its result tables: homo/DOC GB/s of
# the binary SUM and the n-ary sum4 against dec4.
#
# Without field options it takes smooth2d, wave3d and the real etopo5, navy_uwnd and
# coads_sst (datasets/out/real, carried to the device). Criterion is not needed (no
# tests are built); the tuning macros are the GHZ_CUDA_* ones of ghz/codec/cuda.
set -uo pipefail
[ $# -ge 2 ] || { sed -n 2,14p "$0"; exit 2; }
cd "$(dirname "$0")/.."
macro=$1 values=$2
shift 2
args=("$@")
if ! printf '%s\n' "${args[@]}" | grep -qE '^--(gen|raw)$'; then
    real=datasets/out/real
    args+=(--gen smooth2d --gen wave3d
        --raw "etopo5_relief:$real/etopo5_relief_2160x2160.f32"
        --raw "navy_uwnd:$real/navy_uwnd_144x73x132.f32"
        --raw "coads_sst:$real/coads_sst_180x90x12.f32:-9.999999790214768e+33")
fi
only=${GHZ_AB_ONLY:-all}
[ "$only" = bench ] || for v in $values; do
    (cmake -S . -B "/tmp/ghz-ab-$v" -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DGHZ_BUILD_TESTS=OFF "-DCMAKE_CUDA_FLAGS=-D$macro=$v ${GHZ_AB_FLAGS:-}" >"/tmp/ghz-ab-$v.log" 2>&1 &&
        cmake --build "/tmp/ghz-ab-$v" -j"$(nproc)" --target ghz-bench >>"/tmp/ghz-ab-$v.log" 2>&1 ||
        { echo "build $macro=$v failed"; tail -5 "/tmp/ghz-ab-$v.log"; }) &
done
wait
echo "built in $SECONDS s"
[ "$only" = build ] && exit 0
for v in $values; do
    bench="/tmp/ghz-ab-$v/ghz/tools/bench/ghz-bench"
    if [ "${GHZ_AB_BENCH:-codec}" = homo ]; then
        echo "== $macro=$v (field GiB REL ratio homo DOC ...; then field REL sum4 dec4 %dec inplace outplace ok)"
        "$bench" homo --json /dev/null "${args[@]}" 2>&1 | grep -E '^ *[a-z0-9_]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.]+ |FAILED'
    else
        echo "== $macro=$v (field REL ratio comp-rg decomp identical bad)"
        "$bench" codec --json /dev/null "${args[@]}" 2>&1 |
            awk '/^[a-z0-9_]+ +[0-9.]+ +[0-9.e-]+ +[0-9.]+ / {print $1, $3, $4, $9, $11, $13, $14}'
    fi
done
echo "done in $SECONDS s"
