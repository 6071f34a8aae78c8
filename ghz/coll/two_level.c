/* ghz/coll/two_level.c: the two-level allreduce: its stages on the child communicators
 * (inside nodes, across them), each the rounds of a whole call. */
#include <stdint.h>
#include <string.h>

#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* The stages' kinds (detail/reduce_call.h): a ring reduce-scatter and allgather over
 * a balanced split of the whole vector (rank s owns split s), and a binomial broadcast.
 * Each names its algorithm (no choice) and has no checks of its own (the parent call's
 * were). */

/* The longest split: a split round covers [off, off + w) of every split. */
static size_t split_extent(const ghz_comm_t* c, const coll_desc_t* k)
{
    const size_t N = (size_t)c->size;
    return k->count / N + (k->count % N > 0);
}

/* This round's segments: split s is [base_s, base_s + len_s) of the vector. */
static size_t split_segments(ghz_comm_t* c, const coll_desc_t* k, size_t off, size_t window)
{
    const size_t N = (size_t)c->size, q = k->count / N, rem = k->count % N, longest = q + (rem > 0);
    const size_t w = longest - off < window ? longest - off : window;
    size_t s;
    for (s = 0; s < N; s++) {
        size_t base = s * q + (s < rem ? s : rem), len = q + (s < rem);
        c->seg_off[s] = base + (off < len ? off : len);
        c->seg_cnt[s] = off < len ? (len - off < w ? len - off : w) : 0;
    }
    return w;
}

static size_t rs_split_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo,
                             size_t off, size_t window)
{
    const size_t N = (size_t)c->size, e = r->elem;
    const size_t w = split_segments(c, k, off, window);
    (void)algo;
    r->out = k->out;
    coll_ring_reduce_scatter(r, pool, k->out + c->seg_off[c->rank] * e);
    r->logical_bytes = (N - 1) * w * e;
    return w;
}

/* a staged allgather also stages its own split */
static void ag_split_needs(ghz_algo_t algo, coll_need_fn* need, coll_need_fn* need2)
{
    (void)algo;
    *need = coll_allgather_need;
    *need2 = coll_bcast_need;
}

static size_t ag_split_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo,
                             size_t off, size_t window)
{
    const size_t N = (size_t)c->size, e = r->elem;
    const size_t w = split_segments(c, k, off, window);
    (void)algo;
    r->out = k->out;
    if (!coll_zero_copy(r)) {
        /* a staged allgather sends wire frames: stage this rank's split */
        size_t j, n = c->seg_cnt[c->rank], kp = coll_pieces(n, r->piece);
        r->fin = coll_pool_take(pool, coll_seg_wire_cap(r->mode, r->dtype, window, r->piece) + 16);
        if (!r->fin) coll_fail(r, GHZ_ERR_NOMEM);
        for (j = 0; j < kp; j++) {
            size_t pc = coll_piece_n(r, n, j);
            r->fin_sizes[j] = pc ? coll_encode(r, k->out + (c->seg_off[c->rank] + j * r->piece) * e, pc,
                                               r->fin + coll_piece_wire_off(r, j), coll_piece_cap(r, n, j))
                                 : 0;
        }
    }
    coll_ring_allgather(r, pool);
    r->logical_bytes = (N - 1) * w * e;
    return w;
}

static void bcast_needs(ghz_algo_t algo, coll_need_fn* need, coll_need_fn* need2)
{
    (void)algo;
    (void)need2;
    *need = coll_bcast_need;
}

static size_t bcast_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo,
                          size_t off, size_t window)
{
    const size_t e = r->elem;
    const size_t w = k->count - off < window ? k->count - off : window;
    (void)algo;
    r->out = k->out + off * e;
    r->count = w;
    coll_binomial_bcast(r, pool);
    r->logical_bytes = c->rank == k->root ? 0 : w * e;
    return w;
}

static const coll_kind_ops_t coll_rs_split_kind = {
    .kind = KIND_RS_SPLIT,
    .extent = split_extent,
    .round = rs_split_round,
    .nccl_kind = COLL_NCCL_RS_SPLIT,
};

static const coll_kind_ops_t coll_ag_split_kind = {
    .kind = KIND_AG_SPLIT,
    .needs = ag_split_needs,
    .extent = split_extent,
    .round = ag_split_round,
    .nccl_kind = COLL_NCCL_AG_SPLIT,
};

static const coll_kind_ops_t coll_bcast_kind = {
    .kind = KIND_BCAST,
    .needs = bcast_needs,
    .round = bcast_round,
    .nccl_kind = COLL_NCCL_BCAST,
};

/* One stage of a two-level allreduce on a child communicator: the rounds of a whole
 * call, without its checks and agreement (the parent's call agreed for every rank,
 * and every rank of the child takes the stage with the same count). Its bytes and
 * times add to the parent's. Over NCCL the child works on the caller's stream, and an
 * exact stage is NCCL's own call on the caller's buffers (the kind's nccl_kind). */
static ghz_status_t child_stage(ghz_comm_t* cc, coll_kind_t kind, const unsigned char* in, unsigned char* out,
                                size_t count, const coll_desc_t* k, coll_mode_t mode, double eb, ghz_algo_t algo,
                                coll_round_t* sum)
{
    coll_desc_t kk;
    coll_round_t p;
    uint64_t rounds = 0;
    ghz_status_t st;
    if (count == 0) return GHZ_SUCCESS;
    memset(&kk, 0, sizeof kk);
    kk.kind = kind;
    kk.ops = kind == KIND_RS_SPLIT ? &coll_rs_split_kind
             : kind == KIND_AG_SPLIT ? &coll_ag_split_kind
             : kind == KIND_BCAST    ? &coll_bcast_kind
                                     : coll_kind_ops(kind);
    kk.count = count;
    kk.dtype = k->dtype;
    kk.op = k->op;
    kk.stream = k->stream;
    if (cc->nccl && (st = cc->be.begin(&cc->be, k->stream)) != GHZ_SUCCESS) return st;
#ifdef GHZ_WITH_NCCL
    if (cc->nccl && mode == COLL_EXACT && cc->size > 1) {
        /* (a reduce's non-root ranks get nothing: NCCL does not write their recvbuf) */
        const uint64_t bytes = (uint64_t)count * ghz_dtype_size(k->dtype);
        st = coll_nccl_exact(cc, (coll_nccl_kind_t)kk.ops->nccl_kind, in, out ? out : k->out, count, k->dtype, k->op,
                             0, k->stream);
        sum->wire_bytes += bytes;
        sum->logical_bytes += bytes;
        return st;
    }
#endif
    if (cc->size == 1) {
        /* a node of one rank: its reduction is its input */
        if (out && out != in && kind != KIND_BCAST && kind != KIND_AG_SPLIT)
            return cc->be.copy(&cc->be, out, in, count * ghz_dtype_size(k->dtype));
        return GHZ_SUCCESS;
    }
    kk.in = in;
    kk.out = out;
    kk.total = count;
    cc->tp.seq = ++cc->calls;
    coll_proto_init(cc, &kk, mode, eb, &p);
    st = coll_run_rounds(cc, &kk, &p, algo, kk.ops->extent ? kk.ops->extent(cc, &kk) : count, &rounds);
    sum->wire_bytes += p.wire_bytes;
    /* an exact stage sends exactly what the uncompressed form would */
    sum->logical_bytes += mode == COLL_EXACT ? p.wire_bytes : p.logical_bytes;
    sum->t_comp += p.t_comp;
    sum->t_comb += p.t_comb;
    sum->t_dec += p.t_dec;
    sum->t_stage += p.t_stage;
    sum->t_xfer += p.t_xfer;
    return st;
}

/* Every rank learns whether a stage failed anywhere (one small allreduce): the stages
 * run on different child communicators, so a failure must not leave a rank waiting
 * in the next one. With ratio: also the least of the ranks' *ratio (> 0: a rank that
 * compressed nothing has 0), into *ratio on every rank, in the same allreduce. */
static ghz_status_t stage_agree_ratio(ghz_comm_t* c, ghz_status_t st, double* ratio)
{
    /* (the ratio in millionths, negated: the maximum is the least ratio) */
    int64_t w[2];
    ghz_status_t got;
    w[0] = (int64_t)st;
    w[1] = ratio && *ratio > 0.0 && *ratio < 1e12 ? -(int64_t)(*ratio * 1e6) : INT64_MIN;
    got = coll_ctl_max(c, w, ratio ? 2 : 1);
    if (got != GHZ_SUCCESS) return got;
    if (ratio) *ratio = w[1] == INT64_MIN ? 0.0 : (double)-w[1] * 1e-6;
    if (st != GHZ_SUCCESS) return st;
    return w[0] ? ghz_fail(GHZ_ERR_PEER, "another rank failed a two-level stage (%s)",
                           ghz_status_string((ghz_status_t)w[0]))
                : GHZ_SUCCESS;
}

static ghz_status_t stage_agree(ghz_comm_t* c, ghz_status_t st)
{
    return stage_agree_ratio(c, st, NULL);
}

ghz_status_t coll_stage_agree(ghz_comm_t* c, ghz_status_t st)
{
    return stage_agree(c, st);
}

/* The algorithm the leaders run among nodes (the only lossy stage): over NCCL, NCCL's
 * compressed allreduce. */
static ghz_algo_t coll_inter_algo(const ghz_comm_t* c, coll_mode_t mode)
{
    if (c->nccl) return GHZ_ALGO_NCCL;
    if (mode == COLL_EXACT) return GHZ_ALGO_RING;
    return c->nodes <= COLL_SUM_N_MAX ? GHZ_ALGO_PAIRWISE : GHZ_ALGO_RING;
}

double coll_two_level_terms(const ghz_comm_t* c, coll_mode_t mode, ghz_op_t op)
{
    /* only the stage across nodes compresses, over c->nodes ranks (its result is sent
     * compressed: final_wire) */
    if (mode == COLL_EXACT) return 0.0;
    return coll_error_terms(coll_inter_algo(c, mode), mode, op, c->nodes, 1, c->be.has_sum_n);
}

/* Two-level allreduce (COLL.md, Two levels): exact inside nodes, `mode` across them. */
ghz_status_t coll_two_level(ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode, double eb, ghz_algo_t algo,
                            coll_round_t* sum, double* ratio)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const ghz_algo_t across = coll_inter_algo(c, mode);
    uint64_t raw0 = 0, wire0 = 0;
    double mine = 0.0;
    ghz_status_t st;
    /* (the children exist: the call made them before anything moved, runner.c) */
    if (algo == GHZ_ALGO_TWO_LEVEL) {
        /* reduce to the node's rank 0, allreduce among those, broadcast in the node */
        st = child_stage(c->intra, KIND_REDUCE, k->in, c->local_rank == 0 ? k->out : NULL, k->count, k,
                         COLL_EXACT, 0.0, GHZ_ALGO_BINOMIAL, sum);
        st = stage_agree(c, st);
        raw0 = sum->logical_bytes;
        wire0 = sum->wire_bytes;
        if (st == GHZ_SUCCESS && c->local_rank == 0)
            st = child_stage(c->inter, KIND_ALLREDUCE, k->out, k->out, k->count, k, mode, eb, across, sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS)
            st = child_stage(c->intra, KIND_BCAST, k->out, k->out, k->count, k, COLL_EXACT, 0.0, GHZ_ALGO_BINOMIAL,
                             sum);
    } else {
        /* reduce-scatter in the node, each local rank's split across nodes, allgather */
        const size_t L = (size_t)c->local_size, l = (size_t)c->local_rank, q = k->count / L, rem = k->count % L;
        const size_t base = l * q + (l < rem ? l : rem), len = q + (l < rem);
        st = child_stage(c->intra, KIND_RS_SPLIT, k->in, k->out, k->count, k, COLL_EXACT, 0.0, GHZ_ALGO_RING, sum);
        st = stage_agree(c, st);
        raw0 = sum->logical_bytes;
        wire0 = sum->wire_bytes;
        if (st == GHZ_SUCCESS)
            st = child_stage(c->inter, KIND_ALLREDUCE, k->out + base * e, k->out + base * e, len, k, mode, eb, across,
                             sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS)
            st = child_stage(c->intra, KIND_AG_SPLIT, k->out, k->out, k->count, k, COLL_EXACT, 0.0, GHZ_ALGO_RING,
                             sum);
    }
    if (!ratio) return stage_agree(c, st);
    /* the compression ratio of this rank's stage across nodes */
    if (sum->wire_bytes > wire0) mine = (double)(sum->logical_bytes - raw0) / (double)(sum->wire_bytes - wire0);
    *ratio = mine;
    return stage_agree_ratio(c, st, ratio);
}
