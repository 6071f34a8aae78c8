# shellcheck shell=bash
# scripts/steps.sh: sourced by demo.sh and test.sh. run_step runs one step of a script
# with its output in a log file and prints what a reader needs instead: a line when it
# starts, progress lines while it runs (never more than GHZ_STEP_QUIET_S, default 20 s,
# without one), and one line when it ends; on failure, the log's tail and its path.
#
#   GHZ_STEP_PREFIX=test.sh   # the name each line starts with
#   GHZ_STEP_LOGDIR=DIR       # where the logs go (made when missing)
#   run_step NAME LABEL CMD...  # log: $GHZ_STEP_LOGDIR/NAME.log; returns CMD's status
#   GHZ_VERBOSE=1             # shows every command's output as it runs instead
#
# Progress is read from the log: make's "[ 45%]", ninja's "[12/80]", ctest's "12/120
# Test #12: ..." and "Start 13: name" (which test is running, and for how long).
# GHZ_STEP_SUMMARY (a grep -E pattern) picks the log lines printed after a step passes,
# e.g. ctest's "tests passed" line. A step may be a shell function: call run_step as a
# plain command (not after if, || or &&), where `set -e` stops the function at its first
# failing command (bash ignores set -e inside a function called in those places).

: "${GHZ_STEP_PREFIX:=ghz}"
: "${GHZ_STEP_QUIET_S:=20}"
: "${GHZ_STEP_LOGDIR:=${TMPDIR:-/tmp}}"

# step_progress LOG: a short description of how far the log has come ("" when none).
step_progress() {
    local log=$1 line
    # the last progress-like line of the log (grep's exit status does not matter here)
    line=$(grep -E '^\[ *[0-9]+%\]|^\[[0-9]+/[0-9]+\]|^ *[0-9]+/[0-9]+ Test +#|^ +Start +[0-9]+: ' "$log" 2>/dev/null | tail -n 1 || true)
    if [[ $line =~ ^\[\ *([0-9]+)%\]\ (.*)$ ]]; then
        printf '%s%% (%s)' "${BASH_REMATCH[1]}" "$(step_short "${BASH_REMATCH[2]}")"
    elif [[ $line =~ ^\[([0-9]+)/([0-9]+)\]\ (.*)$ ]]; then
        printf '%s%% (%s)' $((100 * BASH_REMATCH[1] / BASH_REMATCH[2])) "$(step_short "${BASH_REMATCH[3]}")"
    elif [[ $line =~ ^\ *[0-9]+/[0-9]+\ Test\ +# || $line =~ ^\ +Start\ +[0-9]+: ]]; then
        # ctest: how many tests are done, and which have started and not ended (-j N)
        local last_done running
        last_done=$(grep -E '^ *[0-9]+/[0-9]+ Test +#' "$log" 2>/dev/null | tail -n 1 || true)
        running=$(awk '/^ +Start +[0-9]+: /{name[$2]=$3; order[++n]=$2}
            /^ *[0-9]+\/[0-9]+ Test +#/{sub(/^#/, "", $3); done[$3]=1}
            END {for (i = 1; i <= n; i++) if (!(order[i] in done)) {printf "%s%s", sep, name[order[i]]; sep=", "}}' \
            "$log" 2>/dev/null || true)
        if [[ $last_done =~ ^\ *([0-9]+)/([0-9]+)\ Test ]]; then
            printf '%s%% of %s tests' $((100 * BASH_REMATCH[1] / BASH_REMATCH[2])) "${BASH_REMATCH[2]}"
        else
            printf '0 tests done'
        fi
        [ -z "$running" ] || printf ' (running %s)' "$running"
    else # the log's last line, cut short
        line=$(tail -n 1 "$log" 2>/dev/null | tr -d '\r' | cut -c 1-90 || true)
        [ -z "$line" ] || printf 'last line: %s' "$line"
    fi
}

# step_short TEXT: a make/ninja line cut to what is being built.
step_short() {
    local s=$1
    s=${s#Building C object }
    s=${s#Building CUDA object }
    s=${s#Building CXX object }
    s=${s#Linking C executable }
    s=${s#Linking C static library }
    s=${s%.o}
    s=${s##*/}
    printf '%s' "$s"
}

run_step() {
    local name=$1 label=$2 log pid rc t0 now last_print last_pct="" pct prog
    shift 2
    mkdir -p "$GHZ_STEP_LOGDIR"
    log=$GHZ_STEP_LOGDIR/$name.log
    t0=$(date +%s)
    echo "$GHZ_STEP_PREFIX: $label ... (log: $log)"
    # In the background, so that `set -e` holds inside a shell function run as a step;
    # in a process group of its own (set -m), which the script's end by a signal stops.
    set -m
    "$@" >"$log" 2>&1 &
    pid=$!
    set +m
    trap 'kill -TERM -- -'"$pid"' 2>/dev/null; echo "$GHZ_STEP_PREFIX: interrupted" >&2; exit 130' INT TERM HUP PIPE
    if [ "${GHZ_VERBOSE:-0}" = 1 ]; then
        tail -n +1 -f --pid="$pid" "$log"
    else
        last_print=$t0
        while kill -0 "$pid" 2>/dev/null; do
            sleep 1
            now=$(date +%s)
            prog=$(step_progress "$log")
            pct=${prog%%%*}
            # a line when the percentage moves on by 10, else one every GHZ_STEP_QUIET_S
            if [[ $prog == *%* && $pct =~ ^[0-9]+$ && ( -z $last_pct || $pct -ge $((last_pct + 10)) ) ]]; then
                echo "$GHZ_STEP_PREFIX:   $label: $prog, $((now - t0)) s"
                last_pct=$pct
                last_print=$now
            elif [ $((now - last_print)) -ge "$GHZ_STEP_QUIET_S" ]; then
                echo "$GHZ_STEP_PREFIX:   $label: ${prog:-running}, $((now - t0)) s"
                last_print=$now
            fi
        done
    fi
    rc=0
    wait "$pid" || rc=$?
    trap - INT TERM HUP PIPE
    now=$(date +%s)
    if [ "$rc" -ne 0 ]; then
        if [ "${GHZ_VERBOSE:-0}" != 1 ]; then
            echo "---- last 60 lines of $log ----"
            tail -n 60 "$log"
            echo "----"
        fi
        echo "$GHZ_STEP_PREFIX: $label FAILED (exit $rc, $((now - t0)) s); whole log: $log" >&2
        return "$rc"
    fi
    if [ -n "${GHZ_STEP_SUMMARY:-}" ]; then
        grep -E "$GHZ_STEP_SUMMARY" "$log" | sed "s/^/$GHZ_STEP_PREFIX:   /" || true
    fi
    echo "$GHZ_STEP_PREFIX: $label done ($((now - t0)) s)"
}
