/* test/coll/header_coll.c: ghz/coll/coll.h compiles as strict C99 (-pedantic -Werror)
 * and as C++ (header_coll.cpp includes this file) without <mpi.h>, and coll_mpi.h with
 * it where the library has MPI; the initialisers are constant expressions. Built as part of the tests: a header
 * that stops compiling fails the build. */
#include "ghz/coll/coll.h"
#ifdef MPI_VERSION
#error "ghz/coll/coll.h must not include <mpi.h> (programs without MPI use it)"
#endif
#ifndef GHZ_TEST_NO_MPI
#include "ghz/coll/coll_mpi.h"
#endif

static const ghz_comm_config_t config = GHZ_COMM_CONFIG_INIT;
static const ghz_accuracy_t accuracy = GHZ_ACCURACY_INIT;

int main(void)
{
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    (void)info;
    return config.struct_size == sizeof config && accuracy.struct_size == sizeof accuracy ? 0 : 1;
}
