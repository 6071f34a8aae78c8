#!/usr/bin/env bash
# scripts/gpu_bench_all.sh: the codec, homomorphic and collective benchmarks on one GPU
# machine in one device call; every JSON and log in one tarball, $OUT/gpu-bench-all.tgz
# (the device tool brings back few files), plus the tables they make (summary.txt).
#
#   bash scripts/gpu_bench_all.sh [codec] [homo] [demo] [fixed] [coll]   # default: codec homo demo coll
#
# Carry "datasets/out/real" (datasets/real/extract.sh): the six real fields of the codec
# table and the collectives' per-rank fields (scripts/coll_rank_fields.py); without it
# the codec runs the four generated fields only and ghz-coll-bench synthesizes its data.
#
# Sized to finish within 9 minutes on one H100 (16 cores), what one device call allows:
#   build (sm_90, ghz-bench and ghz-coll-bench only, own tree build-bench/)  ~1-2 min
#          (both before coll's CUDA backend: 71 s on 2 cores of the dev machine)
#   codec: 10 fields tiled to 1 GiB, REL 1e-3 and 1e-4, median of 10            ~1 min
#   homo:  4 generated fields, 1 GiB, REL 1e-2, 1e-3, 1e-4, median of 10        <1 min
#   coll:  allreduce and reduce_scatter on 2 and 4 ranks, f32 SUM, REL 1e-4 of the
#          final result, 1-64 MiB (x4), -n 5 -w 1, out of place and in place, every
#          element checked, CPU backend one core per rank: ~30-40 s a run, 4 runs
#          (64 MiB homomorphic allreduce is ~0.75-0.9 s a call on that backend)
#   demo:  ghz-demo --json, built after the rest (its failure costs nothing else):
#          4 generated fields x REL 1e-1..1e-6 on CPU and GPU, best of 3         ~20 s
#   fixed (only when named): 4 fields x f32/f64 x l = 8, 16, 32, 1 GiB          ~1 min
#   plots: when python3 has matplotlib, scripts/codec_plots.py (ratio against bound,
#          PSNR against bits per value) and scripts/coll_plots.py on the JSON, into
#          plots/ of the tarball, each under 60 s, after the deadline's steps    ~10 s
# and guarded: each step gets what is left of GHZ_BENCH_ALL_DEADLINE_S (default 510 s
# from the start) and is skipped when under 20 s remain, so the tarball is always made.
#
# Variables: GHZ_COLL_BACKEND (empty: ghz-coll-bench's default, the CPU backend; "cuda"
# passes --backend cuda once ghz-coll-bench has it; a name is added to every JSON line
# as "backend"), GHZ_COLL_RANKS ("2 4"), GHZ_COLL_COLLS ("allreduce reduce_scatter"; reduce
# too if the time allows), GHZ_COLL_BENCH_ARGS (the sizes and repetitions,
# default "-b 1M -e 64M -f 4 -n 5 -w 1"), GHZ_COLL_THREADS (1), GHZ_BENCH_RELS
# ("1e-3,1e-4", the codec's), GHZ_CMAKE_ARGS (extra CMake arguments).
# ghz-demo's JSON lines go to demo/ghz_demo.jsonl (results_update.py has no table for
# them). Then: python3 scripts/results_update.py OUT/*.json OUT/*.jsonl (after untarring)
# regenerates the marked tables of docs/RESULTS.md and README.md; the tarball already
# holds both files so regenerated (docs/) and their diff (docs.diff).
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
L=$(mktemp -d /tmp/gpu-bench-all.XXXXXX)      # what the tarball holds
F=$(mktemp -d /tmp/gpu-bench-fields.XXXXXX)   # the per-rank fields (not kept)
steps=" ${*:-codec homo demo coll} "
has() { [[ $steps == *" $1 "* ]]; }
t0=$(date +%s)
deadline=${GHZ_BENCH_ALL_DEADLINE_S:-510}
status=0
since() { echo "$(($(date +%s) - t0)) s"; }
say() { echo "$*" | tee -a "$L/steps.txt"; }

# step NAME LIMIT LOG COMMAND...: COMMAND under the smaller of LIMIT and the time left,
# its output in $L/LOG; a line in steps.txt either way.
step() {
    local name=$1 limit=$2 log=$3 left rc
    shift 3
    left=$((deadline - ($(date +%s) - t0)))
    if [ "$left" -lt 20 ]; then
        say "== $name: skipped, ${left} s left of ${deadline} s"
        status=1
        return 1
    fi
    [ "$left" -lt "$limit" ] && limit=$left
    timeout "$limit" "$@" >"$L/$log" 2>&1
    rc=$?
    [ $rc = 0 ] || status=1
    say "== $name: exit $rc$([ $rc = 124 ] && echo ' (timed out)') at $(since)"
    return $rc
}

# plots: PNGs of the JSON into $L/plots when matplotlib is there; never changes $status.
plots() {
    python3 -c "import matplotlib" 2>/dev/null || { say "== plots: skipped (no matplotlib)"; return 0; }
    local machine f codec=() coll=("$L"/coll_*.jsonl)
    for f in "$L"/bench_codec.json "$L"/demo/ghz_demo.jsonl; do [ -s "$f" ] && codec+=("$f"); done
    machine=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
    if [ ${#codec[@]} -gt 0 ]; then
        timeout 60 python3 scripts/codec_plots.py --out "$L/plots" "${codec[@]}" >>"$L/plots.log" 2>&1
        say "== plots: codec_plots.py exit $? at $(since)"
    fi
    if [ ${#coll[@]} -gt 0 ]; then
        timeout 60 python3 scripts/coll_plots.py --out "$L/plots/coll" --title "${machine:-no GPU}" "${coll[@]}" \
            >>"$L/plots.log" 2>&1
        say "== plots: coll_plots.py exit $? at $(since)"
    fi
}

finish() {
    mkdir -p "$L/docs"
    cp docs/RESULTS.md README.md "$L/docs/"
    shopt -s nullglob
    local data=("$L"/*.json "$L"/*.jsonl)
    if [ ${#data[@]} -gt 0 ]; then
        python3 scripts/results_update.py --print "${data[@]}" >"$L/summary.txt" 2>&1
        python3 scripts/results_update.py --doc "$L/docs/RESULTS.md" --doc "$L/docs/README.md" "${data[@]}" \
            >"$L/docs.log" 2>&1
        diff -u docs/RESULTS.md "$L/docs/RESULTS.md" >"$L/docs.diff"
        diff -u README.md "$L/docs/README.md" >>"$L/docs.diff"
        cp "$L/summary.txt" "$OUT/summary.txt"
        cat "$L/summary.txt"
    fi
    plots
    say "finished in $(since), status $status"
    tar czf "$OUT/gpu-bench-all.tgz" -C "$L" .
    rm -rf "$L" "$F"
    exit $status
}

{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; nproc; } >"$L/machine.txt" 2>&1
head -1 "$L/machine.txt"
git log -1 --format='commit %h %s' >"$L/commit.txt" 2>/dev/null && cat "$L/commit.txt"

targets=()
{ has codec || has homo || has fixed; } && targets+=(ghz-bench)
has coll && targets+=(ghz-coll-bench)
[ ${#targets[@]} -gt 0 ] || has demo || { say "nothing to run (steps: codec homo demo fixed coll)"; status=2; finish; }
# shellcheck disable=SC2086
step configure 120 configure.log cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DGHZ_BUILD_TESTS=OFF -DGHZ_BUILD_EXAMPLES="$(has demo && echo ON || echo OFF)" \
    -DGHZ_BUILD_COLL=ON \
    -DPKG_CONFIG_EXECUTABLE=/nonexistent ${GHZ_CMAKE_ARGS:-} || { tail -20 "$L/configure.log" 2>/dev/null; finish; }
if [ ${#targets[@]} -gt 0 ]; then
    step build 330 build.log cmake --build build-bench -j"$(nproc)" --target "${targets[@]}" ||
        { grep -E "error|Error|\*\*\*" "$L/build.log" 2>/dev/null | head -20; finish; }
fi
B=build-bench/ghz/tools

if has codec; then
    mapfile -t raw < <(python3 scripts/real_raw_args.py)
    step "ghz-bench codec ($((${#raw[@]} / 2)) real fields + 4 generated)" 150 bench_codec.txt \
        $B/bench/ghz-bench codec --json "$L/bench_codec.json" --rel "${GHZ_BENCH_RELS:-1e-3,1e-4}" \
        --gen wave3d --gen smooth2d --gen noisy2d --gen ocean2d "${raw[@]}"
fi
if has homo; then
    step "ghz-bench homo" 120 bench_homo.txt $B/bench/ghz-bench homo --json "$L/bench_homo.json"
fi
if has demo; then
    # built on its own, so that a failure here leaves the benchmarks' binaries alone
    demo_targets=$(cmake --build build-bench --target help 2>/dev/null || true)
    if ! grep -q ghz-demo <<<"$demo_targets"; then
        say "== ghz-demo: not part of this build (datasets/ or examples/ off): skipped"
    elif step "build ghz-demo" 120 build_demo.log cmake --build build-bench -j"$(nproc)" --target ghz-demo; then
        mkdir -p "$L/demo"
        step "ghz-demo --json" 60 demo/ghz_demo.txt build-bench/examples/ghz-demo \
            --rel 1e-1,1e-2,1e-3,1e-4,1e-5,1e-6 --json "$L/demo/ghz_demo.jsonl"
    fi
fi
if has fixed; then
    step "ghz-bench fixed" 150 bench_fixed.txt $B/bench/ghz-bench fixed --json "$L/bench_fixed.json" \
        --gen wave3d --gen smooth2d --gen noisy2d --gen ocean2d
fi

if has coll; then
    export OMPI_MCA_rmaps_base_oversubscribe=1
    backend=${GHZ_COLL_BACKEND:-}
    ranks=${GHZ_COLL_RANKS:-2 4}
    data=()
    maxnp=1
    for np in $ranks; do [ "$np" -gt "$maxnp" ] && maxnp=$np; done
    if python3 scripts/coll_rank_fields.py "$F" "$maxnp" >"$L/fields.log" 2>&1; then
        data=(--raw "$F"/rank*.f32)
    else
        say "== coll: no real per-rank fields ($(tail -1 "$L/fields.log")): ghz-coll-bench synthesizes its data"
    fi
    extra=()
    if [ -n "$backend" ]; then
        if $B/coll_bench/ghz-coll-bench --help 2>&1 | grep -q -- --backend; then
            extra=(--backend "$backend")
        else
            say "== coll: this ghz-coll-bench has no --backend: GHZ_COLL_BACKEND=$backend not run"
            status=1
            ranks=""
        fi
    fi
    tag=${backend:-cpu}
    for np in $ranks; do
        for coll in ${GHZ_COLL_COLLS:-allreduce reduce_scatter}; do
            json=$L/coll_${coll}_np${np}_$tag.jsonl
            # shellcheck disable=SC2086
            step "ghz-coll-bench $coll, $np ranks, $tag backend" 200 "coll_${coll}_np${np}_$tag.log" \
                mpirun --allow-run-as-root --bind-to none -np "$np" $B/coll_bench/ghz-coll-bench --coll "$coll" \
                ${GHZ_COLL_BENCH_ARGS:--b 1M -e 64M -f 4 -n 5 -w 1} -c 1 -d float -o sum --rel 1e-4 \
                --threads "${GHZ_COLL_THREADS:-1}" "${extra[@]}" "${data[@]}" --json "$json"
            grep -E "^# wrong|FAILED" "$L/coll_${coll}_np${np}_$tag.log" | head -3
            # which backend ran, for results_update.py's tables (where the bench does not say)
            [ -f "$json" ] && sed -i "/\"backend\"/!s/^{/{\"backend\":\"$tag\",/" "$json"
        done
    done
fi
finish
