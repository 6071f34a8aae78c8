/* ghz/tools/coll_bench/cuda_bufs.h: what the CUDA backend of ghz-coll-bench needs from
 * the CUDA runtime: the device each rank uses, its stream, the device buffers of the
 * calls, the host staging buffers of the MPI rows, and copies.
 *
 * Only CUDA builds compile cuda_bufs.c (GHZ_WITH_CUDA). Elsewhere the functions below
 * are stubs that fail with "not built": args.c refuses --backend cuda there, so the
 * stubs are never reached, and the rest of the bench needs no #ifdef. */
#ifndef GHZ_TOOLS_COLL_BENCH_CUDA_BUFS_H
#define GHZ_TOOLS_COLL_BENCH_CUDA_BUFS_H

#include <stdio.h>

#include "bench.h"

typedef struct {
    int device, ndevices;      /* this rank's device, and how many the node shows it */
    char gpu[256];             /* the device's name */
    ghz_stream_t stream;       /* the bench's stream, created once */
    void *d_send, *d_recv, *d_work; /* device: input, out-of-place result, in-place buffer */
    void *h_send, *h_recv;     /* pageable host staging of the mpi rows (or NULL) */
    void *p_send, *p_recv;     /* pinned host staging of the mpi-pinned rows (or NULL) */
} cb_cuda_t;

#ifdef GHZ_WITH_CUDA

/* Picks this rank's device (local_rank, the rank's index on its shared-memory node,
 * mod the device count: several ranks share a GPU when there are fewer GPUs than
 * ranks), creates the stream, and allocates three device buffers of `bytes` (written
 * once, so no timed call meets fresh pages) and the staging pairs asked for: pageable
 * and/or pinned, each two host buffers of `bytes`. Returns 0, or -1 with a message in
 * err; *g is then safe to close. */
int cb_cuda_open(cb_cuda_t* g, int local_rank, size_t bytes, int pageable, int pinned,
                 char* err, size_t errlen);
void cb_cuda_close(cb_cuda_t* g);

/* Copies `bytes` (any direction, UVA) in order on `stream` and waits for it: the
 * bytes are in place on return. stream NULL is the legacy default stream, so that
 * call is cudaMemcpy's. Returns 0, or nonzero with err set. */
int cb_cuda_copy(void* dst, const void* src, size_t bytes, ghz_stream_t stream, char* err,
                 size_t errlen);

/* Waits for the stream. Returns 0, or nonzero with err set. */
int cb_cuda_sync(ghz_stream_t stream, char* err, size_t errlen);

/* --graph: begins capturing `stream` (relaxed mode); ends it into an instantiated
 * graph (*exec, NULL on failure); launches one on the stream; frees one (NULL
 * accepted). Each returns 0, or nonzero with err set. */
int cb_cuda_capture_begin(ghz_stream_t stream, char* err, size_t errlen);
int cb_cuda_capture_end(ghz_stream_t stream, void** exec, char* err, size_t errlen);
int cb_cuda_graph_launch(void* exec, ghz_stream_t stream, char* err, size_t errlen);
void cb_cuda_graph_free(void* exec);

#else

static inline int cb_cuda_not_built(char* err, size_t errlen)
{
    snprintf(err, errlen, "CUDA backend not built");
    return -1;
}
static inline int cb_cuda_open(cb_cuda_t* g, int local_rank, size_t bytes, int pageable,
                               int pinned, char* err, size_t errlen)
{
    (void)g, (void)local_rank, (void)bytes, (void)pageable, (void)pinned;
    return cb_cuda_not_built(err, errlen);
}
static inline void cb_cuda_close(cb_cuda_t* g) { (void)g; }
static inline int cb_cuda_copy(void* dst, const void* src, size_t bytes, ghz_stream_t stream,
                               char* err, size_t errlen)
{
    (void)dst, (void)src, (void)bytes, (void)stream;
    return cb_cuda_not_built(err, errlen);
}
static inline int cb_cuda_sync(ghz_stream_t stream, char* err, size_t errlen)
{
    (void)stream;
    return cb_cuda_not_built(err, errlen);
}
static inline int cb_cuda_capture_begin(ghz_stream_t stream, char* err, size_t errlen)
{
    (void)stream;
    return cb_cuda_not_built(err, errlen);
}
static inline int cb_cuda_capture_end(ghz_stream_t stream, void** exec, char* err, size_t errlen)
{
    (void)stream;
    *exec = NULL;
    return cb_cuda_not_built(err, errlen);
}
static inline int cb_cuda_graph_launch(void* exec, ghz_stream_t stream, char* err, size_t errlen)
{
    (void)exec, (void)stream;
    return cb_cuda_not_built(err, errlen);
}
static inline void cb_cuda_graph_free(void* exec) { (void)exec; }

#endif
#endif
