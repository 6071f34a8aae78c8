#!/usr/bin/env bash
# scripts/gpu_coll.sh: the collective library on a GPU machine, in one device call:
# build everything with CUDA; the GPU reductions' test; the MPI tests on the CUDA
# backend with 1 to 4 ranks sharing the GPU (ctest -L gpu -R coll.gpu); compute-sanitizer
# memcheck on two ranks of the MPI test and on the reductions' test; `ghz-bench reduce`;
# ghz-coll-bench with the CUDA backend. Logs and JSON in $OUT/gpu-coll[-TAG].tgz.
#
#   bash scripts/gpu_coll.sh [test] [mpi] [ipc] [move] [memcheck] [bench] [collbench]   # default: all
#
# move: the data-movement test (test_coll_move_cuda: exact, lossy, errors) on 1 to 4 ranks
# over MPI and 2 to 4 over CUDA IPC, and memcheck of two ranks (errors, lossy).
#
# ipc: the MPI tests over the CUDA IPC transport (GHZ_COLL_TRANSPORT=ipc) with 2 to 4 ranks
# sharing the GPU (the ranks of GHZ_GPU_COLL_IPC_RANKS, default "2 3 4"), the two-level
# test on 4 ranks as two "nodes" of 2, then memcheck of two ranks over it (errors, edge).
#
# Carry ".device-carry" (Criterion) and "datasets/out/real" (collbench's real fields).
# racecheck: compute-sanitizer racecheck on the GPU reductions' test and on two ranks of the
# MPI test (the kernels' shared memory).
#
# GHZ_GPU_COLL_RANKS: the rank counts of the MPI tests (default "1 2 3 4"), run side by side
# on the GPU (one part at a time); GHZ_GPU_COLL_PARTS: which parts (default "errors edge
# lossy exact"); GHZ_GPU_COLL_TIMEOUT: seconds one MPI run may take (default 240): a hang
# costs that, not the whole call. collbench runs once over MPI (host-staged) and once over
# CUDA IPC.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
L=$(mktemp -d /tmp/gpu-coll.XXXXXX)
# the device brings back at most 8 files: the logs travel as one tarball, rewritten
# after every step so that a call cut short still brings back what ran
# (GHZ_GPU_COLL_TAG names it, so that several runs of this script in one call keep theirs)
TGZ="$OUT/gpu-coll${GHZ_GPU_COLL_TAG:+-$GHZ_GPU_COLL_TAG}.tgz"
checkpoint() { tar czf "$TGZ" -C "$L" . 2>/dev/null; }
steps=" ${*:-test mpi ipc move memcheck racecheck bench collbench floor} "
TMO=${GHZ_GPU_COLL_TIMEOUT:-240}
has() { [[ $steps == *" $1 "* ]]; }
C=$PWD/.device-carry/crit
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_MCA_rmaps_base_oversubscribe=1
status=0
t0=$(date +%s)
since() { echo "$(($(date +%s) - t0)) s"; }
finish() { echo "finished in $(since), status $status"; checkpoint; exit $status; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
[ -e build-gpu/PREBUILT ] || [ ! -e .device-carry/prebuilt.tar.xz ] || tar -xJf .device-carry/prebuilt.tar.xz
if [ -e build-gpu/PREBUILT ]; then # scripts/gpu_prebuild.sh: built before the call
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:$LD_LIBRARY_PATH
    echo "prebuilt: $(tr '\n' ' ' <build-gpu/PREBUILT)"
else
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGHZ_BUILD_COLL=ON -DPKG_CONFIG_EXECUTABLE=/nonexistent -DGHZ_CRITERION_INCLUDE="$C/include" \
    -DGHZ_CRITERION_LIBRARY="$C/lib/libcriterion.so" ${GHZ_CMAKE_ARGS:-} >"$L/configure.log" 2>&1 ||
    { tail -30 "$L/configure.log"; status=1; finish; }
cmake --build build-gpu -j"$(nproc)" --target test_cuda_coll_reduce test_coll_mpi_cuda test_coll_move_cuda ghz-bench ghz-coll-bench \
    >"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -30; status=1; finish; }
echo "built in $(since)"
fi
MPIRUN="mpirun --oversubscribe --allow-run-as-root --bind-to none"
if has test; then
    timeout 300 build-gpu/test/gpu/test_cuda_coll_reduce --jobs 1 --verbose >"$L/coll-reduce.log" 2>&1 || status=1
    echo "== test_cuda_coll_reduce: $(grep Synthesis "$L/coll-reduce.log" | tail -1) ($(since))"
    grep -E "FAIL|Assert" "$L/coll-reduce.log" | head -5
fi
# One run of the MPI test: mpi_test LABEL NP PART [VAR=value ...] (variables exported to
# every rank), in the background; its log is $L/mpi-LABEL.log, its exit status
# $L/mpi-LABEL.rc. mpi_done prints "== coll.gpu.LABEL: exit ..." for the runs started.
# A sanitizer run's verdict: its exit status 0 (the tool's errors and the test's
# failures both end it otherwise) and the tool's clean summary in every rank's log.
san_verdict() {
    local f=$1 clean=$2 rc n
    rc=$(cat "$L/$f.rc" 2>/dev/null || echo 99)
    n=$(grep -c "$clean" "$L/$f.log")
    [ "$rc" = 0 ] || status=1
    echo "== $f: exit $rc, $n clean summaries ($(since))"
    [ "$rc" = 0 ] || grep -E "CHECK|FAIL|rror" "$L/$f.log" | grep -v "ERROR SUMMARY: 0" | head -5
}
started=()
TESTBIN=test_coll_mpi_cuda # (the move step runs test_coll_move_cuda the same way)
mpi_test() {
    local label=$1 np=$2 part=$3 kv
    local xs=()
    shift 3
    for kv in "$@"; do xs+=(-x "${kv%%=*}"); done
    ( env "$@" timeout "$TMO" $MPIRUN -np "$np" ${xs[@]+"${xs[@]}"} "build-gpu/test/coll/$TESTBIN" "$part" \
        >"$L/mpi-$label.log" 2>&1; echo $? >"$L/mpi-$label.rc" ) &
    started+=("$label")
}
mpi_done() {
    local label rc
    wait
    for label in ${started[@]+"${started[@]}"}; do
        rc=$(cat "$L/mpi-$label.rc" 2>/dev/null || echo 99)
        [ "$rc" = 0 ] || status=1
        echo "== coll.gpu.$label: exit $rc, $(tail -1 "$L/mpi-$label.log") ($(since))"
        [ "$rc" = 0 ] || grep -E "CHECK|rror" "$L/mpi-$label.log" | head -5
    done
    started=()
}
# The exact part makes thousands of small calls, each waiting for the GPU several
# times: side by side, ten processes time-share the GPU and each wait grows; one run at
# a time.
if has mpi; then
    for part in ${GHZ_GPU_COLL_PARTS:-errors edge lossy exact}; do
        for np in ${GHZ_GPU_COLL_RANKS:-1 2 3 4}; do
            mpi_test "$part.np$np" "$np" "$part"
            [ "$part" = exact ] && mpi_done
        done
        mpi_done
    done
    checkpoint
    mpi_test two_level.np4.rpn2 4 two_level GHZ_COLL_RANKS_PER_NODE=2
    mpi_test two_level.np5.rpn2 5 two_level GHZ_COLL_RANKS_PER_NODE=2
    mpi_done
fi
checkpoint
if has ipc; then
    for part in ${GHZ_GPU_COLL_PARTS:-errors edge lossy exact}; do
        for np in ${GHZ_GPU_COLL_IPC_RANKS:-2 3 4}; do
            mpi_test "ipc.$part.np$np" "$np" "$part" GHZ_COLL_TRANSPORT=ipc
            [ "$part" = exact ] && mpi_done
        done
        mpi_done
    done
    mpi_test ipc.two_level.np4.rpn2 4 two_level GHZ_COLL_TRANSPORT=ipc GHZ_COLL_RANKS_PER_NODE=2
    mpi_done
    for part in errors edge; do
        ( GHZ_COLL_TRANSPORT=ipc timeout "$TMO" $MPIRUN -np 2 -x GHZ_COLL_TRANSPORT compute-sanitizer --tool memcheck \
            --error-exitcode 9 build-gpu/test/coll/test_coll_mpi_cuda "$part" >"$L/memcheck-ipc-$part.log" 2>&1
          echo $? >"$L/memcheck-ipc-$part.rc" ) &
    done
    wait
    for part in errors edge; do san_verdict "memcheck-ipc-$part" "ERROR SUMMARY: 0 errors"; done
fi
checkpoint
if has move; then
    TESTBIN=test_coll_move_cuda
    for part in errors lossy exact; do
        for np in ${GHZ_GPU_COLL_RANKS:-1 2 3 4}; do mpi_test "move.$part.np$np" "$np" "$part"; done
        mpi_done
        for np in ${GHZ_GPU_COLL_IPC_RANKS:-2 3 4}; do mpi_test "ipc.move.$part.np$np" "$np" "$part" GHZ_COLL_TRANSPORT=ipc; done
        mpi_done
    done
    TESTBIN=test_coll_mpi_cuda
    for part in errors lossy; do
        ( timeout "$TMO" $MPIRUN -np 2 compute-sanitizer --tool memcheck --error-exitcode 9 \
            build-gpu/test/coll/test_coll_move_cuda "$part" >"$L/memcheck-move-$part.log" 2>&1
          echo $? >"$L/memcheck-move-$part.rc" ) &
    done
    wait
    for part in errors lossy; do san_verdict "memcheck-move-$part" "ERROR SUMMARY: 0 errors"; done
fi
checkpoint
if has memcheck; then
    for part in errors edge; do
        ( timeout "$TMO" $MPIRUN -np 2 compute-sanitizer --tool memcheck --error-exitcode 9 \
            build-gpu/test/coll/test_coll_mpi_cuda "$part" >"$L/memcheck-mpi-$part.log" 2>&1
          echo $? >"$L/memcheck-mpi-$part.rc" ) &
    done
    ( GHZ_COLL_TEST_N=100003 GHZ_COLL_TEST_LARGE_N=300000 timeout "$TMO" compute-sanitizer --tool memcheck \
        --error-exitcode 9 build-gpu/test/gpu/test_cuda_coll_reduce --jobs 1 >"$L/memcheck-reduce.log" 2>&1
      echo $? >"$L/memcheck-reduce.rc" ) &
    wait
    for f in memcheck-mpi-errors memcheck-mpi-edge memcheck-reduce; do san_verdict "$f" "ERROR SUMMARY: 0 errors"; done
fi
checkpoint
if has racecheck; then
    ( GHZ_COLL_TEST_N=100003 GHZ_COLL_TEST_LARGE_N=300000 timeout "$TMO" compute-sanitizer --tool racecheck \
        --error-exitcode 9 build-gpu/test/gpu/test_cuda_coll_reduce --jobs 1 >"$L/racecheck-reduce.log" 2>&1
      echo $? >"$L/racecheck-reduce.rc" ) &
    ( timeout "$TMO" $MPIRUN -np 2 compute-sanitizer --tool racecheck --error-exitcode 9 \
        build-gpu/test/coll/test_coll_mpi_cuda edge >"$L/racecheck-mpi-edge.log" 2>&1
      echo $? >"$L/racecheck-mpi-edge.rc" ) &
    wait
    for f in racecheck-reduce racecheck-mpi-edge; do san_verdict "$f" "RACECHECK SUMMARY: 0 hazards"; done
fi
checkpoint
if has bench; then
    timeout 200 build-gpu/ghz/tools/bench/ghz-bench reduce --gib 1 --reps 10 --json "$L/bench_reduce.json" \
        >"$L/bench_reduce.txt" 2>&1 || status=1
    tail -40 "$L/bench_reduce.txt"
fi
# collbench: 2 ranks, f32 SUM, REL 1e-4 on the final result, real fields (a different
# time window of navy_uwnd per rank), over each transport (GHZ_COLLBENCH_TRANSPORTS,
# default "ipc mpi") with GHZ_COLLBENCH_ARGS (sizes, paths, iterations).
checkpoint
if has collbench; then
    python3 scripts/coll_rank_fields.py "$L/fields" 4 >/dev/null
    for tr in ${GHZ_COLLBENCH_TRANSPORTS:-ipc mpi}; do
        GHZ_COLL_TRANSPORT=$tr timeout "$TMO" $MPIRUN -np 2 -x GHZ_COLL_TRANSPORT build-gpu/ghz/tools/coll_bench/ghz-coll-bench \
            ${GHZ_COLLBENCH_ARGS:--b 1M -e 256M -f 4 -n 5 -w 1 -c 1} --backend cuda --rel 1e-4 -d float \
            --raw "$L"/fields/rank*.f32 --json "$L/collbench-cuda-$tr-np2.jsonl" >"$L/collbench-cuda-$tr-np2.log" 2>&1 ||
            status=1
        echo "== collbench cuda, transport $tr, 2 ranks ($(since))"
        tail -40 "$L/collbench-cuda-$tr-np2.log"
        checkpoint
    done
fi
# floor: one GPU decompression of 1 GiB of the same field (navy_uwnd), at the bound each
# compression of a 2-rank direct allreduce uses (REL 1e-4 / K, K = 3), the least time a
# compressed allreduce that decodes 1 GiB can take per rank
if has floor; then
    timeout 200 build-gpu/ghz/tools/bench/ghz-bench codec --rel 3.3e-5 --gib 1 --reps 5 \
        --raw navy_uwnd:datasets/out/real/navy_uwnd_144x73x132.f32 --json "$L/floor.json" >"$L/floor.txt" 2>&1 ||
        status=1
    echo "== floor ($(since))"
    tail -12 "$L/floor.txt"
fi
finish
