/* ghz/coll/agree_shm.c: the agreements' allreduce through shared memory, where every
 * rank of a communicator is on one node (detail/agree_shm.h).
 *
 * Why: every checked call agrees first (agree.c), and over NCCL an exact call is
 * otherwise only NCCL's launch; an MPI_Allreduce of a few words costs a few
 * microseconds, as much as NCCL's whole small allreduce on NVLink. Here each rank
 * writes its words and then its sequence number into its own slot of one shared
 * segment (MPI_Win_allocate_shared), waits until every slot carries the sequence, and
 * takes the maximum itself: a handful of cache-line transfers.
 *
 * Why two buffers suffice: a rank writes call s's words into buffer s mod 2 only after
 * it saw every rank's sequence reach s - 1 (in the other buffer), which each rank
 * publishes after it finished reading call s - 2's words, the last ones in this one.
 *
 * A waiting rank spins, and yields the CPU after a while: where ranks outnumber cores
 * (CI runs 8 on 2), the rank it waits for needs that CPU. */
#define _POSIX_C_SOURCE 200809L /* sched_yield */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/agree_shm.h"
#include "ghz/coll/detail/transport.h"
#include "ghz/detail/error.h"

/* One buffer: the sequence number of the call whose words it holds, on the same cache
 * line as the first words, so that the line a reader waits for brings them along (an
 * agreement of a few words costs one line a peer, not two). */
typedef struct {
    _Alignas(64) _Atomic uint64_t seq;
    int64_t words[COLL_SHM_WORDS];
} buf_t;
_Static_assert(sizeof(buf_t) % 64 == 0, "every buffer starts a cache line");

/* One rank's slot: two buffers. The window's segments need not start cache lines (Open
 * MPI's are 8-byte aligned), so each rank's segment holds a line more than its slot,
 * which starts at the segment's first line. */
typedef struct {
    buf_t buf[2];
} slot_t;
#define SEGMENT_BYTES (sizeof(slot_t) + 64)

static slot_t* slot_in(void* segment)
{
    return (slot_t*)(((uintptr_t)segment + 63u) & ~(uintptr_t)63u);
}

struct coll_shm {
    MPI_Win win;
    slot_t** slots;  /* every rank's, in rank order */
    int rank, size;
    uint64_t seq;    /* this rank's last call */
};

coll_shm_t* coll_shm_create(MPI_Comm comm)
{
    MPI_Comm node = MPI_COMM_NULL;
    coll_shm_t* s = NULL;
    int rank, size, local = 0, ok, all_ok = 0, du, q;
    MPI_Aint bytes;
    void *mine = NULL, *theirs;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2 || MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return NULL;
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    /* (every rank sees the same: all on one node, or not) */
    if (local != size) return NULL;
    s = (coll_shm_t*)calloc(1, sizeof *s);
    if (s) s->slots = (slot_t**)calloc((size_t)size, sizeof *s->slots);
    ok = s != NULL && s->slots != NULL;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        if (s) free(s->slots);
        free(s);
        return NULL;
    }
    ok = MPI_Win_allocate_shared((MPI_Aint)SEGMENT_BYTES, 1, MPI_INFO_NULL, comm, &mine, &s->win) == MPI_SUCCESS;
    for (q = 0; ok && q < size; q++) {
        ok = MPI_Win_shared_query(s->win, q, &bytes, &du, &theirs) == MPI_SUCCESS &&
             bytes >= (MPI_Aint)SEGMENT_BYTES;
        if (ok) s->slots[q] = slot_in(theirs);
    }
    if (ok) {
        /* (zero sequences: the first call is 1) */
        slot_t* own = slot_in(mine);
        memset(own, 0, sizeof *own);
        atomic_store_explicit(&own->buf[0].seq, 0, memory_order_release);
        atomic_store_explicit(&own->buf[1].seq, 0, memory_order_release);
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    /* every rank's slot is zeroed before any rank's first call */
    MPI_Barrier(comm);
    if (!all_ok) {
        coll_shm_destroy(s);
        return NULL;
    }
    s->rank = rank;
    s->size = size;
    return s;
}

void coll_shm_destroy(coll_shm_t* s)
{
    if (!s) return;
    if (s->win != MPI_WIN_NULL && s->win) MPI_Win_free(&s->win);
    free(s->slots);
    free(s);
}

void coll_shm_max(coll_shm_t* s, int64_t* w, int n)
{
    const uint64_t seq = ++s->seq;
    const int b = (int)(seq & 1);
    int q, i;
    memcpy(s->slots[s->rank]->buf[b].words, w, (size_t)n * sizeof *w);
    atomic_store_explicit(&s->slots[s->rank]->buf[b].seq, seq, memory_order_release);
    for (q = 0; q < s->size; q++) {
        buf_t* t = &s->slots[q]->buf[b];
        if (q == s->rank) continue;
        unsigned spins = 0;
        while (atomic_load_explicit(&t->seq, memory_order_acquire) < seq)
            if (++spins > 256) sched_yield();
        for (i = 0; i < n; i++)
            if (t->words[i] > w[i]) w[i] = t->words[i];
    }
}
