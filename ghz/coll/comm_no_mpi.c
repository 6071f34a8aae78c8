/* ghz/coll/comm_no_mpi.c: MPI's part in a build without MPI: it refuses (no communicator
 * has one, so the planner never routes a call here). */
#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

#define NO_MPI "this libghzcoll was built without MPI"
static char no_in_place;
void* const coll_in_place = &no_in_place;

ghz_status_t coll_mpi_child(ghz_comm_t* c, int across, ghz_comm_t** out)
{
    (void)across;
    *out = NULL;
    return coll_mpi_move(c, NULL);
}

void coll_mpi_release(ghz_comm_t* c, int local)
{
    (void)c;
    (void)local;
}

const char* coll_mpi_refusal(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m)
{
    (void)c;
    (void)k;
    (void)m;
    return NO_MPI;
}

ghz_status_t coll_mpi_allreduce(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* proto)
{
    (void)proto;
    return coll_mpi_move(c, k);
}

ghz_status_t coll_mpi_move(ghz_comm_t* c, const coll_desc_t* k)
{
    (void)c;
    (void)k;
    return ghz_fail(GHZ_ERR_UNSUPPORTED, NO_MPI);
}

ghz_status_t coll_mpi_counts(ghz_comm_t* c, const size_t* mine, int alltoall, size_t* got)
{
    (void)mine;
    (void)alltoall;
    (void)got;
    return coll_mpi_move(c, NULL);
}
