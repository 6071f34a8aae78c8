#!/bin/sh
# test/symbols/check_exports.sh BUILD_DIR NM: installs the build into a scratch prefix and
# lists every symbol its libraries define globally that is not ghz_/GHZ_ (static: every
# global of the archive, which a program linking it could collide with; shared: the
# dynamic symbols). Exit 0 when there is none. CTest runs it (symbols.exports, label cpu).
set -eu
build=$1
nm=${2:-nm}
prefix=$build/symbols_prefix
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
bad=0
found=0
for lib in $(find "$prefix" -name 'lib*.a' -o -name 'lib*.so*' | sort); do
  [ -L "$lib" ] && continue
  found=$((found + 1))
  case $lib in
    *.a) syms=$("$nm" -g --defined-only "$lib" | awk 'NF >= 3 { print $3 }') ;;
    *) syms=$("$nm" -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }') ;;
  esac
  # (the linker's own markers of a shared object's sections; an HDF5 filter plugin must
  # export the two entry points HDF5 looks it up by, H5PLget_plugin_type and _info)
  allowed='^(ghz_|GHZ_)|^(_init|_fini|_edata|_end|__bss_start)$'
  case $lib in */hdf5/plugin/*) allowed="$allowed|^H5PLget_plugin_(type|info)\$" ;; esac
  others=$(printf '%s\n' "$syms" | grep -v -E "$allowed" | grep -v '^$' | sort -u || true)
  if [ -n "$others" ]; then
    echo "$lib defines symbols other than ghz_/GHZ_:"
    printf '%s\n' "$others" | sed 's/^/  /'
    bad=1
  else
    echo "$lib: only ghz_/GHZ_ symbols"
  fi
done
rm -rf "$prefix"
if [ "$found" -eq 0 ]; then
  echo "no library installed under $prefix"
  exit 1
fi
exit $bad
