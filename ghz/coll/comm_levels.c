/* ghz/coll/comm_levels.c: the two-level children of a communicator, made at the first
 * call that needs them (coll_comm_levels). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/detail/error.h"

/* The node's child over NCCL compresses nothing: the least codec workspace. */
#define EXACT_CHILD_CHUNK ((size_t)1 << 16)

#ifdef GHZ_WITH_NCCL
/* A two-level child over NCCL: the ranks of p of one color, in p's rank order, on an
 * NCCL communicator split from p's (ncclCommSplit needs no MPI, which a communicator of
 * ghz_comm_init_rank lacks). A leaf with p's configuration that decides no call.
 * exact_only: the node's child, which runs NCCL's own calls on the caller's buffers
 * only, so takes the least pool. Collective over p: every rank calls it (one whose
 * earlier step failed takes part without a color). The child comes back even when it
 * is incomplete: it is released after the agreement (coll_comm_levels), on every rank
 * at once, since destroying an NCCL communicator meets its peers on the node. */
static ghz_status_t nccl_child(ghz_comm_t* p, int color, int exact_only, ghz_status_t st, ghz_comm_t** out)
{
    ghz_comm_t* c = st == GHZ_SUCCESS ? coll_comm_new() : NULL;
    ghz_status_t made;
    *out = c;
    if (st == GHZ_SUCCESS && !c) st = ghz_fail(GHZ_ERR_NOMEM, "two-level child communicator");
    if (c) {
        /* the environment's knobs, read again as comm_init reads them for a child over
         * MPI: a value this rank cannot parse fails its child, and so the call on every
         * rank (coll_comm_levels agrees), which the tests use to fail one rank's split */
        st = coll_knobs_read(&c->knobs);
        c->cfg = p->cfg;
        c->cfg.allreduce_algo = c->cfg.reduce_scatter_algo = c->cfg.reduce_algo = GHZ_ALGO_AUTO;
        c->cfg.ranks_per_node = 0;
        if (exact_only) {
            c->cfg.pool_bytes = COLL_MIN_POOL;
            c->cfg.chunk_bytes = EXACT_CHILD_CHUNK; /* (the codec's workspace is one piece's) */
        }
        c->nodes = 1;
        c->tp.name = "nccl";
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
    if (c->intra && c->inter) return GHZ_SUCCESS;
    if (!c->levels) return ghz_fail(GHZ_ERR_UNSUPPORTED, "internal: no two levels here");
#ifdef GHZ_WITH_NCCL
    if (c->nccl) {
        /* NCCL inside the node, and NCCL across nodes for the compressed stage (no CUDA
         * IPC or MPI is involved); the second split runs whatever the first did */
        st = nccl_child(c, c->node_color, 1, GHZ_SUCCESS, &c->intra);
        if (st != GHZ_SUCCESS) strncpy(keep, ghz_last_error_detail(), sizeof keep - 1);
        st2 = nccl_child(c, c->local_rank, 0, st, &c->inter);
    } else
#endif
    {
        /* Both are made on every rank whatever the first one did: each init is
         * collective over its own ranks, so a rank that skipped one would leave its peers
         * waiting. */
        st = coll_mpi_child(c, 0, &c->intra);
        /* (the next init clears the detail: the first failure's is kept) */
        if (st != GHZ_SUCCESS) strncpy(keep, ghz_last_error_detail(), sizeof keep - 1);
        st2 = coll_mpi_child(c, 1, &c->inter);
    }
    if (st != GHZ_SUCCESS) st = ghz_fail(st, "the node's child communicator: %s", keep);
    else if (st2 != GHZ_SUCCESS) st = st2;
    st = coll_stage_agree(c, st);
    if (st != GHZ_SUCCESS) {
        /* (over MPI each child exists on all of its ranks or none, its init agreed; over
         * NCCL every rank releases what it holds, together) */
        if (c->intra) coll_comm_release(c->intra, 0);
        if (c->inter) coll_comm_release(c->inter, 0);
        c->intra = c->inter = NULL;
    }
    return st;
}
