# Criterion as one imported target, ghz::criterion, for every test directory.
#
# pkg-config is tried first (Debian's libcriterion-dev ships criterion.pc). Where it
# does not find it (a copy without its dependencies' .pc files, or the copy that
# scripts/gpu.sh prebuild packs into .device-carry/criterion), the header and the
# shared library are found directly (GHZ_CRITERION_INCLUDE, GHZ_CRITERION_LIBRARY): the
# shared library carries its own dependencies.
if(TARGET ghz::criterion)
  return()
endif()
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(CRITERION QUIET IMPORTED_TARGET GLOBAL criterion)
endif()
if(CRITERION_FOUND)
  add_library(ghz::criterion ALIAS PkgConfig::CRITERION)
else()
  find_path(GHZ_CRITERION_INCLUDE criterion/criterion.h REQUIRED)
  find_library(GHZ_CRITERION_LIBRARY criterion REQUIRED)
  add_library(ghz_criterion INTERFACE)
  target_include_directories(ghz_criterion INTERFACE ${GHZ_CRITERION_INCLUDE})
  target_link_libraries(ghz_criterion INTERFACE ${GHZ_CRITERION_LIBRARY})
  add_library(ghz::criterion ALIAS ghz_criterion)
endif()

# ghz_criterion_test(<test> <target> <label>): registers the Criterion executable
# <target> (C11) as the CTest test <test> with label <label>: Criterion's default
# verbosity (quiet when passing, file:line of each failure), two jobs, 5 minutes.
function(ghz_criterion_test test target label)
  set_target_properties(${target} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                                             C_EXTENSIONS OFF)
  add_test(NAME ${test} COMMAND ${target} --short-filename --color=never)
  set_tests_properties(${test} PROPERTIES
    LABELS ${label}
    ENVIRONMENT CRITERION_JOBS=2
    TIMEOUT 300)
endfunction()
