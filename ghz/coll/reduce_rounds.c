/* ghz/coll/reduce_rounds.c: a reduction in rounds: the window that fits the pool, the
 * round's pool and the loop; each kind's round is its entry's (reduce_kinds.c). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ghz/codec/codec.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

typedef coll_need_fn need_fn;

size_t coll_fit_window(const ghz_comm_t* c, need_fn need, need_fn need2, coll_mode_t m, ghz_dtype_t t,
                       size_t piece)
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

/* Splits n elements into the communicator's segments, balanced. */
void coll_split(ghz_comm_t* c, size_t base, size_t n)
{
    const size_t N = (size_t)c->size, q = n / N, rem = n % N;
    size_t s, at = base;
    for (s = 0; s < N; s++) {
        c->seg_off[s] = at;
        c->seg_cnt[s] = q + (s < rem);
        at += c->seg_cnt[s];
    }
}

coll_need_fn coll_algo_need(ghz_algo_t algo)
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

/* The kind's rounds (coll_kind_ops_t.round), each in the window that fits the pool. */
ghz_status_t coll_run_rounds(ghz_comm_t* c, const call_t* k, coll_round_t* proto, ghz_algo_t algo,
                             uint64_t* rounds)
{
    const size_t N = (size_t)c->size;
    const size_t extent = k->ops->extent ? k->ops->extent(c, k) : k->count;
    need_fn need = coll_algo_need(algo), need2 = NULL;
    size_t window, off = 0;
    if (k->ops->needs) k->ops->needs(algo, &need, &need2);
    window = coll_fit_window(c, need, need2, proto->mode, k->dtype, proto->piece);
    if (window == 0)
        return ghz_fail(GHZ_ERR_NOMEM,
                        "pool_bytes %zu cannot hold one round of %s on %d ranks: configure a "
                        "larger pool",
                        c->pool_bytes, ghz_algo_name(algo), c->size);
    *rounds = 0;
    do {
        coll_round_t r = *proto;
        coll_pool_t pool = {c->pool, 0, c->pool_bytes, c->pool_raw, 0, c->pool_raw ? c->pool_bytes : 0};
        size_t w;
        r.wire_bytes = 0; /* per round; summed into proto below */
        r.logical_bytes = 0;
        r.t_comp = r.t_comb = r.t_dec = r.t_stage = r.t_xfer = 0.0;
        r.fin_sizes = c->wire_size + N * COLL_MAX_PIECES; /* rows < N: pieces per rank */
        w = k->ops->round(c, k, &r, &pool, algo, off, window);
        proto->wire_bytes += r.wire_bytes;
        proto->logical_bytes += r.logical_bytes;
        proto->t_comp += r.t_comp;
        proto->t_comb += r.t_comb;
        proto->t_dec += r.t_dec;
        proto->t_stage += r.t_stage;
        proto->t_xfer += r.t_xfer;
        ++*rounds;
        if (r.st != GHZ_SUCCESS) {
            if (r.st == GHZ_ERR_PEER)
                return ghz_fail(GHZ_ERR_PEER, "another rank failed during the %s", ghz_algo_name(algo));
            return r.st; /* detail set where it failed */
        }
        off += w;
    } while (off < extent);
    return GHZ_SUCCESS;
}

size_t coll_piece_elems(const ghz_comm_t* c, coll_mode_t m, size_t elem)
{
    size_t piece = c->cfg.chunk_bytes / elem;
    if (m != COLL_EXACT && piece >= GHZ_BLOCK_ELEMS) piece -= piece % GHZ_BLOCK_ELEMS;
    return piece ? piece : 1;
}

/* The round prototype of a call: what every round of it shares. */
void coll_proto_init(ghz_comm_t* c, const call_t* k, coll_mode_t mode, double eb, coll_round_t* proto)
{
    const size_t elem = ghz_dtype_size(k->dtype);
    memset(proto, 0, sizeof *proto);
    proto->comm = c;
    proto->mode = mode;
    proto->dtype = k->dtype;
    proto->op = k->op == GHZ_OP_AVG ? GHZ_OP_SUM : k->op;
    proto->elem = elem;
    proto->eb = eb;
    proto->piece = coll_piece_elems(c, mode, elem);
    proto->in = k->in;
    proto->out = k->out;
    proto->seg_off = c->seg_off;
    proto->seg_cnt = c->seg_cnt;
    proto->final_wire = k->ops->final_wire;
    proto->staged = c->be.staged;
    proto->root = k->root;
}
