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

#ifdef GHZ_TEST_CUDA
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

/* The start of a multi-rank GPU test, after MPI_Init: 77 (CTest's skip) where no GPU is
 * usable, or where GHZ_COLL_TRANSPORT=nccl and there are fewer GPUs than ranks (NCCL
 * takes one rank per GPU); else 0, with this rank's device set (rank modulo the GPUs). */
static inline int mpi_check_gpu_start(int rank, int size)
{
    int nd = 0;
    const char* tr = getenv("GHZ_COLL_TRANSPORT");
    if (cudaGetDeviceCount(&nd) != cudaSuccess || nd == 0) {
        if (rank == 0) printf("no GPU: skipped\n");
        return 77;
    }
    if (tr && !strcmp(tr, "nccl") && nd < size) {
        if (rank == 0) printf("NCCL with %d ranks on %d GPU(s): skipped\n", size, nd);
        return 77;
    }
    cudaSetDevice(rank % nd);
    return 0;
}
#endif

/* MPI_Init, this rank and the rank count, and on the CUDA build mpi_check_gpu_start:
 * 77 (MPI finalized) where the test skips, else 0. */
static inline int mpi_check_start(int* argc, char*** argv, int* rank, int* size)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    mpi_check_rank = *rank;
#ifdef GHZ_TEST_CUDA
    if (mpi_check_gpu_start(*rank, *size)) {
        MPI_Finalize();
        return 77;
    }
#endif
    return 0;
}

#endif
