#!/usr/bin/env bash
# scripts/gpu_coll.sh: the collective library on a GPU machine, in one device call:
# build everything with CUDA; the GPU reductions' test; the MPI tests on the CUDA
# backend with 1 to 4 ranks sharing the GPU (ctest -L gpu -R coll.gpu); compute-sanitizer
# memcheck on two ranks of the MPI test and on the reductions' test; `ghz-bench reduce`;
# ghz-coll-bench with the CUDA backend. One tarball of logs and JSON in $OUT.
#
#   bash scripts/gpu_coll.sh [test] [mpi] [ipc] [memcheck] [bench] [collbench]   # default: all
#
# ipc: the MPI tests over the CUDA IPC transport (GHZ_COLL_TRANSPORT=ipc) with 2 to 4 ranks
# sharing the GPU (the ranks of GHZ_GPU_COLL_IPC_RANKS, default "2 3 4"), the two-level
# test on 4 ranks as two "nodes" of 2, then memcheck of two ranks over it (errors, edge).
#
# Carry ".device-carry" (Criterion) and "datasets/out/real" (collbench's real fields).
# GHZ_GPU_COLL_RANKS: the rank counts of the MPI tests (default "1 2 3 4"); GHZ_GPU_COLL_PARTS:
# which parts (default "errors edge lossy exact").
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
L=$(mktemp -d /tmp/gpu-coll.XXXXXX)
steps=" ${*:-test mpi ipc memcheck bench collbench} "
has() { [[ $steps == *" $1 "* ]]; }
C=$PWD/.device-carry/crit
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_MCA_rmaps_base_oversubscribe=1
status=0
t0=$(date +%s)
since() { echo "$(($(date +%s) - t0)) s"; }
finish() { echo "finished in $(since), status $status"; tar czf "$OUT/gpu-coll.tgz" -C "$L" .; exit $status; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGHZ_BUILD_COLL=ON -DPKG_CONFIG_EXECUTABLE=/nonexistent -DGHZ_CRITERION_INCLUDE="$C/include" \
    -DGHZ_CRITERION_LIBRARY="$C/lib/libcriterion.so" ${GHZ_CMAKE_ARGS:-} >"$L/configure.log" 2>&1 ||
    { tail -30 "$L/configure.log"; status=1; finish; }
cmake --build build-gpu -j"$(nproc)" --target test_cuda_coll_reduce test_coll_mpi_cuda ghz-bench ghz-coll-bench \
    >"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -30; status=1; finish; }
echo "built in $(since)"
MPIRUN="mpirun --oversubscribe --allow-run-as-root --bind-to none"
if has test; then
    timeout 300 build-gpu/test/gpu/test_cuda_coll_reduce --jobs 1 --verbose >"$L/coll-reduce.log" 2>&1 || status=1
    echo "== test_cuda_coll_reduce: $(grep Synthesis "$L/coll-reduce.log" | tail -1) ($(since))"
    grep -E "FAIL|Assert" "$L/coll-reduce.log" | head -5
fi
# One run of the MPI test: mpi_test LABEL NP PART [VAR=value ...] (variables exported to
# every rank); its log is $L/mpi-LABEL.log, its line "== coll.gpu.LABEL: exit ...".
mpi_test() {
    local label=$1 np=$2 part=$3 kv rc
    local xs=()
    shift 3
    for kv in "$@"; do xs+=(-x "${kv%%=*}"); done
    env "$@" timeout 300 $MPIRUN -np "$np" ${xs[@]+"${xs[@]}"} build-gpu/test/coll/test_coll_mpi_cuda "$part" \
        >"$L/mpi-$label.log" 2>&1
    rc=$?
    [ $rc = 0 ] || status=1
    echo "== coll.gpu.$label: exit $rc, $(tail -1 "$L/mpi-$label.log") ($(since))"
    [ $rc = 0 ] || grep -E "CHECK|rror" "$L/mpi-$label.log" | head -5
}
if has mpi; then
    for part in ${GHZ_GPU_COLL_PARTS:-errors edge lossy exact}; do
        for np in ${GHZ_GPU_COLL_RANKS:-1 2 3 4}; do mpi_test "$part.np$np" "$np" "$part"; done
    done
fi
if has ipc; then
    for part in ${GHZ_GPU_COLL_PARTS:-errors edge lossy exact}; do
        for np in ${GHZ_GPU_COLL_IPC_RANKS:-2 3 4}; do
            mpi_test "ipc.$part.np$np" "$np" "$part" GHZ_COLL_TRANSPORT=ipc
        done
    done
    mpi_test ipc.two_level.np4.rpn2 4 two_level GHZ_COLL_TRANSPORT=ipc GHZ_COLL_RANKS_PER_NODE=2
    for part in errors edge; do
        GHZ_COLL_TRANSPORT=ipc timeout 300 $MPIRUN -np 2 -x GHZ_COLL_TRANSPORT compute-sanitizer --tool memcheck \
            --error-exitcode 9 build-gpu/test/coll/test_coll_mpi_cuda "$part" >"$L/memcheck-ipc-$part.log" 2>&1
        rc=$?
        [ $rc = 0 ] || status=1
        echo "== memcheck ipc $part np2: exit $rc, $(grep -c 'ERROR SUMMARY: 0 errors' "$L/memcheck-ipc-$part.log") clean rank logs ($(since))"
    done
fi
if has memcheck; then
    for part in errors edge; do
        timeout 300 $MPIRUN -np 2 compute-sanitizer --tool memcheck --error-exitcode 9 \
            build-gpu/test/coll/test_coll_mpi_cuda "$part" >"$L/memcheck-mpi-$part.log" 2>&1
        rc=$?
        [ $rc = 0 ] || status=1
        echo "== memcheck mpi $part np2: exit $rc, $(grep -c 'ERROR SUMMARY: 0 errors' "$L/memcheck-mpi-$part.log") clean rank logs ($(since))"
    done
    GHZ_COLL_TEST_N=100003 GHZ_COLL_TEST_LARGE_N=300000 timeout 300 compute-sanitizer --tool memcheck \
        --error-exitcode 9 build-gpu/test/gpu/test_cuda_coll_reduce --jobs 1 >"$L/memcheck-reduce.log" 2>&1
    rc=$?
    [ $rc = 0 ] || status=1
    echo "== memcheck coll_reduce: exit $rc, $(grep 'ERROR SUMMARY' "$L/memcheck-reduce.log" | tail -1) ($(since))"
fi
if has bench; then
    timeout 200 build-gpu/ghz/tools/bench/ghz-bench reduce --gib 1 --reps 10 --json "$L/bench_reduce.json" \
        >"$L/bench_reduce.txt" 2>&1 || status=1
    tail -40 "$L/bench_reduce.txt"
fi
if has collbench; then
    python3 scripts/coll_rank_fields.py "$L/fields" 4 >/dev/null
    for np in 2; do
        timeout 300 $MPIRUN -np $np build-gpu/ghz/tools/coll_bench/ghz-coll-bench ${GHZ_COLLBENCH_ARGS:--b 1M -e 256M -f 4 -n 5 -w 1 -c 1} \
            --backend cuda --rel 1e-4 -d float --raw "$L"/fields/rank*.f32 --json "$L/collbench-cuda-np$np.jsonl" \
            >"$L/collbench-cuda-np$np.log" 2>&1 || status=1
        tail -30 "$L/collbench-cuda-np$np.log"
    done
fi
finish
