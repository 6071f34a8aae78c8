/* ghz/coll/runner.c: the one runner of every call (detail/plan.h), ended by the failure
 * rule; AUTO's calibration at init runs through it too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/plan.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* The value range of what this rank sends; a reduction staged for the host path scans
 * its host copy, or has the range kernel make the copy. */
static ghz_status_t scan(ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre, coll_call_t* mine)
{
    coll_backend_t* be = pre->copied && !pre->range_in_copy ? &c->host->be : &c->be;
    double lo = NAN, hi = NAN;
    ghz_status_t st;
    if (k->mv) return coll_mv_scan(c, k, mine);
    if (k->count == 0) return GHZ_SUCCESS;
    st = be->range(be, be == &c->be ? k->in : coll_host_in(c, k), k->total, k->dtype,
                   pre->range_in_copy ? coll_host_in(c, k) : NULL, &lo, &hi, &mine->nonfinite);
    mine->have_range = !isnan(lo);
    mine->vmin = lo;
    mine->vmax = hi;
    return st;
}

static void call_fields(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre, ghz_status_t st,
                        coll_call_t* mine)
{
    mine->status = st;
    mine->field[AGREE_KIND] = k->kind + k->v;
    mine->field[AGREE_COUNT] = k->v ? 0 : (int64_t)k->count;
    mine->field[AGREE_DTYPE] = k->dtype;
    mine->field[AGREE_OP] = k->op;
    mine->field[AGREE_ROOT] = coll_rooted(k) ? k->root : 0;
    mine->field[AGREE_LOSSY] = k->acc != NULL;
    mine->field[AGREE_CAPTURE] = c->be.capturing;
    if (k->acc && st == GHZ_SUCCESS) {
        mine->field[AGREE_MODE] = k->a.mode;
        memcpy(&mine->field[AGREE_BOUND], &k->a.bound, sizeof(double));
        mine->field[AGREE_PATH] = k->a.path;
    }
    /* (decided before the agreement over NCCL: agreed, it catches a rank that diverged) */
    if (k->ops && c->nccl) mine->field[AGREE_PATH] = pre->compress;
    mine->most[0] = k->longest;
    mine->most[1] = k->farthest;
}

/* The call numbered (coll_call_begin) and checked on this rank; a broken communicator's
 * checked call still meets the peers in the agreement, so that they return GHZ_ERR_PEER
 * instead of waiting. */
static ghz_status_t call_start(ghz_comm_t* c, coll_desc_t* k)
{
    ghz_status_t st;
    coll_call_begin(c);
    st = coll_desc_check(c, k);
    if (st != GHZ_SUCCESS || c->broken == GHZ_SUCCESS) return st;
    return ghz_fail(c->broken,
                    "the communicator is broken: an earlier call failed after its data started to move (%s); "
                    "destroy it (ghz_comm_abort or ghz_comm_destroy)", ghz_status_string(c->broken));
}

static ghz_status_t prepare(ghz_comm_t* c, coll_desc_t* k, coll_pre_t* pre, coll_agreed_t* all, coll_plan_t* p,
                            double* t_copied)
{
    const size_t e = ghz_dtype_size(k->dtype);
    coll_call_t mine;
    ghz_status_t st = call_start(c, k);
    memset(&mine, 0, sizeof mine);
    /* the input must be ready before any backend work reads it */
    if (st == GHZ_SUCCESS) st = c->be.begin(&c->be, k->stream);
    coll_plan_pre(c, k, st == GHZ_SUCCESS, pre);
    if (st == GHZ_SUCCESS && c->be.capturing) {
        const char* why = coll_capture_refusal(c, k, pre);
        if (why) st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: %s", why);
    }
    /* before the agreement, which carries a failure to every rank with nothing moved
     * (after the capture check: reserving waits for the device) */
    if (st == GHZ_SUCCESS && pre->ratio && c->be.reserve_ratio) st = c->be.reserve_ratio(&c->be);
    if (st == GHZ_SUCCESS && pre->copied && !pre->range_in_copy) {
        const double t0 = coll_now();
        st = c->be.copy(&c->be, coll_host_in(c, k), k->in, k->total * e);
        *t_copied = coll_now() - t0;
    }
    if (st == GHZ_SUCCESS && pre->ranged) {
        const double t0 = coll_now();
        st = scan(c, k, pre, &mine);
        if (pre->range_in_copy) *t_copied = coll_now() - t0; /* (the copy's time, with the kernel) */
    }
    mine.ranged = pre->ranged;
    mine.staged = pre->copied && st == GHZ_SUCCESS;
    mine.ratio_seen = c->last_ratio;
    call_fields(c, k, pre, st, &mine);
    all->most[0] = k->longest;
    all->most[1] = k->farthest;
    if (pre->agree) st = coll_agree(c, &mine, all);
    /* a v form's counts are then checked pair by pair, and every rank told the outcome */
    if (pre->agree && st == GHZ_SUCCESS && k->v) {
        call_fields(c, k, pre, coll_mv_check_counts(c, k), &mine);
        st = coll_agree(c, &mine, all);
    }
    return st == GHZ_SUCCESS ? coll_plan(c, k, pre, all, p) : st;
}

static ghz_status_t run_call(ghz_comm_t* c, coll_desc_t* k)
{
    const double t_call = coll_now();
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    coll_pre_t pre;
    coll_agreed_t all;
    coll_plan_t p;
    double t_copied = 0.0, ratio = 0.0;
    ghz_status_t st;

    ghz_clear_detail();
    if (!c) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL communicator");
    memset(&all, 0, sizeof all);
    st = prepare(c, k, &pre, &all, &p, &t_copied);
    if (st != GHZ_SUCCESS) return st;
    if (pre.lossy && k->ops && k->a.path == GHZ_PATH_AUTO && c->auto_trace && c->rank == 0)
        fprintf(stderr,
                "ghz auto: %zu bytes: %s (compresses from %zu bytes; last ratio %.2f; staged %d, every rank %d; "
                "copy %.1f us, agreed after %.1f us)\n",
                k->total * ghz_dtype_size(k->dtype), p.mode == COLL_EXACT ? "exact" : "compressed", c->auto_min,
                all.ratio_seen, pre.copied, all.staged, t_copied * 1e6, (coll_now() - t_call) * 1e6);
    /* made before anything moves: where they cannot be, the call fails on every rank and
     * c stays whole, for a later call to try again */
    if (p.route == COLL_ROUTE_TWO_LEVEL && (st = coll_comm_levels(c)) != GHZ_SUCCESS) return st;
    c->moving = 1; /* from here a failure breaks c */
    if (p.route == COLL_ROUTE_HOST)
        st = coll_host_path(c, k, &p, pre.copied, all.staged, t_copied, &info);
    else
        st = coll_execute(c, k, &p, &info, &ratio);
    if (st != GHZ_SUCCESS) return st;
    info.lossy = pre.lossy;
    if (pre.lossy) info.bound_abs = p.bound_abs;
    if (pre.lossy && p.route != COLL_ROUTE_HOST) {
        info.eb_abs = p.mode == COLL_EXACT ? 0.0 : p.eb;
        info.error_terms = p.terms;
    }
    info.time_total = coll_now() - t_call;
    if (c->auto_trace > 1 && c->rank == 0 && (pre.lossy || pre.copied))
        fprintf(stderr,
                "ghz call: %zu bytes, %s, %s by %s: copy %.1f, compress %.1f, combine %.1f, decompress %.1f, "
                "stage %.1f, total %.1f us\n",
                k->total * ghz_dtype_size(k->dtype), pre.lossy ? "lossy" : "exact",
                p.mode == COLL_EXACT ? "exact" : "compressed", ghz_algo_name(info.algo), t_copied * 1e6,
                info.time_compress * 1e6, info.time_combine * 1e6, info.time_decompress * 1e6,
                info.time_stage * 1e6, info.time_total * 1e6);
    c->info = info;
    /* AUTO's memory of the ratio: the lossy reductions that moved data */
    if (pre.lossy && k->ops && p.route != COLL_ROUTE_NONE && p.route != COLL_ROUTE_SELF) {
        c->lossy_calls++;
        if (p.mode != COLL_EXACT && (c->nccl || ratio > 0.0)) c->last_ratio = ratio;
    }
    return GHZ_SUCCESS;
}

ghz_status_t coll_run(ghz_comm_t* c, coll_desc_t* k)
{
    return coll_call_end(c, run_call(c, k));
}
