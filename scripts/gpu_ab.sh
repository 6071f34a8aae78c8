#!/usr/bin/env bash
# scripts/gpu_ab.sh: builds of the CUDA ratio codec side by side on one GPU, in one run,
# so that a change is tested and timed against its baseline on the same card at the
# same time (docs/GPU.md). Two steps:
#
#   bash scripts/gpu_ab.sh pack VARIANT...   where nvcc is, no GPU needed
#   bash scripts/gpu_ab.sh run [STEP...]     on the GPU machine, with .device-carry/ab carried
#
# VARIANT is NAME=REV[+PATCH...][@FLAGS]: the tree of git revision REV with each PATCH
# applied (git apply), built with CMAKE_CUDA_FLAGS=FLAGS, e.g.
#   base=main  new=main+docs/history/ratio-gpu-boxes-rans.patch
#   f32=main+docs/history/ratio-f32-timing.patch@-DEXP_F32
# pack builds each in a worktree (build-ab/NAME/), and packs its test_cuda_ratio,
# test_cuda_badinput and ghz-bench, Criterion's libraries, and the real fields navy_uwnd
# and ETOPO5 (datasets/real/extract.sh's, xz) into .device-carry/ab/.
#
# run's STEPs, in this order (default: test small bench memcheck):
#   test      test_cuda_ratio and test_cuda_badinput of every variant but the first
#   small     ghz-bench codec --prefer ratio on the untiled fields, variants in turn, twice
#   bench     the same tiled to 1 GiB (--gib 1), variants in turn, twice
#   memcheck  compute-sanitizer memcheck of the last variant's test_cuda_ratio
#   racecheck racecheck of its cuda_ratio::output_at_any_byte (the boxes' shared memory)
#   ncu       warp states and source counters of dec_kernel and enc_rans_kernel on the
#             untiled navy_uwnd at REL 1e-3, first and last variant (files in $OUT/ab)
# A step starts only before GHZ_AB_DEADLINE seconds (default 480) have passed, so that
# a run under a time limit ends inside it with what ran. Everything printed is also
# in $OUT/ab/run.log.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root=$PWD
# shellcheck source=scripts/criterion_copy.sh
. scripts/criterion_copy.sh
CARRY=.device-carry/ab
say() { echo "gpu_ab: $*"; }

pack_variant() { # NAME=REV[+PATCH...][@FLAGS]
    local spec=$1 name rest rev flags="" wt bd p
    local -a patches
    name=${spec%%=*}
    rest=${spec#*=}
    [ "$rest" != "${rest%@*}" ] && flags=${rest#*@} && rest=${rest%%@*}
    rev=${rest%%+*}
    if [ -z "$name" ] || [ "$name" = "$spec" ] || [ -z "$rev" ]; then
        say "bad variant '$spec' (NAME=REV[+PATCH...][@FLAGS])"
        return 1
    fi
    wt=$root/build-ab/$name/src
    bd=$root/build-ab/$name/build
    rm -rf "$wt"
    git worktree prune
    git worktree add -q --detach "$wt" "$rev" || return 1
    if [ "$rest" != "$rev" ]; then
        IFS=+ read -r -a patches <<<"${rest#*+}"
        for p in "${patches[@]}"; do
            (cd "$wt" && git apply "$root/$p") || { say "$name: $p does not apply to $rev"; return 1; }
        done
    fi
    say "$name: $rev$([ "$rest" != "$rev" ] && echo " + ${rest#*+}")${flags:+, CUDA flags $flags}: building"
    if ! { cmake -S "$wt" -B "$bd" -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="${GHZ_GPU_ARCH:-90}" -DGHZ_ENABLE_MPI=OFF -DGHZ_ENABLE_NCCL=OFF \
        -DGHZ_BUILD_COLL=OFF ${flags:+"-DCMAKE_CUDA_FLAGS=$flags"} >"$root/build-ab/$name/configure.log" 2>&1 &&
        cmake --build "$bd" -j"$(nproc)" --target test_cuda_ratio test_cuda_badinput ghz-bench \
            >"$root/build-ab/$name/build.log" 2>&1; }; then
        say "$name: build failed (build-ab/$name/*.log)"
        return 1
    fi
    mkdir -p "$root/build-ab/$name/bin"
    for t in test_cuda_ratio test_cuda_badinput ghz-bench; do
        cp "$(find "$bd" -type f -name "$t" -perm -u+x | head -1)" "$root/build-ab/$name/bin/" &&
            strip "$root/build-ab/$name/bin/$t" || return 1
    done
    echo "$spec ($(git -C "$wt" rev-parse --short HEAD))" >"$root/build-ab/$name/bin/VARIANT"
    tar -cJf "$CARRY/$name.txz" -C "$root/build-ab/$name/bin" . || return 1
    echo "$name" >>"$CARRY/variants"
    git worktree remove --force "$wt"
}

pack() {
    local f
    [ $# -ge 1 ] || { say "pack needs at least one VARIANT"; exit 2; }
    rm -rf "$CARRY"
    mkdir -p "$CARRY"
    for v in "$@"; do pack_variant "$v" || exit 1; done
    criterion_copy "$CARRY/crit" || exit 1
    tar -cJf "$CARRY/lib.txz" -C "$CARRY/crit" lib && rm -rf "${CARRY:?}/crit"
    for f in datasets/out/real/navy_uwnd_*.f32 datasets/out/real/etopo5_relief_*.f32; do
        [ -e "$f" ] || { say "no $f: datasets/real/extract.sh first"; exit 1; }
        xz -T0 -c "$f" >"$CARRY/$(basename "$f").xz"
    done
    say "$CARRY: $(du -sm "$CARRY" | cut -f1) MiB to copy to the GPU machine beside the tree"
}

run() {
    local steps=" ${*:-test small bench memcheck} " W=/tmp/gpu_ab O=${OUT:-$root/gpu-out}/ab T0 v f
    local -a vs fields
    mkdir -p "$O" "$W"
    exec > >(tee -a "$O/run.log") 2>&1
    T0=$(date +%s)
    want() { case "$steps" in *" $1 "*) ! late ;; *) return 1 ;; esac; }
    late() { [ $(($(date +%s) - T0)) -gt "${GHZ_AB_DEADLINE:-480}" ]; }
    el() { echo "[t=$(($(date +%s) - T0))s] $*"; }
    mapfile -t vs <"$CARRY/variants"
    tar -C "$W" -xJf "$CARRY/lib.txz"
    export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
    for v in "${vs[@]}"; do mkdir -p "$W/$v" && tar -C "$W/$v" -xJf "$CARRY/$v.txz" && el "$v: $(cat "$W/$v/VARIANT")"; done
    for f in "$CARRY"/*.f32.xz; do
        xz -dc "$f" >"$W/$(basename "$f" .xz)"
        fields+=(--raw "$(basename "$f" | sed 's/_[0-9x]*\.f32\.xz$//'):$W/$(basename "$f" .xz)")
    done
    nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
    if want test; then
        for v in "${vs[@]:1}"; do
            el "test $v"
            (cd "$W/$v" && timeout 240 ./test_cuda_ratio --jobs 1 2>&1 | tail -3 && timeout 60 ./test_cuda_badinput 2>&1 | tail -2)
        done
    fi
    for s in small bench; do
        want "$s" || continue
        local -a tile=()
        [ "$s" = bench ] && tile=(--gib 1)
        for round in 1 2; do
            for v in "${vs[@]}"; do
                late && break 2
                el "$s $v (round $round)"
                timeout 120 "$W/$v/ghz-bench" codec --prefer ratio --reps 5 --rel 1e-2,1e-3,1e-4 \
                    ${tile[@]+"${tile[@]}"} "${fields[@]}" 2>&1 | grep -E "field|navy|etopo|rror|ghz-bench:" | sed "s/^/$v /"
            done
        done
    done
    if want memcheck; then
        v=${vs[-1]}
        el "memcheck $v"
        (cd "$W/$v" && GHZ_TEST_RATIO_SPREAD=0 timeout 240 compute-sanitizer --tool memcheck ./test_cuda_ratio --jobs 1 2>&1 | tail -4)
    fi
    if want racecheck; then
        v=${vs[-1]}
        el "racecheck $v"
        (cd "$W/$v" && timeout 240 compute-sanitizer --tool racecheck --racecheck-report all ./test_cuda_ratio --jobs 1 \
            --filter 'cuda_ratio/output_at_any_byte' 2>&1 | tail -4)
    fi
    if want ncu; then
        for v in "${vs[0]}" "${vs[-1]}"; do
            el "ncu $v"
            timeout 120 ncu --print-units base --kernel-name regex:"dec_kernel|enc_rans" --launch-count 2 \
                --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
                --section SourceCounters "$W/$v/ghz-bench" codec --prefer ratio --reps 1 --rel 1e-3 \
                --raw "navy_uwnd:$(ls "$W"/navy_uwnd_*.f32)" >"$O/ncu-$v.txt" 2>&1
            grep -E "enc_rans|dec_kernel|Duration|Warp Cycles Per Issued|Issued Ipc" "$O/ncu-$v.txt" | sed "s/^/$v /"
        done
    fi
    el "done"
}

case ${1:-} in
pack) shift && pack "$@" ;;
run) shift && run "$@" ;;
*) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
