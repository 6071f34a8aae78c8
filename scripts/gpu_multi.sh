#!/usr/bin/env bash
# scripts/gpu_multi.sh: the collective library on a machine of several GPUs, one GPU per
# rank (the tests and ghz-coll-bench place rank r on GPU r mod count), in one device
# call or, where the steps outlast one call, in several calls on the same warm machine
# (build-gpu and the logs under /tmp/gpu-multi stay between them; a step already done
# is not run again).
#
#   bash scripts/gpu_multi.sh [build] [homo] [tests] [ipctests] [collbench] [crossover] [quick] [mpismall] [auto] [big] [graph] [ab]
#                             [autoshared] [autotrace] [autohp] [abref] [homobench] [oneshot] [sanitize] [floor]
#                             [stagedrange] [altab] [rangeab] [scanab] [bindab] [chunkab]
#                                                   # default: all but abref, in that order
#
# build:     build-gpu with CUDA and the collectives; with `ab`, the two ghz-bench builds of
#            scripts/gpu_ab.sh (GHZ_MULTI_AB_MACRO, values GHZ_MULTI_AB_VALUES) alongside.
# homo:      test_cuda_homo on the last GPU, and the n-ary and in-place tests under
#            memcheck and racecheck, side by side with `tests` when both are asked for.
# tests:     scripts/gpu_coll.sh's MPI tests over both transports (1-4 ranks over MPI,
#            2-4 over CUDA IPC, two-level), ranks spread over the GPUs.
# collbench: ghz-coll-bench, 2 ranks on 2 GPUs, allreduce f32 SUM, REL 1e-4, real fields,
#            4 KiB to 1 GiB, over CUDA IPC and over MPI (GHZ_MULTI_COLLBENCH_ARGS; with
#            GHZ_MULTI_COLLBENCH_SHARED=1, over MPI again with both ranks on GPU 0).
# graph:     ghz-coll-bench --graph 1 (exact calls replayed from a CUDA graph) and the same
#            calls uncaptured, 2 ranks on 2 GPUs over CUDA IPC.
# ipctests:  scripts/gpu_coll.sh's tests over CUDA IPC only (2-4 ranks, two-level, memcheck),
#            and the exact part on 2 and 3 ranks with ipc_direct's one shot off
#            (GHZ_COLL_DIRECT_ONE_SHOT_MAX=0: its three phases at every size).
# crossover: where the host path of small exact calls should end (comm.c, host_path_limit):
#            ghz exact (AUTO) next to ipc_direct forced (one shot, and three phases), the
#            host path forced up to 1 MiB or limited to 8 or 16 KiB (GHZ_COLL_HOST_PATH_MAX)
#            and MPI_Allreduce host-staged, 4 KiB to 4 MiB, 2 ranks on 2 GPUs.
# stagedrange: the edge and lossy parts over MPI on 2 and 3 ranks with a staged lossy call's
#            range from the GPU kernel in the copy's wait and from the host scan
#            (GHZ_COLL_STAGED_RANGE=gpu, host), memcheck of the edge part the first way
#            (GHZ_MULTI_STAGED_WAYS, GHZ_MULTI_STAGED_NP: which ways, rank counts).
# rangeab:   a staged lossy call's range as configured, from the GPU kernel at every size
#            (it makes the copy too), from the host scan, and from the kernel beside the copy
#            engine's copy (GHZ_COLL_STAGED_FUSED_MAX=0), 4 KiB to 1 MiB over MPI with AUTO's
#            phases, a GPU per rank and both ranks on GPU 0 (GHZ_MULTI_RANGE_WAYS: which).
# scanab:    both ranks on GPU 0: the staged host scan with a team of 4 against one thread
#            (GHZ_COLL_HOST_THREADS), 256 KiB to 4 MiB over MPI, traced, interleaved twice.
# bindab:    unbound ranks (as every other step) against ranks bound to their GPU's local
#            CPUs (scripts/bind_gpu_local.sh), host teams of 4 and 8, 64 KiB to 4 MiB over
#            MPI, traced, interleaved twice; both ranks on GPU 0, then one GPU per rank.
# chunkab:   the MPI transport's pipeline chunk (--chunk 2M 8M 32M 64M) for ghz homomorphic,
#            16-256 MiB, both ranks on GPU 0, then one GPU per rank.
# altab:     this tree's ghz-coll-bench against build-gpu/alt/'s (GHZ_PREBUILD_ALT), auto, exact
#            and MPI pinned over MPI, 64 KiB to 4 MiB, interleaved twice, both ranks on GPU 0
#            and then (where there are two) one GPU per rank.
# quick:     the edge part over CUDA IPC on 2 and 3 ranks, and AUTO's exact allreduce against
#            MPI_Allreduce (pinned staging) from 4 KiB to 4 MiB: a short check of a commit.
# mpismall:  the host-staged MPI transport from 4 KiB to 1 MiB, homo and exact (AUTO) against
#            MPI_Allreduce (pinned staging), out of place and in place, 2 ranks; then exact
#            and MPI again with --sync 1 (every call ends synchronized, both modes), with
#            the host path on ghz's own CPU algorithms (GHZ_COLL_MPI_MAX=0), and as first.
# auto:      ghz-coll-bench's auto row (GHZ_PATH_AUTO) against exact, homo and MPI pinned,
#            4 KiB to 16 MiB, 100 warm-up calls a size, over MPI and CUDA IPC, 2 ranks.
# autoshared: the auto step with both ranks on GPU 0 (CUDA_VISIBLE_DEVICES=0: they share it).
# autotrace: AUTO's decisions and each call's phases (GHZ_COLL_AUTO_TRACE=2) over MPI, 64 KiB
#            to 4 MiB, both ranks on GPU 0 and then one GPU per rank (where there are two):
#            per size, AUTO's calls and the exact row's apart, where they ran, how many,
#            and the median of each phase (tail, copy, range, agreement, host call, ...).
# autohp:    the auto step over MPI from 256 KiB to 16 MiB with the host path and MPI's own
#            allreduce up to 16 MiB (GHZ_COLL_HOST_PATH_MAX, GHZ_COLL_MPI_MAX): where the
#            host path should end over MPI and where ranks share a GPU.
# big:       1 GiB compressed and exact allreduce over CUDA IPC with a 1 GiB pool (one
#            round: the GPU time per phase without the pool's rounds).
# ab:        the A/B of GHZ_MULTI_AB_MACRO with `ghz-bench homo`, on GPU 0 alone.
# abref:     this tree against a reference one (GHZ_MULTI_REF, default .device-carry/ref-src,
#            e.g. `git archive COMMIT | tar -x -C .device-carry/ref-src`; its ghz-bench is
#            built in the build step): `ghz-bench homo` and `ghz-bench codec --rel 1e-4`
#            of both on the same fields, one after the other, on GPU 0 alone.
# homobench: `ghz-bench homo` of this tree alone on GPU 0, GHZ_MULTI_HOMO_ROUNDS runs (default
#            2; the real fields and generators of abref): binary homo and DOC, sum4 against
#            dec4, in place against out of place and out of place + copy back.
# oneshot:   ipc_direct's exact allreduce as configured (two ranks: one shot at every size)
#            against its three phases (GHZ_COLL_DIRECT_ONE_SHOT_MAX=0), 1 to 64 MiB, 2 ranks.
# sanitize:  memcheck over CUDA IPC and MPI, 2 ranks on 2 GPUs (errors, edge).
# floor:     one GPU decompression of 1 GiB of navy_uwnd (the floor of a compressed
#            allreduce's GPU time per rank).
#
# GHZ_MULTI_ABREF_ROUNDS (default 2): abref's interleaved homo runs of each tree;
# GHZ_MULTI_ABREF_CODEC=0 leaves out its codec runs.
# GHZ_MULTI_TARGETS: what `build` builds (default: every target the steps use).
# GHZ_MULTI_DEADLINE (seconds, default 540): a step that would start later than this after
# the call began is left for the next call (its name is printed as "left: STEP").
# Carry ".device-carry" (Criterion) and "datasets/out/real". Results: $OUT/multi.tgz.
# With binaries built before the call (scripts/gpu_prebuild.sh: .device-carry/prebuilt.tar.xz,
# unpacked into build-gpu/ with PREBUILT), the build step only puts CUDA's libraries on
# the path; the collectives' fields come from .device-carry/fields.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
L=/tmp/gpu-multi
mkdir -p "$L"
C=$PWD/.device-carry/crit
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN="mpirun --oversubscribe --allow-run-as-root --bind-to none"
DEADLINE=${GHZ_MULTI_DEADLINE:-540}
AB_MACRO=${GHZ_MULTI_AB_MACRO:-GHZ_CUDA_HOMO_SHIFT_VEC}
AB_VALUES=${GHZ_MULTI_AB_VALUES:-0 1}
REF=${GHZ_MULTI_REF:-$PWD/.device-carry/ref-src}
t0=$(date +%s)
since() { echo "$(($(date +%s) - t0)) s"; }
steps=" ${*:-build homo tests ipctests collbench crossover quick big graph ab oneshot sanitize floor} "
has() { [[ $steps == *" $1 "* ]]; }
pack() { tar czf "$OUT/multi.tgz" -C "$L" . 2>/dev/null; }
# run_step NAME: 0 when NAME is asked for, not yet done and there is time left for it
run_step() {
    has "$1" || return 1
    [ -e "$L/done.$1" ] && { echo "== $1: done in an earlier call"; return 1; }
    if [ $(($(date +%s) - t0)) -gt "$DEADLINE" ]; then
        echo "left: $1"
        return 1
    fi
    echo "== $1 ($(since))"
    return 0
}
done_step() { touch "$L/done.$1"; pack; }
ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nvidia-smi topo -m; } \
    >"$L/gpu.txt" 2>&1
head -"$ngpu" "$L/gpu.txt"
last=$((ngpu - 1))

# binaries built before the call (scripts/gpu_prebuild.sh) need CUDA's runtime library
[ -e build-gpu/PREBUILT ] || [ ! -e .device-carry/prebuilt.tar.xz ] || tar -xJf .device-carry/prebuilt.tar.xz
[ -e build-gpu/PREBUILT ] && export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:$LD_LIBRARY_PATH

if run_step build; then
    if [ -e build-gpu/PREBUILT ]; then
        echo "prebuilt: $(tr '\n' ' ' <build-gpu/PREBUILT)"
    else
        has ab && (GHZ_AB_BENCH=homo GHZ_AB_ONLY=build bash scripts/gpu_ab.sh "$AB_MACRO" "$AB_VALUES" \
            >"$L/ab-build.log" 2>&1) &
        has abref && [ -d "$REF" ] && (cmake -S "$REF" -B /tmp/ghz-ref -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON \
            -DCMAKE_CUDA_ARCHITECTURES=90 -DGHZ_BUILD_TESTS=OFF >"$L/ref-build.log" 2>&1 &&
            cmake --build /tmp/ghz-ref -j"$(nproc)" --target ghz-bench >>"$L/ref-build.log" 2>&1 ||
            echo "reference build failed" >>"$L/ref-build.log") &
        cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
            -DGHZ_BUILD_COLL=ON -DPKG_CONFIG_EXECUTABLE=/nonexistent -DGHZ_CRITERION_INCLUDE="$C/include" \
            -DGHZ_CRITERION_LIBRARY="$C/lib/libcriterion.so" >"$L/configure.log" 2>&1 &&
            cmake --build build-gpu -j"$(nproc)" --target ${GHZ_MULTI_TARGETS:-test_cuda_homo test_cuda_coll_reduce \
                test_coll_mpi_cuda ghz-bench ghz-coll-bench} >"$L/build.log" 2>&1 ||
            { grep -E "error" "$L/build.log" "$L/configure.log" | head -30; pack; exit 1; }
        wait
        tail -2 "$L/ab-build.log" 2>/dev/null
        echo "built ($(since))"
    fi
    done_step build
fi

# homo: in the background on the last GPU while the MPI tests run
homo_pid=
if run_step homo; then
    (
        H=build-gpu/test/gpu/test_cuda_homo
        export CUDA_VISIBLE_DEVICES=$last
        timeout 300 $H --jobs 1 --verbose >"$L/test-homo.log" 2>&1
        echo $? >"$L/test-homo.rc"
        for tool in memcheck racecheck; do
            for f in 'cuda_homo_nary/inplace_shrink_and_recompute' \
                'cuda_homo_nary/@(sum_n_classes_equal_cpu|sum_n_errors_as_cpu)' \
                'cuda_homo/@(empty_frame|mismatch_and_corruption_reported|few_tiles_pairs_of_classes)'; do
                tag=$(echo "$f" | tr -c 'a-z0-9\n' '_' | cut -c1-40)
                timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $H --jobs 1 --filter "$f" \
                    >"$L/san-homo-$tool-$tag.log" 2>&1
                echo $? >"$L/san-homo-$tool-$tag.rc"
            done
        done
    ) &
    homo_pid=$!
fi

if run_step tests; then
    GHZ_GPU_COLL_TAG=tests GHZ_GPU_COLL_TIMEOUT=${GHZ_MULTI_TEST_TIMEOUT:-200} OUT="$L" \
        bash scripts/gpu_coll.sh mpi ipc 2>&1 | grep -E "^==|CHECK|rror|finished" | head -60
    done_step tests
fi

if [ -n "$homo_pid" ]; then
    wait "$homo_pid"
    echo "== test_cuda_homo: exit $(cat "$L/test-homo.rc"), $(grep Synthesis "$L/test-homo.log" | tail -1)"
    grep -E "FAIL|Assert" "$L/test-homo.log" | head -5
    for f in "$L"/san-homo-*.rc; do
        b=${f%.rc}
        echo "== $(basename "$b"): exit $(cat "$f"), $(grep -cE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" "$b.log") clean"
    done
    done_step homo
fi

fields() { # (gpu_prebuild.sh writes them before the call: then datasets/ need not travel)
    [ -d "$L/fields" ] || { [ -d .device-carry/fields ] && cp -r .device-carry/fields "$L/fields"; } ||
        python3 scripts/coll_rank_fields.py "$L/fields" 4 >/dev/null
}
collbench() { # collbench TAG TRANSPORT ARGS... (the environment reaches the ranks: one host)
    local tag=$1 tr=$2
    shift 2
    fields
    GHZ_COLL_TRANSPORT=$tr timeout 400 $MPIRUN -np 2 \
        ${GHZ_MULTI_BENCH:-build-gpu/ghz/tools/coll_bench/ghz-coll-bench} --backend cuda --rel 1e-4 -d float \
        --raw "$L"/fields/rank*.f32 --json "$L/collbench-$tag.jsonl" "$@" >"$L/collbench-$tag.log" 2>&1
    echo "== collbench $tag: exit $? ($(since))"
    grep -vE "^#  *[a-z]|^ghz " "$L/collbench-$tag.log" | tail -30
}
# phases LOG: per size, lossy (AUTO) and exact calls apart, where they ran: how many, and
# the median of each phase (us) of GHZ_COLL_AUTO_TRACE=2's "ghz call" lines (rank 0)
phases() {
    python3 - "$1" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"ghz call: (\d+) bytes, (\w+), (.*?): (.*) us$", line.strip())
    if not m:
        continue
    key = (int(m[1]), m[2], m[3])
    phases = [(p.rsplit(" ", 1)[0], float(p.rsplit(" ", 1)[1])) for p in m[4].split(", ")]
    rows.setdefault(key, []).append(phases)
for key, calls in sorted(rows.items()):
    names = [n for n, _ in calls[0]]
    med = [statistics.median(c[i][1] for c in calls) for i in range(len(names))]
    print(f"{key[0]:>8} {key[1]:5} {key[2]:28} n={len(calls):3}: " +
          ", ".join(f"{n} {v:.1f}" for n, v in zip(names, med)))
PY
}
if run_step collbench; then
    for tr in ipc mpi; do
        collbench "$tr" "$tr" ${GHZ_MULTI_COLLBENCH_ARGS:--b 4K -e 1G -f 4 -n 10 -w 3 -c 1}
    done
    # GHZ_MULTI_COLLBENCH_SHARED=1: over MPI once more with both ranks on GPU 0
    if [ "${GHZ_MULTI_COLLBENCH_SHARED:-0}" = 1 ]; then
        CUDA_VISIBLE_DEVICES=0 collbench shared-mpi mpi ${GHZ_MULTI_COLLBENCH_ARGS:--b 4K -e 1G -f 4 -n 10 -w 3 -c 1}
    fi
    done_step collbench
fi

if run_step ipctests; then
    GHZ_GPU_COLL_TAG=ipctests GHZ_GPU_COLL_TIMEOUT=${GHZ_MULTI_TEST_TIMEOUT:-200} OUT="$L" \
        bash scripts/gpu_coll.sh ipc 2>&1 | grep -E "^==|CHECK|rror|finished" | head -40
    for np in 2 3; do
        GHZ_COLL_DIRECT_ONE_SHOT_MAX=0 GHZ_COLL_TRANSPORT=ipc timeout 200 $MPIRUN -np $np \
            build-gpu/test/coll/test_coll_mpi_cuda exact >"$L/exact-3phase-np$np.log" 2>&1
        echo "== exact over CUDA IPC, one shot off, $np ranks: exit $?, $(tail -1 "$L/exact-3phase-np$np.log")"
    done
    done_step ipctests
fi

if run_step crossover; then
    x="-b 4K -e 4M -f 2 -n 20 -w 5 -c 1"
    collbench small-auto ipc $x --paths exact,mpi,mpi-pinned
    collbench small-direct ipc $x --paths exact --algo ipc_direct
    GHZ_COLL_DIRECT_ONE_SHOT_MAX=0 collbench small-direct3 ipc $x --paths exact --algo ipc_direct
    GHZ_COLL_HOST_PATH_MAX=1048576 collbench small-host ipc $x --paths exact
    GHZ_COLL_HOST_PATH_MAX=8192 collbench small-h8k ipc -b 4K -e 64K -f 2 -n 20 -w 5 -c 1 --paths exact
    GHZ_COLL_HOST_PATH_MAX=16384 collbench small-h16k ipc -b 4K -e 64K -f 2 -n 20 -w 5 -c 1 --paths exact
    done_step crossover
fi

if run_step quick; then
    for np in 2 3; do
        GHZ_COLL_TRANSPORT=ipc timeout 100 $MPIRUN -np $np build-gpu/test/coll/test_coll_mpi_cuda edge \
            >"$L/edge-quick-np$np.log" 2>&1
        echo "== edge over CUDA IPC, $np ranks: exit $?, $(tail -1 "$L/edge-quick-np$np.log")"
    done
    collbench quick ipc -b 4K -e 4M -f 2 -n 20 -w 5 -c 1 --paths exact,mpi-pinned
    done_step quick
fi

if run_step mpismall; then
    collbench mpismall mpi -b 4K -e 1M -f 2 -n 20 -w 5 -c 1 --paths homo,exact,mpi-pinned
    collbench mpismall-sync mpi -b 4K -e 1M -f 2 -n 20 -w 5 -c 1 --paths exact,mpi-pinned --sync 1
    # the host path's CPU algorithm as ghz's own (GHZ_COLL_MPI_MAX=0: recursive doubling,
    # ring) instead of MPI_Allreduce, then the default again (run-to-run noise)
    GHZ_COLL_MPI_MAX=0 collbench mpismall-own mpi -b 4K -e 1M -f 2 -n 20 -w 5 -c 1 --paths exact,mpi-pinned
    collbench mpismall-again mpi -b 4K -e 1M -f 2 -n 20 -w 5 -c 1 --paths exact,mpi-pinned
    done_step mpismall
fi

if run_step auto; then
    # ghz's own choice (GHZ_PATH_AUTO, compressed or exact as it measures per size) next
    # to both paths and MPI pinned, after 100 calls of warm-up: times average calls
    # 100-199 of each size, out of place (the retries, 8 to 512 calls apart, included)
    for tr in mpi ipc; do
        collbench "auto-$tr" "$tr" -b 4K -e 16M -f 4 -n 100 -w 100 -c 1 --paths auto,exact,homo,mpi-pinned
    done
    done_step auto
fi

if run_step autoshared; then
    for tr in mpi ipc; do
        CUDA_VISIBLE_DEVICES=0 collbench "autoshared-$tr" "$tr" -b 4K -e 16M -f 4 -n 100 -w 100 -c 1 \
            --paths auto,exact,homo,mpi-pinned
    done
    done_step autoshared
fi

if run_step autotrace; then
    for gpus in 0 "${CUDA_VISIBLE_DEVICES:-all}"; do
        [ "$gpus" = all ] && [ "$ngpu" -lt 2 ] && continue
        fields
        echo "== autotrace, GPUs: $gpus"
        (if [ "$gpus" != all ]; then export CUDA_VISIBLE_DEVICES=$gpus; fi
         GHZ_COLL_AUTO_TRACE=2 GHZ_COLL_TRANSPORT=mpi timeout 300 $MPIRUN -np 2 \
            build-gpu/ghz/tools/coll_bench/ghz-coll-bench --backend cuda --rel 1e-4 -d float \
            --raw "$L"/fields/rank*.f32 -b 64K -e 4M -f 4 -n 100 -w 100 -c 1 --paths auto,exact) \
            >"$L/autotrace-$gpus.log" 2>&1
        grep -E '^ +[0-9]+ ' "$L/autotrace-$gpus.log" | awk '{printf "%10s %-6s %9s %9s\n", $1, $6, $7, $16}'
        phases "$L/autotrace-$gpus.log"
    done
    done_step autotrace
fi

if run_step stagedrange; then
    # a staged lossy call's range either way (comm.h, staged_range_gpu): the GPU kernel in
    # the copy's wait (the default with a GPU per rank) and the host scan (where ranks
    # share one), whatever this machine's default; memcheck on the kernel's way
    for way in ${GHZ_MULTI_STAGED_WAYS:-gpu host}; do
        for part in edge lossy; do
            for np in ${GHZ_MULTI_STAGED_NP:-2 3}; do
                GHZ_COLL_STAGED_RANGE=$way GHZ_COLL_TRANSPORT=mpi timeout 150 $MPIRUN -np $np \
                    build-gpu/test/coll/test_coll_mpi_cuda $part >"$L/staged-$way-$part-np$np.log" 2>&1
                echo "== staged range $way, $part over MPI, $np ranks: exit $?, $(tail -1 "$L/staged-$way-$part-np$np.log")"
            done
        done
    done
    GHZ_COLL_STAGED_RANGE=gpu GHZ_COLL_TRANSPORT=mpi timeout 300 $MPIRUN -np 2 compute-sanitizer --tool memcheck \
        build-gpu/test/coll/test_coll_mpi_cuda edge >"$L/staged-gpu-memcheck.log" 2>&1
    echo "== staged range gpu, memcheck edge, 2 ranks: exit $?, $(grep -c 'ERROR SUMMARY: 0 errors' "$L/staged-gpu-memcheck.log") clean"
    done_step stagedrange
fi

if run_step rangeab; then
    # a staged lossy call's range from the host scan, from the GPU kernel and
    # as configured (comm.c, STAGED_RANGE_GPU_MIN), 4 KiB to 1 MiB over MPI, AUTO's phases
    # traced, with a GPU per rank (where there are two) and then both ranks on GPU 0
    for gpus in all 0; do
        [ "$gpus" = all ] && [ "$ngpu" -lt 2 ] && continue
        for way in ${GHZ_MULTI_RANGE_WAYS:-default gpu host}; do
            (if [ "$gpus" != all ]; then export CUDA_VISIBLE_DEVICES=$gpus; fi
             case $way in
             default) ;;
             *) export GHZ_COLL_STAGED_RANGE=$way ;;    # gpu, host or a byte count
             esac
             GHZ_COLL_AUTO_TRACE=2 collbench "rangeab-$gpus-$way" mpi -b 4K -e 1M -f 2 -n 100 -w 100 -c 1 \
                 --paths auto,exact,mpi-pinned)
            phases "$L/collbench-rangeab-$gpus-$way.log" | grep lossy
        done
    done
    done_step rangeab
fi

if run_step scanab; then
    # where ranks share a GPU: the host scan of a staged lossy call with the host
    # communicator's team of 4 (default) against one thread (GHZ_COLL_HOST_THREADS=1),
    # interleaved twice, 256 KiB to 4 MiB over MPI, AUTO's phases traced (comm.c, make_host:
    # the host call after a team's scan ran 7-16 % slower than the exact row's)
    for round in 1 2; do
        for th in 4 1; do
            (export CUDA_VISIBLE_DEVICES=0 GHZ_COLL_HOST_THREADS=$th
             GHZ_COLL_AUTO_TRACE=2 collbench "scanab-$th-$round" mpi -b 256K -e 4M -f 2 -n 100 -w 100 -c 1 \
                 --paths auto,exact,mpi-pinned)
            phases "$L/collbench-scanab-$th-$round.log" | grep "host path"
        done
    done
    done_step scanab
fi

if run_step bindab; then
    # both ranks on GPU 0 (and then one GPU per rank, where there are two): unbound, as every
    # other step runs (mpirun --bind-to none), against each rank bound to its GPU's local
    # CPUs (scripts/bind_gpu_local.sh), with the host communicator's team of 4 and of 8
    # (GHZ_COLL_HOST_THREADS): what the host scan of a staged lossy call's range, the
    # staging copies and MPI's call cost where the memory and the threads sit. 64 KiB to
    # 4 MiB over MPI, AUTO's phases traced, interleaved twice (GHZ_MULTI_BIND_WAYS).
    { lscpu | grep -E "^(Model name|Socket|NUMA node|Core|Thread)"; nvidia-smi topo -m; } >"$L/bind-machine.txt" 2>&1
    head -12 "$L/bind-machine.txt"
    for gpus in 0 all; do
        [ "$gpus" = all ] && [ "$ngpu" -lt 2 ] && continue
        for round in 1 2; do
            for way in ${GHZ_MULTI_BIND_WAYS:-none:4 local:4 local:8}; do
                (if [ "$gpus" != all ]; then export CUDA_VISIBLE_DEVICES=$gpus; fi
                 export GHZ_COLL_HOST_THREADS=${way#*:}
                 b=build-gpu/ghz/tools/coll_bench/ghz-coll-bench
                 [ "${way%:*}" = local ] && b="bash scripts/bind_gpu_local.sh $b"
                 GHZ_MULTI_BENCH=$b GHZ_COLL_AUTO_TRACE=2 collbench "bindab-$gpus-${way/:/-}-$round" mpi \
                     -b 64K -e 4M -f 4 -n 100 -w 100 -c 1 --paths auto,exact,mpi-pinned >/dev/null)
                echo "== bindab GPUs $gpus, $way, round $round"
                phases "$L/collbench-bindab-$gpus-${way/:/-}-$round.log" | grep "host path"
            done
        done
    done
    done_step bindab
fi

if run_step chunkab; then
    # the pipeline chunk of the host-staged MPI transport (comm.c, DEFAULT_CHUNK_CUDA: 8 MiB)
    # for ghz homomorphic, 16 MiB to 256 MiB, both ranks on GPU 0 and then (where there
    # are two) one GPU per rank (GHZ_MULTI_CHUNKS: the chunks to try)
    for gpus in 0 all; do
        [ "$gpus" = all ] && [ "$ngpu" -lt 2 ] && continue
        for ch in ${GHZ_MULTI_CHUNKS:-2M 8M 32M 64M}; do
            (if [ "$gpus" != all ]; then export CUDA_VISIBLE_DEVICES=$gpus; fi
             collbench "chunkab-$gpus-$ch" mpi -b 16M -e 256M -f 4 -n 3 -w 1 -c 0 --paths homo --chunk "$ch" \
                 >/dev/null)
            echo "== chunkab GPUs $gpus, chunk $ch"
            grep -E '^ +[0-9]+ ' "$L/collbench-chunkab-$gpus-$ch.log" | awk '{printf "%10s %-6s %10s %10s\n", $1, $6, $7, $16}'
        done
    done
    done_step chunkab
fi

if run_step altab; then
    # this tree's ghz-coll-bench against another build's (build-gpu/alt/, gpu_prebuild.sh with
    # GHZ_PREBUILD_ALT), interleaved twice, both ranks on GPU 0 over MPI, then one GPU per rank
    [ -x build-gpu/alt/ghz-coll-bench ] && echo "alt: $(cat build-gpu/alt/COMMIT 2>/dev/null)"
    for gpus in 0 all; do
        [ "$gpus" = all ] && [ "$ngpu" -lt 2 ] && continue
        for round in 1 2; do
            for b in main alt; do
                bin=build-gpu/ghz/tools/coll_bench/ghz-coll-bench
                [ $b = alt ] && bin=build-gpu/alt/ghz-coll-bench
                [ -x "$bin" ] || continue
                (if [ "$gpus" != all ]; then export CUDA_VISIBLE_DEVICES=$gpus; fi
                 GHZ_MULTI_BENCH=$bin collbench "altab-$gpus-$b-$round" mpi -b 64K -e 4M -f 4 -n 100 -w 100 -c 1 \
                     --paths auto,exact,mpi-pinned)
            done
        done
    done
    done_step altab
fi

if run_step autohp; then
    GHZ_COLL_HOST_PATH_MAX=16777216 GHZ_COLL_MPI_MAX=16777216 \
        collbench auto-hp mpi -b 256K -e 16M -f 4 -n 100 -w 100 -c 1 --paths auto,exact,homo,mpi-pinned
    done_step autohp
fi

if run_step big; then
    collbench big ipc -b 1G -e 1G -n 5 -w 2 -c 1 --paths homo,exact --pool 1G
    done_step big
fi

if run_step graph; then
    collbench graph ipc -b 4K -e 256M -f 4 -n 20 -w 5 -c 1 --paths exact --graph 1
    collbench nograph ipc -b 4K -e 256M -f 4 -n 20 -w 5 -c 1 --paths exact
    done_step graph
fi

if run_step ab; then
    CUDA_VISIBLE_DEVICES=0 GHZ_AB_BENCH=homo GHZ_AB_ONLY=bench bash scripts/gpu_ab.sh "$AB_MACRO" "$AB_VALUES" \
        >"$L/ab.txt" 2>&1
    cat "$L/ab.txt"
    done_step ab
fi

if run_step abref; then
    if [ ! -x /tmp/ghz-ref/ghz/tools/bench/ghz-bench ]; then
        echo "abref: no reference build (GHZ_MULTI_REF=$REF: $(tail -1 "$L/ref-build.log" 2>/dev/null || echo missing))"
    else
        real=datasets/out/real
        fargs=(--gen smooth2d --gen wave3d --raw "etopo5_relief:$real/etopo5_relief_2160x2160.f32"
            --raw "navy_uwnd:$real/navy_uwnd_144x73x132.f32"
            --raw "coads_sst:$real/coads_sst_180x90x12.f32:-9.999999790214768e+33")
        tail -1 "$L/ref-build.log"
        for which in $(for i in $(seq "${GHZ_MULTI_ABREF_ROUNDS:-2}"); do echo ref new; done); do # interleaved: the GPU's drift shows
            [ $which = ref ] && b=/tmp/ghz-ref/ghz/tools/bench/ghz-bench || b=build-gpu/ghz/tools/bench/ghz-bench
            echo "== $which: homo (field GiB REL ratio homo DOC ...; field REL sum4 dec4 %dec inplace outplace ok)"
            CUDA_VISIBLE_DEVICES=0 timeout 150 "$b" homo --json /dev/null "${fargs[@]}" 2>&1 |
                grep -E '^ *[a-z0-9_]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.]+ |FAILED'
        done 2>&1 | tee "$L/abref-homo.txt"
        [ "${GHZ_MULTI_ABREF_CODEC:-1}" = 1 ] && for which in ref new; do
            [ $which = ref ] && b=/tmp/ghz-ref/ghz/tools/bench/ghz-bench || b=build-gpu/ghz/tools/bench/ghz-bench
            echo "== $which: codec (field REL ratio comp-rg decomp identical bad)"
            CUDA_VISIBLE_DEVICES=0 timeout 150 "$b" codec --rel 1e-4 --json /dev/null "${fargs[@]}" 2>&1 |
                awk '/^[a-z0-9_]+ +[0-9.]+ +[0-9.e-]+ +[0-9.]+ / {print $1, $3, $4, $9, $11, $13, $14}'
        done 2>&1 | tee "$L/abref-codec.txt"
    fi
    done_step abref
fi

if run_step homobench; then
    real=datasets/out/real
    for i in $(seq "${GHZ_MULTI_HOMO_ROUNDS:-2}"); do
        echo "== round $i: homo (field GiB REL ratio homo DOC ...; field REL sum4 dec4 %dec inplace outplace out+back ok)"
        CUDA_VISIBLE_DEVICES=0 timeout 150 build-gpu/ghz/tools/bench/ghz-bench homo --json /dev/null \
            --gen smooth2d --gen wave3d --raw "etopo5_relief:$real/etopo5_relief_2160x2160.f32" \
            --raw "navy_uwnd:$real/navy_uwnd_144x73x132.f32" \
            --raw "coads_sst:$real/coads_sst_180x90x12.f32:-9.999999790214768e+33" 2>&1 |
            grep -E '^ *[a-z0-9_]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.]+ |FAILED'
    done 2>&1 | tee "$L/homobench.txt"
    done_step homobench
fi

if run_step oneshot; then
    x="-b 1M -e 64M -f 2 -n 20 -w 5 -c 1 --paths exact --algo ipc_direct"
    collbench oneshot-default ipc $x
    GHZ_COLL_DIRECT_ONE_SHOT_MAX=0 collbench oneshot-off ipc $x
    done_step oneshot
fi

if run_step sanitize; then
    for tr in ipc mpi; do
        for part in errors edge; do
            (GHZ_COLL_TRANSPORT=$tr timeout 300 $MPIRUN -np 2 -x GHZ_COLL_TRANSPORT compute-sanitizer --tool memcheck \
                --error-exitcode 9 build-gpu/test/coll/test_coll_mpi_cuda "$part" >"$L/memcheck-$tr-$part.log" 2>&1
             echo "== memcheck $tr $part (2 ranks, 2 GPUs): exit $?, $(grep -c 'ERROR SUMMARY: 0 errors' \
                "$L/memcheck-$tr-$part.log") clean ($(since))") &
        done
        wait
    done
    done_step sanitize
fi

if run_step floor; then
    CUDA_VISIBLE_DEVICES=0 timeout 200 build-gpu/ghz/tools/bench/ghz-bench codec --rel 3.3e-5 --gib 1 --reps 5 \
        --raw navy_uwnd:datasets/out/real/navy_uwnd_144x73x132.f32 --json "$L/floor.json" >"$L/floor.txt" 2>&1
    tail -8 "$L/floor.txt"
    done_step floor
fi
echo "finished ($(since))"
pack
