/* test/consumer/coll_main.c: an installed ghz::coll, used from a separate project:
 * an allreduce on the ranks it is started on (mpirun -np 2 in scripts/test.sh). */
#include <stdio.h>

#include "ghz/coll/coll_mpi.h"

int main(int argc, char** argv)
{
    float x[4] = {1, 2, 3, 4}, y[4];
    ghz_comm_t* comm = NULL;
    ghz_status_t st;
    int size = 0, i, bad = 0;
    MPI_Init(&argc, &argv);
    st = ghz_comm_init(MPI_COMM_WORLD, NULL, &comm);
    if (st == GHZ_SUCCESS) st = ghz_comm_size(comm, &size);
    if (st == GHZ_SUCCESS) st = ghz_allreduce(x, y, 4, GHZ_F32, GHZ_OP_SUM, NULL, comm, NULL);
    for (i = 0; st == GHZ_SUCCESS && i < 4; i++) bad += y[i] != x[i] * (float)size;
    if (st != GHZ_SUCCESS || bad) fprintf(stderr, "coll consumer: %s, %d wrong\n", ghz_status_string(st), bad);
    ghz_comm_destroy(comm);
    MPI_Finalize();
    return st != GHZ_SUCCESS || bad;
}
