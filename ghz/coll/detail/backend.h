/* ghz/coll/detail/backend.h: where a collective's compute runs (private), each entry
 * complete when it returns. Buffers are the backend's memory kind; sizes host values. */
#ifndef GHZ_COLL_DETAIL_BACKEND_H
#define GHZ_COLL_DETAIL_BACKEND_H

#include "ghz/coll/coll.h"
#include "ghz/homo/homo.h"

typedef struct coll_backend coll_backend_t;

/* Wire buffers (messages), raw values, and the wire pool's host mirror (comm.h). */
enum { COLL_MEM_WIRE = 0, COLL_MEM_RAW = 1, COLL_MEM_MIRROR = 2 };

struct coll_backend {
    ghz_exec_t exec;
    int nthreads;
    int staged;            /* values live apart (pool_raw) and exact rounds take the
                              DOC-shaped path, so every message is in the wire pool */
    int has_sum_n;         /* homo_sum_n is available (pairwise HOMO sums need it) */
    int capturing;         /* set by begin: the stream is being captured into a CUDA
                              graph, so nothing may wait for it */
    void* (*alloc)(coll_backend_t* be, size_t bytes, int kind); /* COLL_MEM_*; NULL: failed */
    void (*release)(coll_backend_t* be, void* p, int kind);
    ghz_status_t (*begin)(coll_backend_t* be, ghz_stream_t stream); /* the input made visible to the call */
    ghz_status_t (*copy)(coll_backend_t* be, void* dst, const void* src, size_t bytes); /* may overlap */
    /* not waited for: done before the next call's work and before destroy; no overlap */
    ghz_status_t (*copy_async)(coll_backend_t* be, void* dst, const void* src, size_t bytes);
    /* out = op(a, b), a on the left (reduce_ops.h); out may be a or b */
    ghz_status_t (*reduce)(coll_backend_t* be, void* out, const void* a, const void* b, size_t n, ghz_dtype_t dtype,
                           ghz_op_t op);
    ghz_status_t (*scale)(coll_backend_t* be, void* buf, size_t n, ghz_dtype_t dtype, double s); /* AVG's */
    /* min and max of the finite values (NaN: none), whether any is not; copy_to (host
     * memory, or NULL): src copied there in the same wait */
    ghz_status_t (*range)(coll_backend_t* be, const void* src, size_t n, ghz_dtype_t dtype, void* copy_to,
                          double* vmin, double* vmax, int* nonfinite);
    /* one frame (coll_codec_params) */
    ghz_status_t (*compress)(coll_backend_t* be, const void* src, size_t n, ghz_dtype_t dtype, double eb_abs, int ratio,
                             void* dst, size_t capacity, size_t* size);
    ghz_status_t (*decompress)(coll_backend_t* be, const void* src, size_t size, void* dst, size_t n,
                               ghz_dtype_t dtype);
    /* out = op(a, b) on frames (SUM, MIN or MAX); out overlaps neither */
    ghz_status_t (*homo_binary)(coll_backend_t* be, ghz_op_t op, ghz_dtype_t dtype, const void* a, size_t a_size,
                                const void* b, size_t b_size, void* out, size_t capacity, size_t* out_size);
    /* out = in[0] + ... + in[k-1], left to right, one pass */
    ghz_status_t (*homo_sum_n)(coll_backend_t* be, ghz_dtype_t dtype, const void* const* in, const size_t* sizes,
                               size_t k, void* out, size_t capacity, size_t* out_size);
    /* the codec's workspace for ratio frames of a piece, before the first call that may
     * send them; blocking (NULL: the codec needs none reserved) */
    ghz_status_t (*reserve_ratio)(coll_backend_t* be);
    ghz_status_t (*sync)(coll_backend_t* be); /* waits for the queued work */
    void (*destroy)(coll_backend_t* be); /* NULL: nothing to release */
    void* state;
};

/* The codec's parameters of every compression here: one frame under ABS eb, no fill, no
 * checksum; ratio: the codec's ratio mode (one dimension), else its speed mode. */
static inline ghz_params_t coll_codec_params(ghz_dtype_t dtype, double eb, int ratio)
{
    ghz_params_t p;
    ghz_params_init(&p);
    p.dtype = dtype;
    p.eb_mode = GHZ_EB_ABS;
    p.eb = eb;
    p.prefer = ratio ? GHZ_PREFER_RATIO : GHZ_PREFER_SPEED;
    return p;
}

/* ghz/homo's combining op (AVG arrives as SUM). */
static inline ghz_homo_op_t coll_homo_op(ghz_op_t op)
{
    return op == GHZ_OP_MIN ? GHZ_HOMO_MIN : op == GHZ_OP_MAX ? GHZ_HOMO_MAX : GHZ_HOMO_SUM;
}

ghz_status_t ghz_coll_backend_cpu(int nthreads, coll_backend_t* be);

#ifdef GHZ_WITH_CUDA
/* On the current device, for messages of at most chunk_bytes uncompressed bytes. */
ghz_status_t ghz_coll_backend_cuda(size_t chunk_bytes, coll_backend_t* be);
/* The current device's UUID: which ranks share a GPU, known before any backend exists. */
ghz_status_t ghz_coll_cuda_gpu_uuid(unsigned char uuid[16]);
ghz_stream_t ghz_coll_backend_cuda_stream(coll_backend_t* be); /* the current call's stream (set by begin) */
/* Entries that cannot refuse another current device (destroy, abort, graph_status) make
 * the backend's current: enter returns the caller's (-1: none to restore) for leave. */
int ghz_coll_backend_cuda_enter(coll_backend_t* be);
void ghz_coll_backend_cuda_leave(int previous);
#endif

#endif
