/* ghz/coll/reduce_kinds.c: the entries of ghz_allreduce, ghz_reduce and
 * ghz_reduce_scatter (detail/reduce_call.h, coll_kind_ops_t): the algorithms that run
 * each, and how a round of each runs (AUTO's choice among them: reduce_choose.c). */
#include <stddef.h>
#include <stdint.h>

#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/reduce_call.h"

#ifdef GHZ_WITH_NCCL
/* A round of the NCCL dataflow over segments of the vector (allreduce, reduce). */
static size_t nccl_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, size_t off,
                         size_t window)
{
    const size_t N = (size_t)c->size;
    const size_t w = k->count - off < window * N ? k->count - off : window * N;
    coll_split(c, off, w);
    r->out = k->out;
    coll_nccl_reduce(r, pool, (coll_nccl_kind_t)k->ops->nccl_kind, NULL);
    return w;
}
#endif

static ghz_algo_t allreduce_configured(const ghz_comm_t* c)
{
    return c->cfg.allreduce_algo;
}

/* ring and pairwise: a reduce-scatter, then the allgather of its result */
static void allreduce_needs(ghz_algo_t algo, coll_need_fn* need, coll_need_fn* need2)
{
    (void)need;
    if (algo == GHZ_ALGO_RING || algo == GHZ_ALGO_PAIRWISE) *need2 = coll_allgather_need;
}

static size_t allreduce_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo,
                              size_t off, size_t window)
{
    const size_t N = (size_t)c->size, e = r->elem;
    size_t w;
#ifdef GHZ_WITH_NCCL
    if (algo == GHZ_ALGO_NCCL) return nccl_round(c, k, r, pool, off, window);
#endif
#ifdef GHZ_WITH_CUDA
    if (algo == GHZ_ALGO_IPC_DIRECT) {
        w = k->count - off < window * N ? k->count - off : window * N;
        coll_split(c, off, w);
        r->out = k->out;
        coll_direct_reduce(r, pool, 1, NULL);
        return w;
    }
#endif
    if (algo == GHZ_ALGO_RING || algo == GHZ_ALGO_PAIRWISE) {
        w = k->count - off < window * N ? k->count - off : window * N;
        coll_split(c, off, w);
        r->out = k->out;
        if (algo == GHZ_ALGO_RING) coll_ring_reduce_scatter(r, pool, k->out + c->seg_off[c->rank] * e);
        else coll_pairwise_reduce_scatter(r, pool, k->out + c->seg_off[c->rank] * e);
        coll_ring_allgather(r, pool);
        r->logical_bytes = 2 * (w - c->seg_cnt[c->rank]) * e;
        return w;
    }
    /* recursive doubling: the whole vector, window elements a round */
    {
        int steps = 0, P = 1;
        w = k->count - off < window ? k->count - off : window;
        r->in = k->in + off * e;
        r->out = k->out ? k->out + off * e : NULL;
        r->count = w;
        while (P * 2 <= c->size) {
            P *= 2;
            steps++;
        }
        coll_recdbl_allreduce(r, pool);
        r->logical_bytes = (uint64_t)(steps + (c->rank < 2 * (c->size - P))) * w * e;
        return w;
    }
}

static ghz_algo_t reduce_configured(const ghz_comm_t* c)
{
    return c->cfg.reduce_algo;
}

static size_t reduce_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo,
                           size_t off, size_t window)
{
    const size_t e = r->elem;
    const size_t w = k->count - off < window ? k->count - off : window;
#ifdef GHZ_WITH_NCCL
    if (algo == GHZ_ALGO_NCCL) return nccl_round(c, k, r, pool, off, window);
#else
    (void)algo;
#endif
    /* binomial: the whole vector, window elements a round */
    r->in = k->in + off * e;
    r->out = k->out ? k->out + off * e : NULL;
    r->count = w;
    coll_binomial_reduce(r, pool);
    r->logical_bytes = c->rank == k->root ? 0 : w * e;
    return w;
}

static ghz_algo_t reduce_scatter_configured(const ghz_comm_t* c)
{
    return c->cfg.reduce_scatter_algo;
}

/* The segments are the ranks' blocks, window elements of each a round. */
static size_t reduce_scatter_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool,
                                   ghz_algo_t algo, size_t off, size_t window)
{
    const size_t N = (size_t)c->size, e = r->elem;
    const size_t w = k->count - off < window ? k->count - off : window;
    size_t s;
    for (s = 0; s < N; s++) {
        c->seg_off[s] = s * k->count + off;
        c->seg_cnt[s] = w;
    }
#ifdef GHZ_WITH_NCCL
    if (algo == GHZ_ALGO_NCCL) {
        coll_nccl_reduce(r, pool, COLL_NCCL_REDUCE_SCATTER, k->out + off * e);
        return w;
    }
#endif
    if (algo == GHZ_ALGO_RING) coll_ring_reduce_scatter(r, pool, k->out + off * e);
#ifdef GHZ_WITH_CUDA
    else if (algo == GHZ_ALGO_IPC_DIRECT)
        coll_direct_reduce(r, pool, 0, k->out + off * e); /* counts what the peers read */
#endif
    else coll_pairwise_reduce_scatter(r, pool, k->out + off * e);
    if (algo != GHZ_ALGO_IPC_DIRECT) r->logical_bytes = (N - 1) * w * e;
    return w;
}

static const coll_kind_ops_t allreduce = {
    .kind = KIND_ALLREDUCE,
    .configured = allreduce_configured,
    .algos = COLL_ALGO_BIT(GHZ_ALGO_RING) | COLL_ALGO_BIT(GHZ_ALGO_RECURSIVE_DOUBLING) |
             COLL_ALGO_BIT(GHZ_ALGO_PAIRWISE) | COLL_ALGO_BIT(GHZ_ALGO_TWO_LEVEL) |
             COLL_ALGO_BIT(GHZ_ALGO_TWO_LEVEL_MULTI) | COLL_ALGO_BIT(GHZ_ALGO_IPC_DIRECT) |
             COLL_ALGO_BIT(GHZ_ALGO_MPI),
    .needs = allreduce_needs,
    .round = allreduce_round,
    .final_wire = 1,
    .host_in_out = 1,
    .capturable = 1,
    .nccl_kind = COLL_NCCL_ALLREDUCE,
};

static const coll_kind_ops_t reduce = {
    .kind = KIND_REDUCE,
    .rooted = 1,
    .configured = reduce_configured,
    .algos = COLL_ALGO_BIT(GHZ_ALGO_BINOMIAL),
    .round = reduce_round,
    .nccl_kind = COLL_NCCL_REDUCE,
};

static const coll_kind_ops_t reduce_scatter = {
    .kind = KIND_REDUCE_SCATTER,
    .per_rank = 1,
    .configured = reduce_scatter_configured,
    .algos = COLL_ALGO_BIT(GHZ_ALGO_RING) | COLL_ALGO_BIT(GHZ_ALGO_PAIRWISE) | COLL_ALGO_BIT(GHZ_ALGO_IPC_DIRECT),
    .round = reduce_scatter_round,
    .capturable = 1,
    .nccl_kind = COLL_NCCL_REDUCE_SCATTER,
};

const coll_kind_ops_t* coll_kind_ops(coll_kind_t kind)
{
    switch (kind) {
    case KIND_ALLREDUCE: return &allreduce;
    case KIND_REDUCE: return &reduce;
    case KIND_REDUCE_SCATTER: return &reduce_scatter;
    default: break;
    }
    return NULL;
}

int coll_has_out(const ghz_comm_t* c, const coll_desc_t* k)
{
    return !k->ops->rooted || c->rank == k->root;
}
