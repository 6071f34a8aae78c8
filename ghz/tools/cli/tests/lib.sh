# ghz/tools/cli/tests/lib.sh: what the ghz-cli test scripts share: a scratch directory
# (removed at exit) and the checks. Source it after setting CLI and PY.
T=$(mktemp -d "${TMPDIR:-/tmp}/ghz-cli-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fails=0

ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }
# expect RC DESCRIPTION -- COMMAND...: run, compare the exit status.
expect() {
    local want=$1 what=$2
    shift 3
    "$@" > last.out 2> last.err
    local rc=$?
    if [ "$rc" = "$want" ]; then ok "$what (exit $rc)"; else
        bad "$what: exit $rc, expected $want"; sed 's/^/     /' last.err; fi
}
# stderr of the last command must contain TEXT.
says() { if grep -qF -- "$1" last.err; then ok "  says '$1'"; else
    bad "  stderr lacks '$1'"; sed 's/^/     /' last.err; fi; }
no_temp() { if ls -a | grep -q 'ghz-tmp-'; then bad "temporary file left behind"; else
    ok "no temporary file left"; fi; }
