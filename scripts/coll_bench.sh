#!/usr/bin/env bash
# scripts/coll_bench.sh: the collective library's CPU benchmark table.
#
#   bash scripts/coll_bench.sh [RANKS...]        # default: 2 4 8
#
# Builds a CPU-only Release tree in build-coll/ (the collectives need no GPU), cuts
# per-rank real fields from datasets/out/real (scripts/coll_rank_fields.py; run
# datasets/real/extract.sh once before), and runs ghz-coll-bench for allreduce,
# reduce_scatter and reduce, f32 SUM, REL 1e-4 of the final result, with every element
# checked (-c 1), on each rank count: ghz homomorphic, ghz DOC, ghz exact and the MPI
# library's own call side by side. Writes the logs and JSON lines to $OUT (default
# coll-bench-out/), then the markdown table (scripts/coll_plots.py) when matplotlib is
# there. GHZ_COLL_BENCH_ARGS adds flags (e.g. "-b 1M -e 64M"); GHZ_COLL_BENCH_THREADS
# sets --threads (compute threads per rank, default 1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${OUT:-coll-bench-out}
mkdir -p "$out"
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(2 4 8)
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build-coll -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=OFF -DGHZ_BUILD_TESTS=OFF \
    -DGHZ_BUILD_EXAMPLES=OFF -DGHZ_BUILD_COLL=ON > "$out/configure.log"
cmake --build build-coll -j "$jobs" --target ghz-coll-bench > "$out/build.log"
bench=build-coll/ghz/tools/coll_bench/ghz-coll-bench
[ -x "$bench" ] || bench=$(find build-coll -name ghz-coll-bench -type f | head -n 1)

fields=$out/fields
python3 scripts/coll_rank_fields.py "$fields" 8 > "$out/fields.log"
raw=("$fields"/rank*.f32)

args=(-b 1M -e 256M -f 4 -n 10 -w 2 -c 1 -d float -o sum --rel 1e-4
      --threads "${GHZ_COLL_BENCH_THREADS:-1}" --raw "${raw[@]}")
# shellcheck disable=SC2206
extra=(${GHZ_COLL_BENCH_ARGS:-})
status=0
for np in "${ranks[@]}"; do
    for coll in allreduce reduce_scatter reduce; do
        log=$out/${coll}_np${np}.log
        echo "== $coll on $np ranks -> $log"
        if ! mpirun --oversubscribe --allow-run-as-root --bind-to none -np "$np" "$bench" \
            --coll "$coll" "${args[@]}" "${extra[@]}" --json "$out/${coll}_np${np}.jsonl" > "$log" 2>&1; then
            echo "coll_bench: $coll on $np ranks FAILED (see $log)" >&2
            status=1
        fi
        tail -n 40 "$log"
    done
done
if python3 -c "import matplotlib" 2>/dev/null && [ -f scripts/coll_plots.py ]; then
    python3 scripts/coll_plots.py "$out"/*.jsonl --out "$out" > "$out/plots.log" 2>&1 || true
fi
exit $status
