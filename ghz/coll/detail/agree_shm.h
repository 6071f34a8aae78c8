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

/* Always, but in the tests' copy with GHZ_COLL_TEST_AGREE_SHM=0 (tests the path between hosts). */
int coll_shm_wanted(void);

/* The communicator's control allreduce: w[0..n) = its maximum over the ranks. */
typedef ghz_status_t (*coll_shm_ctl_fn)(void* ctx, int64_t* w, int n);

/* Collective through ctl: the segment over parts[q] (rank q's, coll_shm_part_bytes each;
 * NULL: none here). NULL on every rank where any passed none. The parts stay the
 * caller's, to free after coll_shm_destroy (never after coll_shm_abandon: peers may still
 * read them). *status: ctl's failure, else GHZ_SUCCESS. */
size_t coll_shm_part_bytes(void);
coll_shm_t* coll_shm_create_parts(int rank, int size, void* const* parts, coll_shm_ctl_fn ctl, void* ctx,
                                  ghz_status_t* status);

/* Collective through ctl: the same segment as a POSIX object named from key (unique per
 * communicator), where every rank passes the same host and wants it. Rank 0 removes the
 * name once every rank tried. All or nothing: NULL on every rank where any could not map
 * it. *status: ctl's failure, else GHZ_SUCCESS, segment or not. */
coll_shm_t* coll_shm_create_posix(int rank, int size, uint64_t host, const void* key, size_t key_bytes, int want,
                                  coll_shm_ctl_fn ctl, void* ctx, ghz_status_t* status);
/* Equal for processes that can share a POSIX segment (hostname, boot id, /dev/shm). */
uint64_t coll_shm_host_id(void);
/* The POSIX object's name for a key (for tests: no name is left after the creation). */
void coll_shm_posix_name(const void* key, size_t key_bytes, char* name, size_t len);
/* Whether s is a POSIX segment (else parts); NULL: 0. */
int coll_shm_is_posix(const coll_shm_t* s);

/* Whether every rank releases with every rank (MPI_Win_free is collective): the same
 * answer on every rank that asks, so none waits for a peer that released alone. NULL: 1. */
int coll_shm_together(coll_shm_t* s);
/* Releases s after coll_shm_together said every rank does; NULL is fine. */
void coll_shm_destroy(coll_shm_t* s);
/* Releases s on this rank alone: peers waiting in coll_shm_max fail with GHZ_ERR_PEER. */
void coll_shm_abandon(coll_shm_t* s);
/* w[0..n) = its maximum over the ranks, n <= COLL_SHM_WORDS, in the same order on every rank. */
ghz_status_t coll_shm_max(coll_shm_t* s, int64_t* w, int n);

#endif
