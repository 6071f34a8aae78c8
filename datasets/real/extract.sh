#!/usr/bin/env bash
# Extract real scientific fields (ETOPO5 relief, Levitus ocean temperature and
# salinity, COADS SST and air temperature, FNOC winds) from Debian's ferret-datasets
# package into raw little-endian float32 files plus manifest.json and PROVENANCE.md.
#
#   datasets/real/extract.sh [OUT_DIR] [extract.py options, e.g. --etopo-full]
#
# OUT_DIR defaults to <repo>/datasets/out/real (gitignored). Installs, when missing,
# ferret-datasets and a Python 3 with numpy and scipy (Debian's python3-numpy and
# python3-scipy) through apt-get, as root or through sudo. Idempotent: a second run
# installs nothing and rewrites byte-identical outputs.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/datasets/out/real}
[ $# -gt 0 ] && shift

die() { echo "extract.sh: $*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root (or sudo) to run: $*"
    fi
}

apt_install() {
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install $* by hand"
    echo "extract.sh: installing $*" >&2
    # try without refreshing the package lists first; refresh and retry on failure
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" ||
        { as_root apt-get update && \
          as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"; }
}

installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# A Python 3 that can import numpy and scipy.io. $PYTHON first, then the Debian
# interpreter (where python3-numpy/python3-scipy install), then whatever python3 is
# first on PATH (which may be a pyenv/venv one without them).
pick_python() {
    local p
    for p in ${PYTHON:-} /usr/bin/python3 python3; do
        command -v "$p" >/dev/null 2>&1 || continue
        if "$p" -c 'import numpy, scipy.io' >/dev/null 2>&1; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

installed ferret-datasets || apt_install ferret-datasets
py=$(pick_python) || { apt_install python3-numpy python3-scipy; py=$(pick_python); } ||
    die "no python3 with numpy and scipy"

echo "extract.sh: $(dpkg-query -W ferret-datasets | tr '\t' ' '), python $py" >&2
exec "$py" "$here/extract.py" --out "$out" "$@"
