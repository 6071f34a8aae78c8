# shellcheck shell=bash
# scripts/criterion_copy.sh (sourced by gpu.sh and gpu_ab.sh): criterion_copy DIR puts
# Criterion where a GPU machine without it can build against and load it: its headers in
# DIR/include, its shared library in DIR/lib as linked against (libcriterion.so) and as
# loaded (its soname), plain copies, with the libraries it loads but libc's. Returns 1
# where this machine has no Criterion (scripts/setup.sh installs it).
criterion_copy() {
    local dir=$1 f lib
    f=$(pkg-config --variable=libdir criterion 2>/dev/null)/libcriterion.so
    [ -e "$f" ] || { echo "no Criterion here ($f): bash scripts/setup.sh" >&2; return 1; }
    rm -rf "${dir:?}"
    mkdir -p "$dir/lib" "$dir/include"
    cp -L "$f" "$dir/lib/libcriterion.so"
    cp -L "$f" "$dir/lib/$(readelf -d "$f" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')"
    ldd "$f" | awk '$3 ~ /^\// {print $3}' | grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux[^/]*)\.so' |
        while IFS= read -r lib; do cp -L "$lib" "$dir/lib/"; done
    cp -r "$(pkg-config --variable=includedir criterion)/criterion" "$dir/include/"
}
