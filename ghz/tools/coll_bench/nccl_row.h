/* ghz/tools/coll_bench/nccl_row.h: the `nccl` row of ghz-coll-bench: NCCL's own
 * collective (ncclAllReduce, ncclReduce, ncclReduceScatter) on the same device
 * buffers, on a communicator of its own, so that ghz's rows sit beside NCCL's in the
 * same run (nccl-tests' formulas, timed by the same loop).
 *
 * Only builds with NCCL compile nccl_row.c (GHZ_WITH_NCCL); elsewhere these are stubs
 * that fail, and args.c refuses the path. */
#ifndef GHZ_TOOLS_COLL_BENCH_NCCL_ROW_H
#define GHZ_TOOLS_COLL_BENCH_NCCL_ROW_H

#include <stdio.h>

#include "calls.h"

typedef struct cb_nccl cb_nccl_t;

#ifdef GHZ_WITH_NCCL
/* Makes the NCCL communicator over mpi (collective; the unique id from rank 0 by
 * MPI_Bcast) on the current device. Returns 0, or -1 with err set (*n NULL). */
int cb_nccl_open(cb_nccl_t** n, MPI_Comm mpi, char* err, size_t errlen);
void cb_nccl_close(cb_nccl_t* n);
/* One call of c's collective on c's buffers and stream, not waited for (AVG: NCCL's
 * ncclAvg). Returns 0, or nonzero with c->err set. */
int cb_nccl_run(cb_nccl_t* n, cb_call_t* c);
/* Whether NCCL has the call at all: its alltoall has no in-place form. */
int cb_nccl_has(const cb_args_t* a, int in_place);
#else
static inline int cb_nccl_open(cb_nccl_t** n, MPI_Comm mpi, char* err, size_t errlen)
{
    (void)mpi;
    *n = NULL;
    snprintf(err, errlen, "NCCL row not built");
    return -1;
}
static inline void cb_nccl_close(cb_nccl_t* n) { (void)n; }
static inline int cb_nccl_has(const cb_args_t* a, int in_place)
{
    (void)a;
    (void)in_place;
    return 1;
}
static inline int cb_nccl_run(cb_nccl_t* n, cb_call_t* c)
{
    (void)n;
    snprintf(c->err, sizeof c->err, "NCCL row not built");
    return 1;
}
#endif

#endif
