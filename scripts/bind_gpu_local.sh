#!/usr/bin/env bash
# scripts/bind_gpu_local.sh CMD...: runs CMD bound to the CPUs local to this MPI rank's
# GPU (its NUMA node, from sysfs), so that its pinned staging memory, first touched
# there, and its host work sit next to that GPU. The rank's GPU is the one ghz-coll-bench
# and the tests pick: local rank r on visible GPU r mod count (CUDA_VISIBLE_DEVICES, if
# set, names the physical GPUs). Falls back to CMD unbound where anything is missing.
#
#   mpirun -np 2 bash scripts/bind_gpu_local.sh build-gpu/ghz/tools/coll_bench/ghz-coll-bench ...
r=${OMPI_COMM_WORLD_LOCAL_RANK:-0}
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    IFS=, read -r -a vis <<<"$CUDA_VISIBLE_DEVICES"
else
    mapfile -t vis < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null)
fi
[ "${#vis[@]}" -gt 0 ] || exec "$@"
gpu=${vis[$((r % ${#vis[@]}))]}
id=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i "$gpu" 2>/dev/null | tr 'A-F' 'a-f')
id=${id: -12} # 00000000:19:00.0 -> 0000:19:00.0, as sysfs names it
cpus=$(cat "/sys/bus/pci/devices/$id/local_cpulist" 2>/dev/null)
if [ -n "$cpus" ] && command -v taskset >/dev/null; then
    [ -n "${GHZ_BIND_VERBOSE:-}" ] && echo "rank $r: GPU $gpu ($id), CPUs $cpus" >&2
    exec taskset -c "$cpus" "$@"
fi
exec "$@"
