/* ghz/tools/coll_bench/calls.h: one collective call on one path (ghz lossy HOMO or
 * DOC, ghz exact, or the MPI library), out of place or in place, on host buffers (CPU
 * backend) or device buffers (CUDA backend). */
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
    size_t out_elems;   /* elements of this rank's result (the data movement: its receive
                           buffer, 0 where it receives nothing) */
    const void* send;   /* this rank's input (in_elems) */
    void* recv;         /* out-of-place result */
    void* work;         /* in-place buffer (in_elems, or out_elems when larger), reloaded
                           from send before a call (allgather: at the rank's block; gather:
                           at the root's) */
    /* CUDA backend: send, recv and work are device memory and every call returns with
     * its bytes in place (ghz's calls do on this backend; the MPI rows copy through
     * stage_send and stage_recv, host buffers of in_elems). */
    int cuda;
    ghz_stream_t stream; /* the ghz calls' and the reloads' stream (NULL on the CPU) */
    void *stage_send, *stage_recv;
    ghz_accuracy_t acc; /* the lossy paths' accuracy */
    void* graph;        /* --graph: the call captured once, replayed by cb_call_run */
    struct cb_nccl* nccl; /* the nccl row's communicator (nccl_row.h) */
    char err[CB_ERR_LEN]; /* why the last call failed */
} cb_call_t;

/* Makes one call. Returns 0, or nonzero with err set (ghz status and detail, or the
 * MPI error string). */
int cb_call_run(cb_call_t* c);

/* --graph: captures one ghz call into a CUDA graph on c->stream; cb_call_run then
 * replays it (the same buffers, so in place the reload still precedes every replay).
 * Returns 0, or nonzero with err set (the capture is ended either way).
 * cb_call_release frees the graph (none: nothing). */
int cb_call_capture(cb_call_t* c);
void cb_call_release(cb_call_t* c);

/* In place: copies the input into work (the call overwrote it), and waits for the
 * copy. Returns 0, or nonzero with err set. */
int cb_call_reload(cb_call_t* c);

/* Waits for the work of the calls made so far (the CUDA stream; nothing on the CPU).
 * Returns 0, or nonzero with err set. */
int cb_call_sync(cb_call_t* c);

/* Where this rank's result is after a call (device memory on the CUDA backend), and
 * which elements of the reduction it holds ([*first, *first + *n)); NULL (and *n = 0)
 * on a rank that gets none. */
const void* cb_call_result(const cb_call_t* c, size_t* first, size_t* n);

#endif
