/* ghz/coll/detail/agree_shm.h: the agreements' allreduce through shared memory, for a
 * communicator whose ranks are all on one node (agree_shm.c). Private. */
#ifndef GHZ_COLL_DETAIL_AGREE_SHM_H
#define GHZ_COLL_DETAIL_AGREE_SHM_H

#include <mpi.h>
#include <stdint.h>

/* Most words of one allreduce here (more go to MPI). */
#define COLL_SHM_WORDS 64

typedef struct coll_shm coll_shm_t;

/* Collective over comm: the shared segment where every rank of comm is on one node
 * (and comm has several ranks), else NULL on every rank. */
coll_shm_t* coll_shm_create(MPI_Comm comm);
/* Collective (MPI_Win_free); NULL is fine. */
void coll_shm_destroy(coll_shm_t* s);
/* w[0..n) = its maximum over the ranks, n <= COLL_SHM_WORDS. Every rank calls it in
 * the same order (as it would MPI_Allreduce). */
void coll_shm_max(coll_shm_t* s, int64_t* w, int n);

#endif
