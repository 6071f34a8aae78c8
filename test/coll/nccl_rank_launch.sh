#!/usr/bin/env bash
# test/coll/nccl_rank_launch.sh: starts NRANKS processes of test_coll_nccl_rank, as a
# launcher without MPI (torchrun, a job script) would, and fails when any fails; 77
# (CTest's skip) when every rank skipped (fewer GPUs than ranks).
#   nccl_rank_launch.sh BINARY NRANKS
set -u
bin=$1
n=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/ghz-nccl-rank.XXXXXX")
trap 'rm -rf "$dir"' EXIT
pids=()
for ((r = 0; r < n; r++)); do
    "$bin" "$r" "$n" "$dir/id" &
    pids+=($!)
done
rc=0 skipped=0
for p in "${pids[@]}"; do
    wait "$p"
    s=$?
    if [ "$s" -eq 77 ]; then skipped=$((skipped + 1)); elif [ "$s" -ne 0 ]; then rc=1; fi
done
if [ "$rc" -eq 0 ] && [ "$skipped" -eq "$n" ]; then exit 77; fi
exit "$rc"
