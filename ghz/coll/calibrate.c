/* ghz/coll/calibrate.c: AUTO's threshold at init (auto_rule.h): the transport's exact
 * allreduce timed, the slowest rank's time agreed, the rule applied once. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/plan.h"
#include "ghz/detail/error.h"

/* A few ms on a CPU node; slower calls only make the threshold come earlier. Over NCCL:
 * at most half the pool. */
#define CAL_BYTES ((size_t)1 << 20)
#define CAL_WARMUP 1
#define CAL_TIMED 3
#define NCCL_CAL_BYTES ((size_t)8 << 20)

/* c->auto_min: the knob, else the rule on the slowest rank's time. Every rank takes part
 * in the agreement even after its own timing failed, so the others get GHZ_ERR_PEER. */
static ghz_status_t coll_auto_freeze(ghz_comm_t* c, size_t S, coll_auto_timer_t timer)
{
    const coll_auto_costs_t k = coll_auto_costs(c->cfg.backend);
    ghz_status_t st = GHZ_SUCCESS, agreed;
    double t = 0.0;
    int64_t w[2];
    c->auto_min = SIZE_MAX;
    c->auto_ratio = 0;
    if (c->knobs.auto_min_bytes != COLL_KNOB_UNSET) {
        c->auto_min = c->knobs.auto_min_bytes == COLL_KNOB_NEVER ? SIZE_MAX : c->knobs.auto_min_bytes;
    } else if (c->size > 1) {
        st = timer(c, S, &t);
        if (st != GHZ_SUCCESS || !(t >= 0.0)) t = 0.0; /* (a non-negative double's bits order as integers) */
        memcpy(&w[0], &t, sizeof t);
        w[1] = st != GHZ_SUCCESS;
        agreed = coll_ctl_max(c, w, 2);
        if (st != GHZ_SUCCESS) return st;
        if (agreed != GHZ_SUCCESS) return agreed;
        if (w[1]) return ghz_fail(GHZ_ERR_PEER, "AUTO's calibration failed on another rank");
        memcpy(&t, &w[0], sizeof t);
        c->auto_min = coll_auto_rule(c->size, S, t, &k);
        c->auto_ratio = coll_auto_ratio_frames(c->size, S, t, &k);
    }
    if (c->rank == 0 && c->knobs.debug_info) {
        const double kf = c->size > 1 ? 2.0 * (c->size - 1) / c->size : 0.0;
        char from[96] = "never compress", link[160] = "one rank";
        if (c->auto_min != SIZE_MAX) snprintf(from, sizeof from, "compress from %zu bytes per rank on", c->auto_min);
        if (c->knobs.auto_min_bytes != COLL_KNOB_UNSET)
            snprintf(link, sizeof link, "pinned by GHZ_COLL_AUTO_MIN_BYTES");
        else if (c->size > 1) /* (timed) */
            snprintf(link, sizeof link,
                     "exact allreduce of %zu bytes per rank in %.1f us (slowest rank; busbw %.3f GB/s); F %.0f us, "
                     "G %.1f GB/s, r %g",
                     S, t * 1e6, t > 0.0 ? kf * (double)S / t * 1e-9 : 0.0, k.fixed_s * 1e6, k.codec_bps * 1e-9,
                     k.ratio);
        fprintf(stderr, "ghz coll INFO: AUTO over %s, %d ranks: %s; lossy AUTO calls %s; data movement in %s frames\n",
                ghz_transport_name(c->cfg.transport), c->size, link, from, c->auto_ratio ? "ratio" : "speed");
    }
    return GHZ_SUCCESS;
}

/* The library's own exact allreduce, in place on zeros (floats that are not normal
 * would slow a CPU). */
static ghz_status_t time_exact(ghz_comm_t* c, size_t S, double* seconds)
{
    const size_t n = S / sizeof(float);
    void* buf = c->be.alloc(&c->be, S, COLL_MEM_RAW);
    void* zero = calloc(1, S);
    ghz_status_t st = buf && zero ? GHZ_SUCCESS : ghz_fail(GHZ_ERR_NOMEM, "AUTO's calibration buffer"), agreed;
    const ghz_algo_t algo = c->cfg.allreduce_algo;
    double t0 = 0.0;
    int i;
    int64_t failed;
    if (st == GHZ_SUCCESS) st = c->be.begin(&c->be, NULL);
    if (st == GHZ_SUCCESS) st = c->be.copy(&c->be, buf, zero, S);
    /* every rank enters the calls, or none */
    failed = st != GHZ_SUCCESS;
    agreed = coll_ctl_max(c, &failed, 1);
    if (st == GHZ_SUCCESS && agreed != GHZ_SUCCESS) st = agreed;
    if (st == GHZ_SUCCESS && failed) st = ghz_fail(GHZ_ERR_PEER, "AUTO's calibration failed on another rank");
    /* (the transport's own exact path: a forced algorithm may not run this call) */
    c->cfg.allreduce_algo = GHZ_ALGO_AUTO;
    for (i = 0; i < CAL_WARMUP + CAL_TIMED && st == GHZ_SUCCESS; i++) {
        if (i == CAL_WARMUP) t0 = coll_now();
        coll_desc_t k = coll_make_call(KIND_ALLREDUCE, buf, buf, n, GHZ_F32, GHZ_OP_SUM, 0, NULL, NULL);
        st = coll_run(c, &k);
    }
    c->cfg.allreduce_algo = algo;
    if (st == GHZ_SUCCESS) st = c->be.sync(&c->be); /* (a call may return before its last copy ends) */
    *seconds = (coll_now() - t0) / CAL_TIMED;
    if (buf) c->be.release(&c->be, buf, COLL_MEM_RAW);
    free(zero);
    return st;
}

ghz_status_t coll_auto_calibrate(ghz_comm_t* c)
{
#ifdef GHZ_WITH_NCCL
    if (c->nccl) return coll_auto_freeze(c, coll_min(NCCL_CAL_BYTES, c->pool_bytes / 2) & ~(size_t)15,
                                         coll_nccl_time_allreduce);
#endif
    return coll_auto_freeze(c, CAL_BYTES, time_exact);
}
