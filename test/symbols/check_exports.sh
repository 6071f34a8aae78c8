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
  # A C program links the static libraries without libstdc++ (test/consumer): the CUDA
  # objects must not need its guards of function-local statics or its exception
  # handling (CMakeLists.txt, GHZ_CUDA_STUB_FLAGS).
  case $lib in
    *.a)
      cxx=$("$nm" -u "$lib" | awk '{ print $NF }' | grep -E '^(__cxa_guard_|__cxa_(begin|end)_catch|__cxa_throw|__gxx_personality|_Unwind_Resume$|_Zn[wa]|_Zd[la]|_ZSt|_ZNSt)' | sort -u || true)
      if [ -n "$cxx" ]; then
        echo "$lib needs the C++ runtime:"
        printf '%s\n' "$cxx" | sed 's/^/  /'
        bad=1
      fi ;;
  esac
  # The tests' switches (GHZ_COLL_TEST_STAGED, GHZ_COLL_TEST_HOST_PATH) are compiled
  # into their copy of the library only (ghz/coll/CMakeLists.txt, ghz_coll_test_staged).
  if grep -a -q 'GHZ_COLL_TEST_' "$lib"; then
    echo "$lib reads a test-only switch (GHZ_COLL_TEST_*)"
    bad=1
  fi
done
rm -rf "$prefix"
if [ "$found" -eq 0 ]; then
  echo "no library installed under $prefix"
  exit 1
fi
exit $bad
