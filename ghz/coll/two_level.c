/* ghz/coll/two_level.c: the two-level allreduce (COLL.md, Two levels): its stages on the
 * child communicators, each the rounds of a whole call. */
#include <stdint.h>

#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* The stages' kinds: a ring reduce-scatter and allgather over a balanced split of the
 * whole vector (rank s owns split s; a round covers [off, off + w) of every split), and a
 * binomial broadcast; each names its algorithm, and the parent call did the checks. */
static size_t split_extent(const ghz_comm_t* c, const coll_desc_t* k)
{
    return k->count / (size_t)c->size + (k->count % (size_t)c->size > 0);
}

static size_t split_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo,
                          size_t off, size_t window)
{
    const size_t N = (size_t)c->size, q = k->count / N, rem = k->count % N, e = r->elem;
    const size_t w = coll_min(q + (rem > 0) - off, window);
    unsigned char* own;
    size_t s;
    (void)algo;
    for (s = 0; s < N; s++) {
        size_t base = s * q + (s < rem ? s : rem), len = q + (s < rem);
        c->seg_off[s] = base + (off < len ? off : len);
        c->seg_cnt[s] = off < len ? (len - off < w ? len - off : w) : 0;
    }
    own = k->out + c->seg_off[c->rank] * e;
    r->out = k->out;
    if (k->kind == KIND_RS_SPLIT) {
        coll_ring_reduce_scatter(r, pool, own);
    } else {
        coll_stage_fin(r, pool, own, c->seg_cnt[c->rank], window);
        coll_ring_allgather(r, pool);
    }
    r->logical_bytes = (N - 1) * w * e;
    return w;
}

static size_t bcast_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo,
                          size_t off, size_t window)
{
    const size_t e = r->elem;
    const size_t w = coll_min(k->count - off, window);
    (void)algo;
    r->out = k->out + off * e;
    r->count = w;
    coll_binomial_bcast(r, pool);
    r->logical_bytes = c->rank == k->root ? 0 : w * e;
    return w;
}

static const coll_kind_ops_t coll_rs_split_kind = {
    .kind = KIND_RS_SPLIT, .extent = split_extent, .round = split_round, .nccl_kind = COLL_NCCL_RS_SPLIT};
static const coll_kind_ops_t coll_ag_split_kind = {
    .kind = KIND_AG_SPLIT, .need = coll_allgather_need, .need2 = coll_bcast_need /* (its own split, staged) */,
    .extent = split_extent, .round = split_round, .nccl_kind = COLL_NCCL_AG_SPLIT};
static const coll_kind_ops_t coll_bcast_kind = {
    .kind = KIND_BCAST, .need = coll_bcast_need, .round = bcast_round, .nccl_kind = COLL_NCCL_BCAST};

/* One stage on a child communicator, without checks and agreement (the parent's call
 * agreed for every rank); its bytes and times add to sum. Over NCCL an exact stage is
 * NCCL's own call on the caller's stream. */
static ghz_status_t child_stage(ghz_comm_t* cc, const coll_kind_ops_t* ops, const unsigned char* in,
                                unsigned char* out, size_t count, const coll_desc_t* k, coll_mode_t mode, double eb,
                                ghz_algo_t algo, coll_round_t* sum)
{
    const coll_desc_t kk = {.kind = ops->kind, .ops = ops, .count = count, .dtype = k->dtype, .op = k->op,
                            .stream = k->stream, .in = in, .out = out, .total = count};
    coll_round_t p;
    uint64_t rounds = 0;
    ghz_status_t st;
    if (count == 0) return GHZ_SUCCESS;
    if (cc->nccl && (st = cc->be.begin(&cc->be, k->stream)) != GHZ_SUCCESS) return st;
#ifdef GHZ_WITH_NCCL
    if (cc->nccl && mode == COLL_EXACT && cc->size > 1) {
        /* (a reduce's non-root ranks get nothing: NCCL does not write their recvbuf) */
        const uint64_t bytes = (uint64_t)count * ghz_dtype_size(k->dtype);
        st = coll_nccl_exact(cc, (coll_nccl_kind_t)ops->nccl_kind, in, out ? out : k->out, count, k->dtype, k->op,
                             0, k->stream);
        sum->wire_bytes += bytes;
        sum->logical_bytes += bytes;
        return st;
    }
#endif
    if (cc->size == 1) /* a node of one rank: its reduction is its input */
        return out && out != in && ops->kind != KIND_BCAST && ops->kind != KIND_AG_SPLIT
                   ? cc->be.copy(&cc->be, out, in, count * ghz_dtype_size(k->dtype))
                   : GHZ_SUCCESS;
    cc->tp.seq = ++cc->calls;
    coll_proto_init(cc, &kk, mode, eb, &p);
    st = coll_run_rounds(cc, &kk, &p, algo, ops->extent ? ops->extent(cc, &kk) : count, &rounds);
    if (mode == COLL_EXACT) p.logical_bytes = p.wire_bytes; /* exactly the uncompressed bytes */
    coll_round_add(sum, &p);
    return st;
}

/* The stages run on different children (the host path's: after its copy), so a failure
 * must not leave a rank waiting in the next one: every rank learns whether one failed
 * anywhere, and with ratio the least of the ranks' *ratio > 0 (in millionths, negated:
 * the maximum is the least). */
ghz_status_t coll_stage_agree(ghz_comm_t* c, ghz_status_t st, double* ratio)
{
    int64_t w[2];
    ghz_status_t got;
    w[0] = (int64_t)st;
    w[1] = ratio && *ratio > 0.0 && *ratio < 1e12 ? -(int64_t)(*ratio * 1e6) : INT64_MIN;
    got = coll_ctl_max(c, w, ratio ? 2 : 1);
    if (got != GHZ_SUCCESS) return got;
    if (ratio) *ratio = w[1] == INT64_MIN ? 0.0 : (double)-w[1] * 1e-6;
    if (st != GHZ_SUCCESS) return st;
    return w[0] ? ghz_fail(GHZ_ERR_PEER, "another rank failed a stage of this call (%s)",
                           ghz_status_string((ghz_status_t)w[0]))
                : GHZ_SUCCESS;
}

/* The algorithm across nodes, the only lossy stage. */
static ghz_algo_t coll_inter_algo(const ghz_comm_t* c, coll_mode_t mode)
{
    if (c->nccl) return GHZ_ALGO_NCCL;
    return mode != COLL_EXACT && c->nodes <= COLL_SUM_N_MAX ? GHZ_ALGO_PAIRWISE : GHZ_ALGO_RING;
}

double coll_two_level_terms(const ghz_comm_t* c, coll_mode_t mode, ghz_op_t op)
{
    return mode == COLL_EXACT ? 0.0 : coll_error_terms(coll_inter_algo(c, mode), mode, op, c->nodes, 1, c->be.has_sum_n);
}

/* Single leader: reduce to the node's rank 0, allreduce among those, broadcast in the
 * node. Multi-leader: reduce-scatter in the node, each local rank's split across nodes,
 * allgather in the node. */
ghz_status_t coll_two_level(ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode, double eb, ghz_algo_t algo,
                            coll_round_t* sum, double* ratio)
{
    const int multi = algo != GHZ_ALGO_TWO_LEVEL;
    const ghz_algo_t inside = multi ? GHZ_ALGO_RING : GHZ_ALGO_BINOMIAL;
    const size_t L = (size_t)c->local_size, l = (size_t)c->local_rank, q = k->count / L, rem = k->count % L;
    unsigned char* at = k->out + (multi ? l * q + (l < rem ? l : rem) : 0) * ghz_dtype_size(k->dtype);
    uint64_t raw0, wire0;
    ghz_status_t st = child_stage(c->intra, multi ? &coll_rs_split_kind : coll_kind_ops(KIND_REDUCE), k->in,
                                  multi || l == 0 ? k->out : NULL, k->count, k, COLL_EXACT, 0.0, inside, sum);
    st = coll_stage_agree(c, st, NULL);
    raw0 = sum->logical_bytes;
    wire0 = sum->wire_bytes;
    if (st == GHZ_SUCCESS && (multi || l == 0))
        st = child_stage(c->inter, coll_kind_ops(KIND_ALLREDUCE), at, at, multi ? q + (l < rem) : k->count, k, mode, eb,
                         coll_inter_algo(c, mode), sum);
    st = coll_stage_agree(c, st, NULL);
    if (st == GHZ_SUCCESS)
        st = child_stage(c->intra, multi ? &coll_ag_split_kind : &coll_bcast_kind, k->out, k->out, k->count, k,
                         COLL_EXACT, 0.0, inside, sum);
    if (ratio) /* this rank's across nodes */
        *ratio = sum->wire_bytes > wire0 ? (double)(sum->logical_bytes - raw0) / (double)(sum->wire_bytes - wire0)
                                         : 0.0;
    return coll_stage_agree(c, st, ratio);
}
