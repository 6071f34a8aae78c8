/* test/coll/mpi_check.h: the assertions of the MPI test drivers.
 *
 * MPI tests are plain programs run by mpirun (Criterion forks each test into its own
 * process, which MPI does not survive). A failed CHECK prints rank, file, line and a
 * message and counts; mpi_check_finish() agrees on the count over all ranks and gives
 * the exit status, so one rank's failure fails the test everywhere. */
#ifndef GHZ_TEST_COLL_MPI_CHECK_H
#define GHZ_TEST_COLL_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int mpi_check_failures;
static int mpi_check_rank;

#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        if (!(cond)) {                                                               \
            if (mpi_check_failures < 20) {                                           \
                fprintf(stderr, "rank %d: %s:%d: CHECK(%s) failed: ", mpi_check_rank, \
                        __FILE__, __LINE__, #cond);                                  \
                fprintf(stderr, __VA_ARGS__);                                        \
                fputc('\n', stderr);                                                 \
            }                                                                        \
            mpi_check_failures++;                                                    \
        }                                                                            \
    } while (0)

/* The number of failed checks over every rank; prints a summary on rank 0. */
static inline int mpi_check_finish(const char* what)
{
    int total = 0;
    MPI_Allreduce(&mpi_check_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mpi_check_rank == 0) printf("%s: %s (%d failed checks)\n", what, total ? "FAILED" : "passed", total);
    return total;
}

#endif
