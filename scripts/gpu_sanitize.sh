#!/usr/bin/env bash
# scripts/gpu_sanitize.sh: every GPU test binary under compute-sanitizer's memcheck,
# racecheck and synccheck, each run under `timeout`. Needs a GPU and a CUDA build with
# the GPU tests (scripts/gpu_run.sh builds build-gpu/ and calls this as its
# `sanitize-all` step).
#
#   bash scripts/gpu_sanitize.sh [BUILD_DIR [LOG_DIR]]      (defaults build-gpu, gpu-out)
#
# Environment:
#   GHZ_SAN_TOOLS    tools to run (default "memcheck racecheck synccheck")
#   GHZ_SAN_TIMEOUT  seconds per binary and tool (default 600); a run that exceeds it
#                    counts as a failure and is reported as TIMEOUT
#   GHZ_SAN_FILTER   Criterion --filter pattern (default: every test)
# Exit status: 0 when every run finished with no sanitizer error, else 1. Each run's
# log is LOG_DIR/sanitize-<tool>-<binary>.log; a summary table goes to stdout.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bdir=${1:-build-gpu}
logs=${2:-gpu-out}
tools=${GHZ_SAN_TOOLS:-memcheck racecheck synccheck}
limit=${GHZ_SAN_TIMEOUT:-600}
mkdir -p "$logs"

command -v compute-sanitizer >/dev/null 2>&1 || {
    [ -x /usr/local/cuda/bin/compute-sanitizer ] && export PATH=/usr/local/cuda/bin:$PATH
}
command -v compute-sanitizer >/dev/null 2>&1 || { echo "gpu_sanitize: no compute-sanitizer" >&2; exit 1; }
mapfile -t bins < <(find "$bdir/test/gpu" -maxdepth 1 -type f -name 'test_*' -perm -u+x | sort)
[ ${#bins[@]} -gt 0 ] || { echo "gpu_sanitize: no GPU test binary in $bdir/test/gpu" >&2; exit 1; }

status=0
printf '%-12s %-24s %-8s %s\n' tool binary result seconds
for tool in $tools; do
    extra=()
    # racecheck looks at shared memory hazards; synccheck at barriers and warp syncs.
    [ "$tool" = racecheck ] && extra=(--racecheck-report all)
    for bin in "${bins[@]}"; do
        name=$(basename "$bin")
        log=$logs/sanitize-$tool-$name.log
        t0=$(date +%s)
        timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 9 "${extra[@]}" \
            "$bin" --jobs 1 --verbose ${GHZ_SAN_FILTER:+--filter "$GHZ_SAN_FILTER"} >"$log" 2>&1
        rc=$?
        case $rc in
        0) result=ok ;;
        124) result=TIMEOUT; status=1 ;;
        9) result=ERRORS; status=1 ;;
        *) result="FAIL($rc)"; status=1 ;;
        esac
        printf '%-12s %-24s %-8s %s\n' "$tool" "$name" "$result" "$(($(date +%s) - t0))"
        [ "$result" = ok ] || tail -n 15 "$log" | sed 's/^/    /'
    done
done
exit $status
