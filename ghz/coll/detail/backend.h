/* ghz/coll/detail/backend.h: where a collective's compute runs (private).
 *
 * The algorithms (algo_*.c) are written once against this table and the transport's
 * (transport.h). The CPU backend (backend_cpu.c) calls the codec's and ghz/homo's
 * public host API and the exact reductions of reduce_ops.h; the CUDA backend
 * (cuda/backend_cuda.c) implements the same entries with the CUDA codec, ghz/homo's
 * kernels and cuda/reduce_cuda.cu on device buffers, on the caller's stream, each entry
 * complete when it returns (a size or a buffer must reach the host-side transport).
 *
 * Every pointer given to an entry is a buffer of the backend's memory kind (host for
 * the CPU backend, device for CUDA). Sizes are host values. */
#ifndef GHZ_COLL_DETAIL_BACKEND_H
#define GHZ_COLL_DETAIL_BACKEND_H

#include "ghz/coll/coll.h"
#include "ghz/homo/homo.h"

typedef struct coll_backend coll_backend_t;

/* Kinds of memory a backend allocates: wire buffers (frames and messages, where its
 * kernels work on them), raw values, and the host mirror of the wire pool that messages
 * are copied through when the transport takes host memory only (comm.h, host_mirror). */
enum { COLL_MEM_WIRE = 0, COLL_MEM_RAW = 1, COLL_MEM_MIRROR = 2 };

struct coll_backend {
    const char* name;
    ghz_exec_t exec;
    int nthreads;
    int staged;            /* exact rounds go through wire buffers: values live apart
                              (pool_raw) and exact rounds take the staged, DOC-shaped
                              path (coll_round_t.staged), so every message is sent from
                              and received into the wire pool. Whether messages also
                              need a host mirror is the transport's business
                              (ghz_comm.host_mirror). */
    int has_sum_n;         /* homo_sum_n is available (pairwise HOMO sums need it) */
    int capturing;         /* set by begin: the call's stream is being captured into a
                              CUDA graph, so nothing may wait for the stream (COLL.md,
                              CUDA graphs); 0 on the CPU */
    /* Memory of a kind (COLL_MEM_*). Returns NULL on failure. */
    void* (*alloc)(coll_backend_t* be, size_t bytes, int kind);
    void (*release)(coll_backend_t* be, void* p, int kind);
    /* Makes the caller's stream's earlier work (the input) visible to this call's work;
     * the CPU backend has nothing to do. */
    ghz_status_t (*begin)(coll_backend_t* be, ghz_stream_t stream);
    /* dst[0..bytes) = src[0..bytes); the ranges may overlap. */
    ghz_status_t (*copy)(coll_backend_t* be, void* dst, const void* src, size_t bytes);
    /* The same, not waited for: it completes before any work of the next call (begin)
     * and before the backend goes; the ranges must not overlap. */
    ghz_status_t (*copy_async)(coll_backend_t* be, void* dst, const void* src, size_t bytes);
    /* out = op(a, b) element-wise (a is the left operand, reduce_ops.h); out may be a
     * or b. */
    ghz_status_t (*reduce)(coll_backend_t* be, void* out, const void* a, const void* b, size_t n,
                           ghz_dtype_t dtype, ghz_op_t op);
    /* buf = dtype(double(buf) * s), floats: AVG's final division. */
    ghz_status_t (*scale)(coll_backend_t* be, void* buf, size_t n, ghz_dtype_t dtype, double s);
    /* min and max over the finite values of src, and whether any value is not finite;
     * *vmin = *vmax = NaN when there is no finite value. With copy_to (host memory of
     * n values, not overlapping src), src is also copied there in the same wait: a
     * staged lossy call's copy and range cost one synchronisation (plan.c, coll_plan_pre). */
    ghz_status_t (*range)(coll_backend_t* be, const void* src, size_t n, ghz_dtype_t dtype, void* copy_to,
                          double* vmin, double* vmax, int* nonfinite);
    /* One frame of n values under ABS eb_abs, no fill, no checksum; *size its bytes. */
    ghz_status_t (*compress)(coll_backend_t* be, const void* src, size_t n, ghz_dtype_t dtype,
                             double eb_abs, void* dst, size_t capacity, size_t* size);
    /* Decodes the one frame src[0..size) of exactly n values into dst. */
    ghz_status_t (*decompress)(coll_backend_t* be, const void* src, size_t size, void* dst,
                               size_t n, ghz_dtype_t dtype);
    /* out = op(a, b) on frames (ghz/homo, byte-identical to decompress-op-compress);
     * op is SUM, MIN or MAX. out must not overlap a or b. */
    ghz_status_t (*homo_binary)(coll_backend_t* be, ghz_op_t op, ghz_dtype_t dtype, const void* a, size_t a_size,
                                const void* b, size_t b_size, void* out, size_t capacity,
                                size_t* out_size);
    /* out = in[0] + ... + in[k-1] (left to right) on frames, one pass. */
    ghz_status_t (*homo_sum_n)(coll_backend_t* be, ghz_dtype_t dtype, const void* const* in, const size_t* sizes,
                               size_t k, void* out, size_t capacity, size_t* out_size);
    /* Waits for the backend's queued work (no-op on the CPU). */
    ghz_status_t (*sync)(coll_backend_t* be);
    void (*destroy)(coll_backend_t* be);
    void* state;
};

/* ghz/homo's name of a combining op (SUM, MIN or MAX; AVG arrives as SUM). */
static inline ghz_homo_op_t coll_homo_op(ghz_op_t op)
{
    return op == GHZ_OP_MIN ? GHZ_HOMO_MIN : op == GHZ_OP_MAX ? GHZ_HOMO_MAX : GHZ_HOMO_SUM;
}

/* The CPU backend (host buffers). */
ghz_status_t ghz_coll_backend_cpu(int nthreads, coll_backend_t* be);

#ifdef GHZ_WITH_CUDA
/* The CUDA backend (device buffers) on the current device, for messages of at most chunk_bytes uncompressed bytes. */
ghz_status_t ghz_coll_backend_cuda(size_t chunk_bytes, coll_backend_t* be);
/* The 16-byte UUID of the current device: the GPU a CUDA backend created now computes
 * on (comm_make.c compares them, before the backend exists, to know which ranks share a GPU). */
ghz_status_t ghz_coll_cuda_gpu_uuid(unsigned char uuid[16]);
/* The stream of the CUDA backend's current call (set by begin): where the CUDA IPC
 * transport orders its copies. */
ghz_stream_t ghz_coll_backend_cuda_stream(coll_backend_t* be);
/* The device the CUDA backend was made on (the current one at ghz_comm_init). Calls
 * refuse to run elsewhere (begin: GHZ_ERR_INVALID_ARG); entries that cannot refuse
 * (destroy, abort, ghz_comm_graph_status) make it current for their duration: enter
 * returns the caller's current device (-1: none, or already the backend's), which
 * leave makes current again. */
int ghz_coll_backend_cuda_enter(coll_backend_t* be);
void ghz_coll_backend_cuda_leave(int previous);
#endif

#endif
