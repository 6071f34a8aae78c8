/* ghz/tools/coll_bench/timing.h: nccl-tests' timing, and the rank statistics. */
#ifndef GHZ_TOOLS_COLL_BENCH_TIMING_H
#define GHZ_TOOLS_COLL_BENCH_TIMING_H

#include "calls.h"

/* A row's time across ranks, in microseconds per call. */
typedef struct {
    double us;               /* what -a picks */
    double min, avg, max;    /* over ranks, always */
} cb_time_t;

/* Times c as nccl-tests does: one untimed call and a barrier, `warmup` calls, a
 * barrier, then the wall clock around `iters` calls, divided by iters. In place, the
 * input is reloaded before every call (repeating an in-place SUM would grow the data
 * to infinity, and the lossy paths would see a different input each time); each
 * reload is timed on its own and taken out of the loop's time. On the CUDA backend the
 * reload is a device copy waited for, and the loop's clock stops after the stream is
 * synchronised. Sets *local_us (this rank) and *host_us, the part of it the host spent
 * inside the calls before the final wait (close to *local_us: the host is the bottleneck). Returns 0, or nonzero with c->err set by
 * the first failing call; every rank learns of a failure on any rank (so none waits
 * at the next barrier). */
int cb_time_call(cb_call_t* c, int iters, int warmup, double* local_us, double* host_us);

/* Combines the ranks' times (collective over mpi). */
void cb_time_combine(double local_us, cb_time_mode_t mode, MPI_Comm mpi, cb_time_t* t);

/* nccl-tests' bandwidths from LOGICAL bytes (uncompressed, as if exact), in GB/s
 * (1e9 B/s): algbw = S / t and busbw = algbw * factor, with S the per-rank buffer
 * and 2(n-1)/n for allreduce, S = recvcount * n and (n-1)/n for reduce_scatter, S =
 * count and 1 for reduce; the data movement: S the larger of a rank's send and receive
 * buffers (count * n; broadcast: count) and (n-1)/n (broadcast 1). `bytes` is S. */
void cb_bandwidth(cb_coll_t coll, int nranks, size_t bytes, double us, double* algbw,
                  double* busbw);

#endif
