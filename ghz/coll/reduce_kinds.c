/* ghz/coll/reduce_kinds.c: the entries of allreduce, reduce and reduce_scatter. */
#include <stddef.h>
#include <stdint.h>

#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/reduce_call.h"

/* The segments reduced by algo: the ring's or the pairwise reduce-scatter (1 returned),
 * this rank's to out_own (NULL: its place in k->out); NCCL's and ipc_direct's, which
 * count their bytes: this rank's to out_own, or every one into k->out where it is NULL. */
static int reduce_segments(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo,
                           unsigned char* out_own)
{
#ifdef GHZ_WITH_NCCL
    if (algo == GHZ_ALGO_NCCL) coll_nccl_reduce(r, pool, (coll_nccl_kind_t)k->ops->nccl_kind, out_own);
#endif
#ifdef GHZ_WITH_CUDA
    if (algo == GHZ_ALGO_IPC_DIRECT) coll_direct_reduce(r, pool, out_own == NULL, out_own);
#endif
    if (algo != GHZ_ALGO_RING && algo != GHZ_ALGO_PAIRWISE) return 0;
    if (!out_own) out_own = k->out + c->seg_off[c->rank] * r->elem;
    if (algo == GHZ_ALGO_RING) coll_ring_reduce_scatter(r, pool, out_own);
    else coll_pairwise_reduce_scatter(r, pool, out_own);
    return 1;
}

/* Recursive doubling and the binomial reduce take the whole vector, window elements a
 * round; the others split window * N elements into segments. (reduce's rounds too) */
static size_t allreduce_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo,
                              size_t off, size_t window)
{
    const int whole = algo == GHZ_ALGO_RECURSIVE_DOUBLING || algo == GHZ_ALGO_BINOMIAL;
    const size_t N = (size_t)c->size, e = r->elem, w = coll_min(k->count - off, whole ? window : window * N);
    int steps = 0, P = 1;
    if (whole) {
        r->in = k->in + off * e;
        r->out = k->out ? k->out + off * e : NULL;
        r->count = w;
        if (algo == GHZ_ALGO_BINOMIAL) {
            coll_binomial_reduce(r, pool);
            r->logical_bytes = c->rank == k->root ? 0 : w * e;
            return w;
        }
        for (; P * 2 <= c->size; P *= 2) steps++;
        coll_recdbl_allreduce(r, pool);
        r->logical_bytes = (uint64_t)(steps + (c->rank < 2 * (c->size - P))) * w * e;
        return w;
    }
    coll_split(c, off, w);
    r->out = k->out;
    if (!reduce_segments(c, k, r, pool, algo, NULL)) return w;
    coll_ring_allgather(r, pool);
    r->logical_bytes = 2 * (w - c->seg_cnt[c->rank]) * e;
    return w;
}

/* The segments are the ranks' blocks, window elements of each a round. */
static size_t reduce_scatter_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool,
                                   ghz_algo_t algo, size_t off, size_t window)
{
    const size_t N = (size_t)c->size, e = r->elem, w = coll_min(k->count - off, window);
    unsigned char* out_own = k->out + off * e;
    size_t s;
    for (s = 0; s < N; s++) {
        c->seg_off[s] = s * k->count + off;
        c->seg_cnt[s] = w;
    }
    if (reduce_segments(c, k, r, pool, algo, out_own)) r->logical_bytes = (N - 1) * w * e;
    return w;
}

static const coll_kind_ops_t allreduce = {
    .kind = KIND_ALLREDUCE, .configured = offsetof(ghz_comm_config_t, allreduce_algo),
    .algos = COLL_ALGO_BIT(GHZ_ALGO_RING) | COLL_ALGO_BIT(GHZ_ALGO_RECURSIVE_DOUBLING) |
             COLL_ALGO_BIT(GHZ_ALGO_PAIRWISE) | COLL_ALGO_BIT(GHZ_ALGO_TWO_LEVEL) |
             COLL_ALGO_BIT(GHZ_ALGO_TWO_LEVEL_MULTI) | COLL_ALGO_BIT(GHZ_ALGO_IPC_DIRECT) | COLL_ALGO_BIT(GHZ_ALGO_MPI),
    .need2 = coll_allgather_need, .round = allreduce_round,
    .final_wire = 1, .host_in_out = 1, .capturable = 1, .nccl_kind = COLL_NCCL_ALLREDUCE};

static const coll_kind_ops_t reduce = {
    .kind = KIND_REDUCE, .rooted = 1, .configured = offsetof(ghz_comm_config_t, reduce_algo),
    .algos = COLL_ALGO_BIT(GHZ_ALGO_BINOMIAL), .round = allreduce_round, .nccl_kind = COLL_NCCL_REDUCE};

static const coll_kind_ops_t reduce_scatter = {
    .kind = KIND_REDUCE_SCATTER, .per_rank = 1, .configured = offsetof(ghz_comm_config_t, reduce_scatter_algo),
    .algos = COLL_ALGO_BIT(GHZ_ALGO_RING) | COLL_ALGO_BIT(GHZ_ALGO_PAIRWISE) | COLL_ALGO_BIT(GHZ_ALGO_IPC_DIRECT),
    .round = reduce_scatter_round, .capturable = 1, .nccl_kind = COLL_NCCL_REDUCE_SCATTER};

const coll_kind_ops_t* coll_kind_ops(coll_kind_t kind)
{
    static const coll_kind_ops_t* const kinds[] = {[KIND_ALLREDUCE] = &allreduce, [KIND_REDUCE] = &reduce,
                                                   [KIND_REDUCE_SCATTER] = &reduce_scatter};
    return (unsigned)kind < sizeof kinds / sizeof kinds[0] ? kinds[kind] : NULL;
}

int coll_has_out(const ghz_comm_t* c, const coll_desc_t* k)
{
    return !k->ops->rooted || c->rank == k->root;
}
