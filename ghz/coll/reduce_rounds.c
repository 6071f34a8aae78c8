/* ghz/coll/reduce_rounds.c: a call in rounds that fit the pool; each kind's round is its
 * entry's. */
#include <stddef.h>
#include <stdint.h>

#include "ghz/codec/codec.h"
#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* The largest window of at most COLL_MAX_PIECES pieces whose buffers fit the pool. */
static size_t coll_fit_window(const ghz_comm_t* c, coll_need_fn need, coll_need_fn need2, coll_mode_t m,
                              ghz_dtype_t t, size_t piece)
{
    size_t lo = 0, hi = COLL_MAX_PIECES * piece;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        size_t bytes = need(c, m, t, mid, piece) + (need2 ? need2(c, m, t, mid, piece) : 0);
        if (bytes <= c->pool_bytes) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static coll_need_fn coll_algo_need(ghz_algo_t algo)
{
    switch (algo) {
    case GHZ_ALGO_RING: return coll_ring_need;
    case GHZ_ALGO_PAIRWISE: return coll_pairwise_need;
    case GHZ_ALGO_RECURSIVE_DOUBLING: return coll_recdbl_need;
#ifdef GHZ_WITH_CUDA
    case GHZ_ALGO_IPC_DIRECT: return coll_direct_need;
#endif
#ifdef GHZ_WITH_NCCL
    case GHZ_ALGO_NCCL: return coll_nccl_need;
#endif
    default: return coll_binomial_need;
    }
}

/* The pool a round needs: the reduction algorithm's and what its kind adds, or the data
 * movement kind's. */
size_t coll_round_window(const ghz_comm_t* c, const coll_desc_t* k, ghz_algo_t algo, coll_mode_t m, int staged,
                         size_t piece)
{
    coll_need_fn need = coll_algo_need(algo), need2 = NULL;
    if (k->mv)
        need = staged && k->mv->need_staged               ? k->mv->need_staged
               : algo == GHZ_ALGO_BINOMIAL && k->mv->need_tree ? k->mv->need_tree
                                                               : k->mv->need;
    else if (k->ops->need)
        need = k->ops->need;
    if (k->ops && (algo == GHZ_ALGO_RING || algo == GHZ_ALGO_PAIRWISE)) need2 = k->ops->need2;
    return coll_fit_window(c, need, need2, m, k->dtype, piece);
}

ghz_status_t coll_run_rounds(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* proto, ghz_algo_t algo,
                             size_t extent, uint64_t* rounds)
{
    const size_t N = (size_t)c->size;
    const size_t window = coll_round_window(c, k, algo, proto->mode, proto->staged, proto->piece);
    const coll_round_t base = *proto; /* (its counters are zero) */
    size_t off = 0;
    *rounds = 0;
    if (window == 0)
        return ghz_fail(GHZ_ERR_NOMEM,
                        "pool_bytes %zu cannot hold one round of %s on %d ranks: configure a larger pool",
                        c->pool_bytes, ghz_algo_name(algo), c->size);
    /* (a data movement whose every block is empty has no round) */
    while (off < extent || (*rounds == 0 && k->ops)) {
        coll_round_t r = base;
        coll_pool_t pool = {c->pool, 0, c->pool_bytes, c->pool_raw, 0, c->pool_raw ? c->pool_bytes : 0};
        size_t w;
        r.fin_sizes = c->wire_size + N * COLL_MAX_PIECES; /* rows < N: pieces per rank */
        if (k->mv) {
            const coll_move_t m = {k->send, k->recv, off, coll_min(extent - off, window)};
            if (k->mv->round) {
                k->mv->round(c, k, &r, &pool, &m, algo, window);
            } else if (algo == GHZ_ALGO_BINOMIAL && k->mv->move_tree) {
                k->mv->move_tree(&r, &m, &pool);
            } else {
                k->mv->move(&r, &m, &pool);
                r.logical_bytes = coll_mv_sent_raw(c, k, &m);
            }
            w = m.w;
        } else {
            w = k->ops->round(c, k, &r, &pool, algo, off, window);
        }
        coll_round_add(proto, &r);
        ++*rounds;
        if (r.st != GHZ_SUCCESS) {
            if (r.st == GHZ_ERR_PEER)
                return ghz_fail(GHZ_ERR_PEER, "another rank failed during the %s", ghz_algo_name(algo));
            return r.st; /* detail set where it failed */
        }
        off += w;
    }
    return GHZ_SUCCESS;
}

size_t coll_piece_elems(const ghz_comm_t* c, coll_mode_t m, size_t elem)
{
    size_t piece = c->cfg.chunk_bytes / elem;
    if (m != COLL_EXACT && piece >= GHZ_BLOCK_ELEMS) piece -= piece % GHZ_BLOCK_ELEMS;
    return piece ? piece : 1;
}

/* A data movement combines nothing, and a piece whose frame is not smaller travels raw;
 * in place, an exact alltoall stages its blocks through the wire buffers. */
void coll_proto_init(ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode, double eb, coll_round_t* proto)
{
    const size_t elem = ghz_dtype_size(k->dtype);
    const coll_round_t p = {.comm = c, .mode = mode, .dtype = k->dtype,
                            .op = k->mv || k->op == GHZ_OP_AVG ? GHZ_OP_SUM : k->op, .elem = elem, .eb = eb,
                            .piece = coll_piece_elems(c, mode, elem), .in = k->in, .out = k->out,
                            .seg_off = c->seg_off, .seg_cnt = c->seg_cnt, .final_wire = k->ops && k->ops->final_wire,
                            .raw_fallback = k->mv != NULL, .root = k->root,
                            .staged = c->be.staged || (k->mv && k->mv->in_place_shared && k->in_place)};
    *proto = p;
}
