/* ghz/coll/detail/agree_shm.h: the agreements' allreduce through shared memory, for a
 * communicator whose ranks are all on one node (agree_shm.c). Private. */
#ifndef GHZ_COLL_DETAIL_AGREE_SHM_H
#define GHZ_COLL_DETAIL_AGREE_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "ghz/errors.h"

/* Most words of one allreduce here (more go to the communicator's control allreduce). */
#define COLL_SHM_WORDS 64

typedef struct coll_shm coll_shm_t;

/* Whether this rank wants the shared segment: always in the shipped library; the tests'
 * copy (ghz_coll_test_staged) turns it off with GHZ_COLL_TEST_AGREE_SHM=0, so that the
 * agreements' path between hosts (MPI's or NCCL's allreduce) is tested on one host. */
int coll_shm_wanted(void);

/* The communicator's control allreduce (MPI's, or NCCL's): w[0..n) = its maximum over
 * the ranks. */
typedef ghz_status_t (*coll_shm_ctl_fn)(void* ctx, int64_t* w, int n);

/* Collective through ctl: the segment over memory that every rank of a node allocated a
 * part of (an MPI window: comm_make.c), parts[q] rank q's part as mapped here
 * (coll_shm_part_bytes each), or parts NULL where this rank has none. This rank's part
 * is cleared. NULL on every rank where any passed none; the parts stay the caller's, to
 * free after coll_shm_destroy (never after coll_shm_abandon: the peers may still read
 * them). *status: ctl's failure, else GHZ_SUCCESS. */
size_t coll_shm_part_bytes(void);
coll_shm_t* coll_shm_create_parts(int rank, int size, void* const* parts, coll_shm_ctl_fn ctl, void* ctx,
                                  ghz_status_t* status);

/* Collective through ctl (a few one-word allreduces): the same segment as a POSIX
 * shared-memory object, where every rank passes the same `host` (coll_shm_host_id) and
 * the same key (the communicator's unique id: the object's name and a nonce in it come
 * from it, so concurrent jobs never share one), has size ranks in all, and wants it.
 * Rank 0 creates the object, the others open and check it, and rank 0 removes its name
 * as soon as every rank tried, so that none outlives the job. All or nothing: NULL on
 * every rank where any rank could not map it (ranks in containers that do not share
 * /dev/shm, a name taken, no memory); the communicator then keeps ctl. *status: ctl's
 * failure (the ranks may then be out of step), else GHZ_SUCCESS, segment or not. */
coll_shm_t* coll_shm_create_posix(int rank, int size, uint64_t host, const void* key, size_t key_bytes, int want,
                                  coll_shm_ctl_fn ctl, void* ctx, ghz_status_t* status);
/* This host's identity, for coll_shm_create_posix: a hash of the hostname, the kernel's
 * boot id and /dev/shm's device, equal for processes that can share a POSIX segment. */
uint64_t coll_shm_host_id(void);
/* The POSIX object's name for a key (for tests: no name is left after the creation). */
void coll_shm_posix_name(const void* key, size_t key_bytes, char* name, size_t len);
/* Whether s is a POSIX segment (else parts); NULL: 0. */
int coll_shm_is_posix(const coll_shm_t* s);

/* Whether every rank releases its communicator with every rank, so that
 * the parts' owner may meet them (MPI_Win_free is collective): this rank says it does,
 * then waits until every peer said how it releases (or released alone: a broken
 * communicator, ghz_comm_abort; or its process ended). 1 on every rank that asks, or 0
 * on every one, so that no healthy rank waits in MPI_Win_free for a peer that released
 * alone. NULL: 1. */
int coll_shm_together(coll_shm_t* s);
/* Releases s after coll_shm_together said every rank does; NULL is fine. */
void coll_shm_destroy(coll_shm_t* s);
/* Releases s on this rank alone (ghz_comm_abort, a broken communicator): a POSIX mapping
 * is unmapped. Peers that wait in coll_shm_max for this rank then fail with GHZ_ERR_PEER
 * instead of waiting on. NULL is fine. */
void coll_shm_abandon(coll_shm_t* s);
/* w[0..n) = its maximum over the ranks, n <= COLL_SHM_WORDS. Every rank calls it in
 * the same order (as it would MPI_Allreduce). GHZ_ERR_PEER when a rank it waits for
 * released its communicator (and from then on at once). */
ghz_status_t coll_shm_max(coll_shm_t* s, int64_t* w, int n);

#endif
