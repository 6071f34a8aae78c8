/* ghz/coll/nccl/reduce_nccl.c: a reduction on a communicator with the NCCL transport:
 * NCCL's own exact call, or the compressed rounds (algo_nccl.c). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/coll/detail/reduce_cuda.h"
#include "ghz/detail/error.h"

/* Whether NCCL's own exact call takes the buffers: in place is in == out (reduce_scatter:
 * out at this rank's block of in), anything else must not overlap. MPI_IN_PLACE's
 * reduce_scatter (result at the start of the input) goes to the fold instead. */
static int nccl_takes_buffers(const ghz_comm_t* c, const call_t* k)
{
    const size_t e = ghz_dtype_size(k->dtype), in_bytes = k->total * e, out_bytes = k->count * e;
    const unsigned char *in = k->in, *out = k->out;
    if (!out || in == out) return !k->ops->per_rank || c->rank == 0;
    if (k->ops->per_rank && out == in + (size_t)c->rank * out_bytes) return 1;
    return out + out_bytes <= in || in + in_bytes <= out;
}

/* A call on a communicator with the NCCL transport. Exact calls are NCCL's own, on the
 * caller's stream, behind the argument agreement (check_args) and nothing else; lossy
 * calls compress when their path is HOMO or DOC (which are the same bytes here: the
 * n-ary sum is DOC's left fold), or with AUTO from the link's calibrated size on
 * (nccl_comm.c); a lossy call that AUTO runs exact is NCCL's exact call, its only error
 * the rounding of the sum, with no range scan (so a REL bound is not checked against
 * the data there; COLL.md, NCCL). A compressed allreduce over several nodes
 * (ranks_per_node) runs the two-level algorithm (two_level.c): NCCL's exact calls inside
 * the nodes, the compressed rounds across them only. */
ghz_status_t coll_run_call_nccl(ghz_comm_t* c, call_t* k)
{
    ghz_status_t st;
    coll_call_t mine;
    coll_agreed_t all;
    coll_budget_t budget = {0.0, 0.0, 0.0, 1};
    coll_mode_t mode = COLL_EXACT;
    coll_round_t proto;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    uint64_t rounds = 0;
    const size_t elem = ghz_dtype_size(k->dtype);
    const double t_call = coll_now();
    int lossy, compress = 0, two = 0;
    double ratio = 0.0;
    ghz_algo_t algo;

    ghz_clear_detail();
    memset(&mine, 0, sizeof mine);
    st = coll_call_start(c, k);
    lossy = k->acc != NULL;
    if (st == GHZ_SUCCESS) st = c->be.begin(&c->be, k->stream);
    if (st == GHZ_SUCCESS && lossy)
        compress = k->a.path != GHZ_PATH_AUTO ||
                   (coll_auto_compresses(c, k->total * elem) &&
                    !(c->last_ratio > 0.0 && c->last_ratio < AUTO_MIN_RATIO && c->lossy_calls % RATIO_RETRY != 0) &&
                    /* (where a named algorithm cannot compress, AUTO runs exact: whether a
                     * call succeeds must not depend on the threshold, which a measurement
                     * set; the same on every rank, from the configuration) */
                    coll_check_algo(c, k, coll_choose_algo(c, k, COLL_HOMO), COLL_HOMO) == GHZ_SUCCESS);
    if (st == GHZ_SUCCESS && c->be.capturing && compress)
        st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: a compressed collective reads frame sizes on the host");
    if (st == GHZ_SUCCESS && compress && k->count > 0) {
        double lo = NAN, hi = NAN;
        st = c->be.range(&c->be, k->in, k->total, k->dtype, NULL, &lo, &hi, &mine.nonfinite);
        mine.have_range = !isnan(lo);
        mine.vmin = lo;
        mine.vmax = hi;
    }
    mine.status = st;
    mine.ratio_seen = c->last_ratio;
    mine.ranged = compress;
    coll_agreed_fields(c, k, st, &mine);
    /* (the AUTO choice is the same on every rank by construction; agreeing on it
     * catches a rank whose state diverged) */
    mine.field[AGREE_PATH] = compress;
    memset(&all, 0, sizeof all);
    if (compress || c->cfg.check_args) st = coll_agree(c, &mine, &all);
    if (st != GHZ_SUCCESS) return st;
    algo = coll_choose_algo(c, k, compress ? COLL_HOMO : COLL_EXACT);
    st = coll_check_algo(c, k, algo, compress ? COLL_HOMO : COLL_EXACT);
    if (st != GHZ_SUCCESS) return st;
    two = algo == GHZ_ALGO_TWO_LEVEL || algo == GHZ_ALGO_TWO_LEVEL_MULTI;
    if (lossy) {
        info.bound_abs = k->a.mode == GHZ_EB_ABS ? k->a.bound : 0.0; /* REL: not scanned where exact */
        if (compress) {
            /* (REL: of the range agreed over every rank, whatever the stages) */
            coll_budget_in_t bi = coll_budget_in(c, k, &all);
            /* two levels: only the stage across nodes compresses, over the node count */
            bi.terms = two ? coll_two_level_terms(c, COLL_HOMO, k->op)
                           : coll_error_terms(GHZ_ALGO_NCCL, COLL_HOMO, k->op, c->size, k->ops->final_wire, 1);
            st = coll_derive_eb(&bi, &budget);
            if (st != GHZ_SUCCESS) return st;
            mode = budget.exact ? COLL_EXACT : COLL_HOMO;
            info.bound_abs = budget.bound_abs;
            info.eb_abs = mode == COLL_EXACT ? 0.0 : budget.eb;
            info.error_terms = mode == COLL_EXACT ? 0.0 : bi.terms;
        }
    }
    /* an exact call is NCCL's own (NCCL runs its own hierarchy) */
    if (mode == COLL_EXACT && two) {
        algo = GHZ_ALGO_NCCL;
        two = 0;
    }
    /* The children are made before anything moves (collectively, the outcome agreed over
     * c): where one rank cannot make them the call fails on every rank and the
     * communicator stays whole, so that a later call can make them (as collectives.c). */
    if (two && k->count > 0) {
        st = coll_comm_levels(c);
        if (st != GHZ_SUCCESS) return st;
    }
    c->moving = 1;
    info.algo = algo;
    info.lossy = lossy;
    if (k->count == 0) {
        c->info = info;
        return GHZ_SUCCESS;
    }
    if (mode == COLL_EXACT && !coll_nccl_exact_refusal(k->dtype, k->op) && nccl_takes_buffers(c, k)) {
        const coll_nccl_kind_t nk = (coll_nccl_kind_t)k->ops->nccl_kind;
        st = coll_nccl_exact(c, nk, k->in, k->out, k->count, k->dtype, k->op, k->root, k->stream);
        rounds = 1;
        info.logical_bytes = info.wire_bytes = (uint64_t)k->total * elem;
    } else {
        coll_proto_init(c, k, mode, budget.eb, &proto);
        coll_nccl_call_reset(c);
        if (two) {
            st = coll_two_level(c, k, mode, budget.eb, algo, &proto, &ratio);
            rounds = 1;
        } else {
            st = coll_run_rounds(c, k, &proto, algo, &rounds);
        }
        info.logical_bytes = proto.logical_bytes;
        info.wire_bytes = proto.wire_bytes;
        info.time_compress = proto.t_comp;
        info.time_combine = proto.t_comb;
        info.time_decompress = proto.t_dec;
        info.time_transfer = proto.t_xfer;
    }
    /* AVG: NCCL's (or the fold's) sum, scaled once, on the stream */
    if (st == GHZ_SUCCESS && k->op == GHZ_OP_AVG && coll_has_out(c, k))
        st = ghz_coll_scale_cuda(k->out, k->count, k->dtype, 1.0 / c->size, (cudaStream_t)k->stream);
    if (st != GHZ_SUCCESS) return st;
    info.path = mode == COLL_EXACT ? GHZ_PATH_AUTO : k->a.path == GHZ_PATH_DOC ? GHZ_PATH_DOC : GHZ_PATH_HOMO;
    info.rounds = rounds;
    info.time_total = coll_now() - t_call;
    c->info = info;
    if (lossy) {
        c->lossy_calls++;
        if (mode != COLL_EXACT) c->last_ratio = two ? ratio : coll_nccl_call_ratio(c);
    }
    return GHZ_SUCCESS;
}
