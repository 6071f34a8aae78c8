/* ghz/tools/coll_bench/calls.h: one collective call on one path (ghz lossy HOMO or
 * DOC, ghz exact, or the MPI library), out of place or in place. */
#ifndef GHZ_TOOLS_COLL_BENCH_CALLS_H
#define GHZ_TOOLS_COLL_BENCH_CALLS_H

#include "bench.h"

typedef struct {
    const cb_args_t* a;
    ghz_comm_t* comm;
    MPI_Comm mpi;       /* the bench's own duplicate, errors returned */
    int rank, nranks;
    cb_path_t path;
    int in_place;
    size_t count;       /* the call's count: allreduce and reduce count, reduce_scatter
                           recvcount */
    size_t in_elems;    /* elements of each rank's input */
    const void* send;   /* this rank's input (in_elems) */
    void* recv;         /* out-of-place result */
    void* work;         /* in-place buffer (in_elems), reloaded from send before a call */
    ghz_accuracy_t acc; /* the lossy paths' accuracy */
    char err[CB_ERR_LEN]; /* why the last call failed */
} cb_call_t;

/* Makes one call. Returns 0, or nonzero with err set (ghz status and detail, or the
 * MPI error string). */
int cb_call_run(cb_call_t* c);

/* In place: copies the input into work (the call overwrote it). */
void cb_call_reload(cb_call_t* c);

/* Where this rank's result is after a call, and which elements of the reduction it
 * holds ([*first, *first + *n)); NULL (and *n = 0) on a rank that gets none. */
const void* cb_call_result(const cb_call_t* c, size_t* first, size_t* n);

#endif
