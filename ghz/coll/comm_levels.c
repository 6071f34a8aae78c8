/* ghz/coll/comm_levels.c: the two-level children, made at the first call that needs them. */
#include <stdint.h>
#include <string.h>

#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/detail/error.h"

/* (the node's child over NCCL compresses nothing) */
#define EXACT_CHILD_CHUNK ((size_t)1 << 16)

#ifdef GHZ_WITH_NCCL
/* A child split from p's NCCL communicator (needs no MPI); exact_only: the least pool.
 * Collective over p. An incomplete child comes back too: it is released after the
 * agreement on every rank at once (destroying an NCCL communicator meets its peers). */
static ghz_status_t nccl_child(ghz_comm_t* p, int color, int exact_only, ghz_status_t st, ghz_comm_t** out)
{
    ghz_comm_t* c = st == GHZ_SUCCESS ? coll_comm_new() : NULL;
    ghz_status_t made;
    *out = c;
    if (st == GHZ_SUCCESS && !c) st = ghz_fail(GHZ_ERR_NOMEM, "two-level child communicator");
    if (c) {
        /* (as for a child over MPI; the tests fail one rank's split through a bad knob) */
        st = coll_knobs_read(&c->knobs);
        c->cfg = p->cfg;
        c->cfg.allreduce_algo = c->cfg.reduce_scatter_algo = c->cfg.reduce_algo = GHZ_ALGO_AUTO;
        c->cfg.ranks_per_node = 0;
        if (exact_only) {
            c->cfg.pool_bytes = COLL_MIN_POOL;
            c->cfg.chunk_bytes = EXACT_CHILD_CHUNK;
        }
        c->nodes = 1;
        c->tp.shared_gpu = 0;
        c->staged_range_gpu_min = SIZE_MAX;
        if (st == GHZ_SUCCESS) st = ghz_coll_backend_cuda(c->cfg.chunk_bytes, &c->be);
    }
    made = coll_nccl_split(p, st == GHZ_SUCCESS ? c : NULL, color);
    if (st == GHZ_SUCCESS) st = made;
    if (st == GHZ_SUCCESS) st = coll_comm_alloc_buffers(c);
    return st;
}
#endif

ghz_status_t coll_comm_levels(ghz_comm_t* c)
{
    ghz_status_t st, st2;
    char keep[256] = "";
    if (c->intra && c->inter) return GHZ_SUCCESS; /* (c->levels: coll_check_algo) */
#ifdef GHZ_WITH_NCCL
    if (c->nccl) {
        /* (the second split runs whatever the first did) */
        st = nccl_child(c, c->node_color, 1, GHZ_SUCCESS, &c->intra);
        if (st != GHZ_SUCCESS) strncpy(keep, ghz_last_error_detail(), sizeof keep - 1);
        st2 = nccl_child(c, c->local_rank, 0, st, &c->inter);
    } else
#endif
    {
        /* (both whatever the first did: each init is collective) */
        st = coll_mpi_child(c, 0, &c->intra);
        /* (the next init clears the detail: the first failure's is kept) */
        if (st != GHZ_SUCCESS) strncpy(keep, ghz_last_error_detail(), sizeof keep - 1);
        st2 = coll_mpi_child(c, 1, &c->inter);
    }
    if (st != GHZ_SUCCESS) st = ghz_fail(st, "the node's child communicator: %s", keep);
    else if (st2 != GHZ_SUCCESS) st = st2;
    st = coll_stage_agree(c, st, NULL);
    if (st != GHZ_SUCCESS) {
        if (c->intra) coll_comm_release(c->intra, 0);
        if (c->inter) coll_comm_release(c->inter, 0);
        c->intra = c->inter = NULL;
    }
    return st;
}
