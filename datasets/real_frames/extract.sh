#!/usr/bin/env bash
# Extract real astronomical and microscopy images from Debian's python3-skimage
# package (the sample images scikit-image ships) and make frame stacks of them.
#
#   datasets/real_frames/extract.sh [OUT_DIR] [FRAMES]
#
# OUT_DIR defaults to <repo>/datasets/out/real_frames (gitignored); FRAMES (default 8)
# noisy frames of each image are written with ghz-frames --scene when build/ has it.
# The .deb is fetched with `apt-get download` and unpacked with dpkg-deb: the package
# is NOT installed (it would pull in scipy, matplotlib, networkx ...). Decoding the JPEG
# and PNG needs a Python 3 with numpy and PIL (Debian's python3-numpy, python3-pil),
# installed through apt-get when missing (as root, or through sudo). README.md beside
# this script gives the provenance and licenses. Idempotent.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/datasets/out/real_frames}
frames=${2:-8}
die() { echo "extract.sh: $*" >&2; exit 1; }
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "need root (or sudo) to run: $*"; fi
}

pick_python() {
    local p
    for p in ${PYTHON:-} /usr/bin/python3 python3; do
        command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy, PIL.Image' >/dev/null 2>&1 &&
            { echo "$p"; return 0; }
    done
    return 1
}
py=$(pick_python) || {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3-numpy python3-pil || die "cannot install python3-numpy python3-pil"
    py=$(pick_python) || die "no python3 with numpy and PIL"
}

mkdir -p "$out/deb"
deb=$(ls "$out"/deb/python3-skimage_*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
    (cd "$out/deb" && apt-get download python3-skimage) ||
        { as_root apt-get update && (cd "$out/deb" && apt-get download python3-skimage); } ||
        die "apt-get download python3-skimage failed"
    deb=$(ls "$out"/deb/python3-skimage_*.deb | head -n 1)
fi
rm -rf "$out/deb/x"
dpkg-deb -x "$deb" "$out/deb/x"
version=$(dpkg-deb -f "$deb" Version)
echo "extract.sh: python3-skimage $version, python $py" >&2

"$py" "$here/extract.py" --src "$out/deb/x/usr/lib/python3/dist-packages/skimage/data" \
    --copyright "$out/deb/x/usr/share/doc/python3-skimage/copyright" \
    --version "$version" --out "$out"
rm -rf "$out/deb/x"

tool=$root/build/datasets/ghz-frames
if [ "$frames" -gt 0 ] && [ -x "$tool" ]; then
    while read -r name w h; do
        "$tool" -W "$w" -H "$h" -n "$frames" --scene "$out/$name.f32" -o "$out/${name}_frame"
    done <"$out/scenes.txt"
elif [ "$frames" -gt 0 ]; then
    echo "extract.sh: $tool not built: scenes only (cmake --build build --target ghz-frames)" >&2
fi
