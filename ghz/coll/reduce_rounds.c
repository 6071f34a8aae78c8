/* ghz/coll/reduce_rounds.c: a reduction in rounds: the window that fits the pool, the
 * segments of each round, and the algorithm's round. */
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
static void split(ghz_comm_t* c, size_t base, size_t n)
{
    const size_t N = (size_t)c->size, q = n / N, rem = n % N;
    size_t s, at = base;
    for (s = 0; s < N; s++) {
        c->seg_off[s] = at;
        c->seg_cnt[s] = q + (s < rem);
        at += c->seg_cnt[s];
    }
}

ghz_status_t coll_run_rounds(ghz_comm_t* c, const call_t* k, coll_round_t* proto, ghz_algo_t algo,
                               uint64_t* rounds)
{
    const size_t N = (size_t)c->size, e = proto->elem;
    need_fn need, need2 = NULL;
    size_t window, off = 0;
    switch (algo) {
    case GHZ_ALGO_RING: need = coll_ring_need; break;
    case GHZ_ALGO_PAIRWISE: need = coll_pairwise_need; break;
    case GHZ_ALGO_RECURSIVE_DOUBLING: need = coll_recdbl_need; break;
#ifdef GHZ_WITH_CUDA
    case GHZ_ALGO_IPC_DIRECT: need = coll_direct_need; break;
#endif
#ifdef GHZ_WITH_NCCL
    case GHZ_ALGO_NCCL: need = coll_nccl_need; break;
#endif
    default: need = coll_binomial_need; break;
    }
    if (k->kind == KIND_ALLREDUCE && (algo == GHZ_ALGO_RING || algo == GHZ_ALGO_PAIRWISE))
        need2 = coll_allgather_need;
    if (k->kind == KIND_AG_SPLIT) {
        need = coll_allgather_need;
        need2 = coll_bcast_need; /* a staged allgather also stages its own split */
    }
    if (k->kind == KIND_BCAST) need = coll_bcast_need;
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
#ifdef GHZ_WITH_NCCL
        if (algo == GHZ_ALGO_NCCL) {
            /* the NCCL dataflow: segments of the vector (reduce_scatter: the ranks' blocks) */
            if (k->kind == KIND_REDUCE_SCATTER) {
                size_t s;
                w = k->count - off < window ? k->count - off : window;
                for (s = 0; s < N; s++) {
                    c->seg_off[s] = s * k->count + off;
                    c->seg_cnt[s] = w;
                }
                coll_nccl_reduce(&r, &pool, COLL_NCCL_REDUCE_SCATTER, k->out + off * e);
            } else {
                w = k->count - off < window * N ? k->count - off : window * N;
                split(c, off, w);
                r.out = k->out;
                coll_nccl_reduce(&r, &pool, k->kind == KIND_REDUCE ? COLL_NCCL_REDUCE : COLL_NCCL_ALLREDUCE, NULL);
            }
        } else
#endif
        if (k->kind == KIND_RS_SPLIT || k->kind == KIND_AG_SPLIT) {
            /* split s is [base_s, base_s + len_s) of the vector; this round covers
             * [off, off + w) of every split */
            const size_t q = k->count / N, rem = k->count % N, longest = q + (rem > 0);
            size_t s;
            w = longest - off < window ? longest - off : window;
            for (s = 0; s < N; s++) {
                size_t base = s * q + (s < rem ? s : rem), len = q + (s < rem);
                c->seg_off[s] = base + (off < len ? off : len);
                c->seg_cnt[s] = off < len ? (len - off < w ? len - off : w) : 0;
            }
            r.out = k->out;
            if (k->kind == KIND_RS_SPLIT) {
                coll_ring_reduce_scatter(&r, &pool, k->out + c->seg_off[c->rank] * e);
            } else {
                if (!coll_zero_copy(&r)) {
                    /* a staged allgather sends wire frames: stage this rank's split */
                    size_t j, n = c->seg_cnt[c->rank], kp = coll_pieces(n, r.piece);
                    r.fin = coll_pool_take(&pool, coll_seg_wire_cap(r.mode, r.dtype, window, r.piece) + 16);
                    if (!r.fin) coll_fail(&r, GHZ_ERR_NOMEM);
                    for (j = 0; j < kp; j++) {
                        size_t pc = coll_piece_n(&r, n, j);
                        r.fin_sizes[j] = pc ? coll_encode(&r, k->out + (c->seg_off[c->rank] + j * r.piece) * e, pc,
                                                          r.fin + coll_piece_wire_off(&r, j),
                                                          coll_piece_cap(&r, n, j))
                                            : 0;
                    }
                }
                coll_ring_allgather(&r, &pool);
            }
            r.logical_bytes = (N - 1) * w * e;
        } else if (k->kind == KIND_BCAST) {
            w = k->count - off < window ? k->count - off : window;
            r.out = k->out + off * e;
            r.count = w;
            coll_binomial_bcast(&r, &pool);
            r.logical_bytes = c->rank == k->root ? 0 : w * e;
        } else if (k->kind == KIND_REDUCE_SCATTER) {
            size_t s;
            w = k->count - off < window ? k->count - off : window;
            for (s = 0; s < N; s++) {
                c->seg_off[s] = s * k->count + off;
                c->seg_cnt[s] = w;
            }
            if (algo == GHZ_ALGO_RING) coll_ring_reduce_scatter(&r, &pool, k->out + off * e);
#ifdef GHZ_WITH_CUDA
            else if (algo == GHZ_ALGO_IPC_DIRECT)
                coll_direct_reduce(&r, &pool, 0, k->out + off * e); /* counts what the peers read */
#endif
            else coll_pairwise_reduce_scatter(&r, &pool, k->out + off * e);
            if (algo != GHZ_ALGO_IPC_DIRECT) r.logical_bytes = (N - 1) * w * e;
#ifdef GHZ_WITH_CUDA
        } else if (algo == GHZ_ALGO_IPC_DIRECT) {
            w = k->count - off < window * N ? k->count - off : window * N;
            split(c, off, w);
            r.out = k->out;
            coll_direct_reduce(&r, &pool, 1, NULL);
#endif
        } else if (algo == GHZ_ALGO_RING || algo == GHZ_ALGO_PAIRWISE) {
            w = k->count - off < window * N ? k->count - off : window * N;
            split(c, off, w);
            r.out = k->out;
            if (algo == GHZ_ALGO_RING) coll_ring_reduce_scatter(&r, &pool, k->out + c->seg_off[c->rank] * e);
            else coll_pairwise_reduce_scatter(&r, &pool, k->out + c->seg_off[c->rank] * e);
            coll_ring_allgather(&r, &pool);
            r.logical_bytes = 2 * (w - c->seg_cnt[c->rank]) * e;
        } else {
            w = k->count - off < window ? k->count - off : window;
            r.in = k->in + off * e;
            r.out = k->out ? k->out + off * e : NULL;
            r.count = w;
            if (algo == GHZ_ALGO_RECURSIVE_DOUBLING) {
                int steps = 0, P = 1;
                while (P * 2 <= c->size) {
                    P *= 2;
                    steps++;
                }
                coll_recdbl_allreduce(&r, &pool);
                r.logical_bytes = (uint64_t)(steps + (c->rank < 2 * (c->size - P))) * w * e;
            } else {
                coll_binomial_reduce(&r, &pool);
                r.logical_bytes = c->rank == k->root ? 0 : w * e;
            }
        }
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
    } while (off < (k->kind == KIND_RS_SPLIT || k->kind == KIND_AG_SPLIT
                        ? k->count / N + (k->count % N > 0)
                        : k->count));
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
    proto->final_wire = k->kind == KIND_ALLREDUCE;
    proto->staged = c->be.staged;
    proto->root = k->root;
}
