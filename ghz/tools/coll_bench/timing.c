/* ghz/tools/coll_bench/timing.c: the timed loop and the statistics over ranks. */
#include <stdio.h>
#include <string.h>

#include "timing.h"

/* One call, the input first reloaded in place; returns the reload's seconds. The
 * previous call ends first, on the clock: a call that returns before its GPU work is
 * done (ghz's direct algorithm, exact) must not hide that work in the reload's time,
 * which is taken out. That sync exposes, in place only, whatever a call leaves on the
 * stream (ghz's host path: the copy of the result back), which out of place overlaps
 * the next call's host work: --sync 1 ends every call on the clock in both modes. */
static int one_call(cb_call_t* c, double* reload_s)
{
    int rc;
    if (c->in_place) {
        double t0;
        rc = c->a->sync ? 0 : cb_call_sync(c); /* --sync: the previous call ended synced */
        if (rc != 0) return rc;
        t0 = MPI_Wtime();
        rc = cb_call_reload(c);
        *reload_s += MPI_Wtime() - t0;
        if (rc != 0) return rc;
    }
    rc = cb_call_run(c);
    if (rc == 0 && c->a->sync) rc = cb_call_sync(c);
    return rc;
}

/* Every rank learns whether any rank failed (MPI calls of the bench's own
 * communicator; ghz calls already agree among themselves on arguments). */
static int any_failed(int failed, cb_call_t* c)
{
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, c->mpi);
    if (any && !failed) snprintf(c->err, sizeof c->err, "failed on another rank");
    return any;
}

/* A failed row: its graph (if any) goes, after the stream's work. */
static int row_failed(cb_call_t* c)
{
    if (c->graph) {
        char keep[CB_ERR_LEN];
        memcpy(keep, c->err, sizeof keep); /* the first failure is the one to report */
        cb_call_sync(c);
        memcpy(c->err, keep, sizeof keep);
    }
    cb_call_release(c);
    return 1;
}

int cb_time_call(cb_call_t* c, int iters, int warmup, double* local_us, double* host_us)
{
    double reload = 0.0, t0, t1, t_host;
    int i, failed;
    *local_us = *host_us = 0.0;
    /* --graph: the call is captured once (every rank at once: a captured collective
     * meets its peers at capture), then every call below is a replay */
    if (c->a->graph && any_failed(cb_call_capture(c) != 0, c)) {
        cb_call_release(c);
        return 1;
    }
    failed = one_call(c, &reload);
    if (any_failed(failed, c)) return row_failed(c);
    MPI_Barrier(c->mpi);
    for (i = 0, failed = 0; i < warmup && !failed; ++i) failed = one_call(c, &reload);
    if (any_failed(failed, c)) return row_failed(c);
    MPI_Barrier(c->mpi);
    reload = 0.0;
    t0 = MPI_Wtime();
    for (i = 0, failed = 0; i < iters && !failed; ++i) failed = one_call(c, &reload);
    t_host = MPI_Wtime();
    /* The loop ends when the stream has drained (the ghz calls of the CUDA backend
     * return complete anyway; this keeps the clock honest if they ever do not). */
    if (!failed) failed = cb_call_sync(c);
    t1 = MPI_Wtime();
    if (any_failed(failed, c)) return row_failed(c);
    cb_call_release(c); /* the stream has drained */
    *local_us = (t1 - t0 - reload) / iters * 1e6;
    *host_us = (t_host - t0 - reload) / iters * 1e6;
    return 0;
}

void cb_time_combine(double local_us, cb_time_mode_t mode, MPI_Comm mpi, cb_time_t* t)
{
    double mn, mx, sum, first = local_us;
    int n;
    MPI_Comm_size(mpi, &n);
    MPI_Allreduce(&local_us, &mn, 1, MPI_DOUBLE, MPI_MIN, mpi);
    MPI_Allreduce(&local_us, &mx, 1, MPI_DOUBLE, MPI_MAX, mpi);
    MPI_Allreduce(&local_us, &sum, 1, MPI_DOUBLE, MPI_SUM, mpi);
    MPI_Bcast(&first, 1, MPI_DOUBLE, 0, mpi);
    t->min = mn;
    t->max = mx;
    t->avg = sum / n;
    switch (mode) {
    case CB_TIME_RANK0: t->us = first; break;
    case CB_TIME_MIN: t->us = mn; break;
    case CB_TIME_MAX: t->us = mx; break;
    default: t->us = t->avg; break;
    }
}

void cb_bandwidth(cb_coll_t coll, int nranks, size_t bytes, double us, double* algbw,
                  double* busbw)
{
    double n = nranks, factor;
    switch (coll) {
    case CB_ALLREDUCE: factor = 2.0 * (n - 1.0) / n; break;
    case CB_REDUCE_SCATTER:
    case CB_ALLGATHER:
    case CB_SCATTER:
    case CB_GATHER:
    case CB_ALLTOALL: factor = (n - 1.0) / n; break; /* nccl-tests' factors */
    default: factor = 1.0; break;
    }
    *algbw = us > 0 ? (double)bytes / (us * 1e-6) / 1e9 : 0.0;
    *busbw = *algbw * factor;
}
