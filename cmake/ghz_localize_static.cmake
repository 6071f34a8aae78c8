# cmake/ghz_localize_static.cmake: run at install time (install(CODE), ghz_install_localized)
# on an installed static library GHZ_LOCALIZE_LIB. A static library is a bag of objects:
# every function the objects share is a global symbol, whatever its visibility, and a
# program linking it could collide with them. The objects are linked into one
# relocatable object (ld -r) whose hidden symbols (everything but GHZ_API) then become
# local (objcopy --localize-hidden), so the installed library defines only ghz_ and GHZ_
# symbols (test/symbols checks it). The build tree's copy keeps them: the tests that call
# private functions link that one.
if(NOT EXISTS "${GHZ_LOCALIZE_LIB}")
  return()
endif()
set(obj "${GHZ_LOCALIZE_LIB}.localized.o")
execute_process(COMMAND "${GHZ_LOCALIZE_LD}" -r -o "${obj}" --whole-archive "${GHZ_LOCALIZE_LIB}"
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ld -r ${GHZ_LOCALIZE_LIB}: ${err}")
endif()
execute_process(COMMAND "${GHZ_LOCALIZE_OBJCOPY}" --localize-hidden "${obj}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objcopy --localize-hidden ${obj}: ${err}")
endif()
file(REMOVE "${GHZ_LOCALIZE_LIB}")
execute_process(COMMAND "${GHZ_LOCALIZE_AR}" qcs "${GHZ_LOCALIZE_LIB}" "${obj}" RESULT_VARIABLE rc ERROR_VARIABLE err)
file(REMOVE "${obj}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ar ${GHZ_LOCALIZE_LIB}: ${err}")
endif()
