/* ghz/coll/cuda/backend_cuda.c: the CUDA backend (COLL.md, CUDA backend). Every entry
 * but copy_async synchronises the caller's stream before it returns: the algorithms hand
 * a wire buffer to the transport right after the entry that wrote or read it, and a
 * compressed size must reach the host to size the message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/coll/detail/backend.h"
#include "ghz/coll/detail/backend_cuda.h"
#include "ghz/coll/detail/reduce_cuda.h"
#include "ghz/detail/error.h"
#include "ghz/homo/homo_cuda.h"

typedef struct {
    int device;               /* the current device when the backend was made: its memory's */
    coll_cuda_parts_t x;      /* max_elems: the largest piece, in values of the widest dtype */
    void* d_scratch;          /* ghz_coll_range_acc_t, then a uint64 size and an int status: */
    uint64_t* d_size;
    int* d_status;
    void* h_scratch;          /* pinned mirror, then the range kernel's result (H_RANGE) */
    ghz_coll_range_t* d_range_out; /* that result, as the device writes it */
    cudaEvent_t done;         /* ghz_coll_backend_cuda_mark's */
    int have_done, done_pending;
    void *mapped_host, *mapped_dev; /* the last staging buffer cuda_range wrote, as the device sees it */
    size_t chunk_bytes;       /* the largest piece */
    int ratio_reserved;       /* the codec's workspace serves ratio frames of a piece */
} cuda_state_t;

enum { SCRATCH_RANGE = 0, SCRATCH_SIZE = 64, SCRATCH_STATUS = 72, SCRATCH_BYTES = 128, H_RANGE = SCRATCH_BYTES,
       H_SCRATCH_BYTES = H_RANGE + 64 };

static cuda_state_t* st_of(coll_backend_t* be)
{
    return (cuda_state_t*)be->state;
}

/* Waits for the call's stream; a failure there is the call's. While the stream is
 * being captured there is nothing to wait for (the work only runs when the graph is
 * launched) and waiting would end the capture in error: the paths that may be captured
 * (plan.c, coll_capture_refusal) read nothing back, so only the status passes. */
static ghz_status_t drain(coll_backend_t* be, ghz_status_t st)
{
    cudaError_t e;
    if (be->capturing) return st;
    e = cudaStreamSynchronize(st_of(be)->x.stream);
    return st != GHZ_SUCCESS ? st : coll_cuda_ok(e, "cudaStreamSynchronize");
}

static void* cuda_alloc(coll_backend_t* be, size_t bytes, int kind)
{
    void* p = NULL;
    (void)be;
    if (!bytes) bytes = 1;
    if (kind != COLL_MEM_MIRROR) return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
    /* mapped: the range kernel may write a staged call's copy into it (cuda_range) */
    return cudaHostAlloc(&p, bytes, cudaHostAllocPortable | cudaHostAllocMapped) == cudaSuccess ? p : NULL;
}

static void cuda_release(coll_backend_t* be, void* p, int kind)
{
    (void)be;
    if (kind != COLL_MEM_MIRROR) cudaFree(p);
    else cudaFreeHost(p);
}

static ghz_status_t cuda_begin(coll_backend_t* be, ghz_stream_t stream)
{
    cuda_state_t* s = st_of(be);
    enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    int current = -1;
    cudaError_t e = cudaGetDevice(&current);
    be->capturing = 0;
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaGetDevice");
    /* refused rather than switched (COLL.md, CUDA backend); begin comes before the
     * call's agreement, so every rank learns of the refusal */
    if (current != s->device)
        return ghz_fail(GHZ_ERR_INVALID_ARG,
                        "the current CUDA device is %d, but this communicator was made on device %d: "
                        "cudaSetDevice(%d) before its calls",
                        current, s->device, s->device);
    e = cudaStreamIsCapturing((cudaStream_t)stream, &cap);
    s->x.stream = (cudaStream_t)stream;
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaStreamIsCapturing");
    if (cap == cudaStreamCaptureStatusInvalidated)
        return ghz_fail(GHZ_ERR_CUDA, "the stream's CUDA-graph capture was invalidated before this call");
    be->capturing = cap == cudaStreamCaptureStatusActive; /* (what may be: plan.c, with the peers) */
    /* A previous call's reads of the peers' memory (another stream, maybe) come first. A
     * graph orders only with its own stream: captured, they are waited for on the host. */
    if (s->done_pending) {
        e = be->capturing ? cudaEventSynchronize(s->done) : cudaStreamWaitEvent(s->x.stream, s->done, 0);
        if (e != cudaSuccess)
            return coll_cuda_fail(e, be->capturing ? "cudaEventSynchronize" : "cudaStreamWaitEvent");
        s->done_pending = 0;
    }
    /* Staged, every later step is stream work after the caller's (which wrote the
     * input); only an MPI that reads the caller's device buffers needs the stream drained
     * (nothing to drain while capturing). */
    return be->staged ? GHZ_SUCCESS : drain(be, GHZ_SUCCESS);
}

static ghz_status_t cuda_copy(coll_backend_t* be, void* dst, const void* src, size_t bytes)
{
    if (!bytes || dst == src) return GHZ_SUCCESS;
    return drain(be, coll_cuda_ok(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, st_of(be)->x.stream),
                                  "cudaMemcpyAsync"));
}

static ghz_status_t cuda_copy_async(coll_backend_t* be, void* dst, const void* src, size_t bytes)
{
    ghz_status_t st;
    if (!bytes) return GHZ_SUCCESS;
    st = coll_cuda_ok(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, st_of(be)->x.stream), "cudaMemcpyAsync");
    return st == GHZ_SUCCESS ? ghz_coll_backend_cuda_mark(be) : st;
}

static ghz_status_t cuda_reduce(coll_backend_t* be, void* out, const void* a, const void* b,
                                size_t n, ghz_dtype_t dtype, ghz_op_t op)
{
    return drain(be, ghz_coll_reduce_cuda(out, a, b, n, dtype, op, st_of(be)->x.stream));
}

static ghz_status_t cuda_scale(coll_backend_t* be, void* buf, size_t n, ghz_dtype_t dtype, double s)
{
    return drain(be, ghz_coll_scale_cuda(buf, n, dtype, s, st_of(be)->x.stream));
}

/* The range of src: one kernel, which writes the result straight into pinned host
 * memory, and one wait. A staged call's copy_to, where mapped (the backend's own mirrors
 * always are), is written by the range kernel itself, else by the copy engine after it:
 * every other stream operation costs more than the scan, and a copy beside the kernel
 * was never faster (docs/RESULTS-coll.md, "The numbers behind ghz/coll's defaults"). */
static ghz_status_t cuda_range(coll_backend_t* be, const void* src, size_t n, ghz_dtype_t dtype, void* copy_to,
                               double* vmin, double* vmax, int* nonfinite)
{
    cuda_state_t* s = st_of(be);
    ghz_coll_range_acc_t* acc = (ghz_coll_range_acc_t*)((char*)s->d_scratch + SCRATCH_RANGE);
    const size_t bytes = n * ghz_dtype_size(dtype);
    void* d_copy = NULL;
    ghz_coll_range_t r;
    ghz_status_t st;
    if (copy_to && n) {
        if (copy_to != s->mapped_host) {
            /* Asked, not tried: cudaHostGetDevicePointer would fail on unmapped memory
             * and leave that failure as the runtime's last error, which only a
             * cudaGetLastError() that may also take the caller's own would clear.
             * Unregistered memory is a success here (type cudaMemoryTypeUnregistered). */
            struct cudaPointerAttributes a;
            cudaError_t e = cudaPointerGetAttributes(&a, copy_to);
            if (e != cudaSuccess) return coll_cuda_fail(e, "cudaPointerGetAttributes (staged copy)");
            if (a.type == cudaMemoryTypeHost && a.devicePointer) {
                s->mapped_host = copy_to;
                s->mapped_dev = a.devicePointer;
            }
        }
        d_copy = copy_to == s->mapped_host ? s->mapped_dev : NULL; /* else the copy engine copies */
    }
    st = ghz_coll_range_cuda(src, n, dtype, acc, s->d_range_out, d_copy, s->x.stream);
    if (st == GHZ_SUCCESS && copy_to && n && !d_copy)
        st = coll_cuda_ok(cudaMemcpyAsync(copy_to, src, bytes, cudaMemcpyDeviceToHost, s->x.stream), "cudaMemcpyAsync");
    st = drain(be, st);
    if (st != GHZ_SUCCESS) return st;
    memcpy(&r, (char*)s->h_scratch + H_RANGE, sizeof r);
    *vmin = r.vmin;
    *vmax = r.vmax;
    *nonfinite = r.nonfinite;
    return GHZ_SUCCESS;
}

/* The status and size the GPU wrote to the scratch, through its pinned mirror. */
static ghz_status_t device_result(coll_backend_t* be, ghz_status_t st, size_t* size, const char* what)
{
    cuda_state_t* s = st_of(be);
    int dst;
    uint64_t sz;
    if (st == GHZ_SUCCESS)
        st = coll_cuda_ok(
            cudaMemcpyAsync(s->h_scratch, s->d_scratch, SCRATCH_BYTES, cudaMemcpyDeviceToHost, s->x.stream),
            "cudaMemcpyAsync");
    st = drain(be, st);
    if (st != GHZ_SUCCESS) return st;
    memcpy(&dst, (char*)s->h_scratch + SCRATCH_STATUS, sizeof dst);
    memcpy(&sz, (char*)s->h_scratch + SCRATCH_SIZE, sizeof sz);
    if (dst != GHZ_SUCCESS) return ghz_fail((ghz_status_t)dst, "%s on the GPU: %s", what, ghz_status_string((ghz_status_t)dst));
    if (size) *size = (size_t)sz;
    return GHZ_SUCCESS;
}

static ghz_status_t clear_status(coll_backend_t* be)
{
    cuda_state_t* s = st_of(be);
    return coll_cuda_ok(cudaMemsetAsync(s->d_size, 0, SCRATCH_BYTES - SCRATCH_SIZE, s->x.stream), "cudaMemsetAsync");
}

static ghz_status_t cuda_compress(coll_backend_t* be, const void* src, size_t n, ghz_dtype_t dtype,
                                  double eb_abs, int ratio, void* dst, size_t capacity, size_t* size)
{
    cuda_state_t* s = st_of(be);
    const ghz_params_t p = coll_codec_params(dtype, eb_abs, ratio);
    ghz_buf_t out = coll_cuda_frame(dst, 0, capacity, s->d_size);
    ghz_status_t st = clear_status(be);
    if (st == GHZ_SUCCESS) st = ghz_cuda_compress(s->x.ctx, &p, src, n, &out, s->d_status, NULL, 0, s->x.stream);
    return device_result(be, st, size, "compress");
}

/* About 9 bytes a value of a piece (f32; f64 needs less a byte of values), so it is
 * reserved where a call may use it, not for every communicator at init. */
static ghz_status_t cuda_reserve_ratio(coll_backend_t* be)
{
    cuda_state_t* s = st_of(be);
    ghz_status_t st;
    if (s->ratio_reserved) return GHZ_SUCCESS;
    st = ghz_cuda_ctx_reserve_ratio(s->x.ctx, GHZ_F32, s->x.max_elems);
    if (st == GHZ_SUCCESS) st = ghz_cuda_ctx_reserve_ratio(s->x.ctx, GHZ_F64, s->chunk_bytes / 8 + 64);
    s->ratio_reserved = st == GHZ_SUCCESS;
    return st;
}

static ghz_status_t cuda_decompress(coll_backend_t* be, const void* src, size_t size, void* dst,
                                    size_t n, ghz_dtype_t dtype)
{
    cuda_state_t* s = st_of(be);
    ghz_buf_t in = coll_cuda_frame(src, size, size, NULL);
    size_t got = 0;
    ghz_status_t st = clear_status(be);
    if (st == GHZ_SUCCESS)
        st = ghz_cuda_decompress(s->x.ctx, dtype, &in, dst, n * ghz_dtype_size(dtype), s->d_size, s->d_status, NULL,
                                 0, s->x.stream);
    st = device_result(be, st, &got, "decompress");
    if (st == GHZ_SUCCESS && got != n)
        return ghz_fail(GHZ_ERR_CORRUPT, "a received frame holds %zu values, expected %zu", got, n);
    return st;
}

static ghz_status_t cuda_homo_binary(coll_backend_t* be, ghz_op_t op, ghz_dtype_t dtype, const void* a,
                                     size_t a_size, const void* b, size_t b_size, void* out, size_t capacity,
                                     size_t* out_size)
{
    cuda_state_t* s = st_of(be);
    ghz_buf_t A = coll_cuda_frame(a, a_size, a_size, NULL), B = coll_cuda_frame(b, b_size, b_size, NULL),
              O = coll_cuda_frame(out, 0, capacity, s->d_size);
    ghz_status_t st = clear_status(be);
    if (st == GHZ_SUCCESS)
        st = ghz_cuda_homo_binary(s->x.ctx, coll_homo_op(op), dtype, &A, &B, &O, 0, s->d_status, NULL, 0, s->x.stream);
    return device_result(be, st, out_size, "homomorphic combine");
}

static ghz_status_t cuda_homo_sum_n(coll_backend_t* be, ghz_dtype_t dtype, const void* const* in,
                                    const size_t* sizes, size_t k, void* out, size_t capacity, size_t* out_size)
{
    cuda_state_t* s = st_of(be);
    ghz_buf_t ins[GHZ_CUDA_HOMO_MAX_INPUTS];
    ghz_buf_t O = coll_cuda_frame(out, 0, capacity, s->d_size);
    ghz_status_t st;
    size_t i;
    if (k == 0 || k > GHZ_CUDA_HOMO_MAX_INPUTS)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "n-ary sum of %zu frames on the GPU (at most %d)", k,
                        GHZ_CUDA_HOMO_MAX_INPUTS);
    for (i = 0; i < k; i++) ins[i] = coll_cuda_frame(in[i], sizes[i], sizes[i], NULL);
    st = clear_status(be);
    if (st == GHZ_SUCCESS)
        st = ghz_cuda_homo_sum_n(s->x.ctx, dtype, k, ins, &O, s->x.max_elems, s->d_status, s->x.sum_work,
                                 s->x.sum_work_bytes, s->x.stream);
    return device_result(be, st, out_size, "n-ary homomorphic sum");
}

void ghz_coll_backend_cuda_parts(coll_backend_t* be, coll_cuda_parts_t* parts)
{
    *parts = st_of(be)->x;
}

ghz_status_t ghz_coll_backend_cuda_check(coll_backend_t* be, const int* d_status, size_t n, const char* what)
{
    cuda_state_t* s = st_of(be);
    ghz_status_t st = clear_status(be);
    if (st == GHZ_SUCCESS && n)
        st = ghz_coll_first_error_cuda(d_status, n, s->d_status, s->x.stream);
    return device_result(be, st, NULL, what);
}

ghz_status_t coll_cuda_encode_segs(const coll_round_t* r, const coll_cuda_parts_t* x, unsigned char* C, size_t seg,
                                   size_t P, uint64_t* sizes, int* statuses)
{
    ghz_status_t st = GHZ_SUCCESS;
    const ghz_params_t p = coll_codec_params(r->dtype, r->eb, 0);
    size_t s, j;
    for (s = 0; s < (size_t)r->comm->size && st == GHZ_SUCCESS; s++) {
        const size_t n = r->seg_cnt[s];
        for (j = 0; j < coll_pieces(n, r->piece) && st == GHZ_SUCCESS; j++) {
            const size_t pc = coll_piece_n(r, n, j);
            ghz_buf_t out = coll_cuda_frame(C + s * seg + coll_piece_wire_off(r, j), 0, coll_piece_cap(r, n, j),
                                            sizes + s * P + j);
            if (pc)
                st = ghz_cuda_compress(x->ctx, &p, r->in + (r->seg_off[s] + j * r->piece) * r->elem, pc, &out,
                                       statuses + s * P + j, NULL, 0, x->stream);
        }
    }
    return st;
}

ghz_status_t coll_cuda_decode_seg(const coll_round_t* r, const coll_cuda_parts_t* x, const unsigned char* base,
                                  const uint64_t* h_sizes, uint64_t* d_sizes, size_t n, unsigned char* dst,
                                  int* statuses)
{
    ghz_status_t st = GHZ_SUCCESS;
    size_t j;
    for (j = 0; j < coll_pieces(n, r->piece) && st == GHZ_SUCCESS; j++) {
        const size_t pc = coll_piece_n(r, n, j);
        ghz_buf_t src = coll_cuda_frame(base + coll_piece_wire_off(r, j), h_sizes ? (size_t)h_sizes[j] : 0,
                                        coll_piece_cap(r, n, j), d_sizes ? d_sizes + j : NULL);
        if (pc)
            st = ghz_cuda_decompress(x->ctx, r->dtype, &src, dst + j * r->piece * r->elem, pc * r->elem, NULL,
                                     statuses + j, NULL, 0, x->stream);
    }
    return st;
}

ghz_status_t ghz_coll_cuda_gpu_uuid(unsigned char uuid[16])
{
    struct cudaDeviceProp prop;
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaGetDeviceProperties (the GPU's UUID)");
    memcpy(uuid, &prop.uuid, 16);
    return GHZ_SUCCESS;
}

/* An event recorded into a graph cannot be waited on outside it: a captured call records
 * nothing (its work orders with its own stream only: begin). */
ghz_status_t ghz_coll_backend_cuda_mark(coll_backend_t* be)
{
    cuda_state_t* s = st_of(be);
    ghz_status_t st;
    if (be->capturing) return GHZ_SUCCESS;
    st = coll_cuda_ok(cudaEventRecord(s->done, s->x.stream), "cudaEventRecord");
    if (st == GHZ_SUCCESS) s->done_pending = 1;
    return st;
}

int ghz_coll_backend_cuda_enter(coll_backend_t* be)
{
    int current = -1;
    const cuda_state_t* s = be->exec == GHZ_EXEC_CUDA ? st_of(be) : NULL;
    if (!s || cudaGetDevice(&current) != cudaSuccess || current == s->device) return -1;
    return cudaSetDevice(s->device) == cudaSuccess ? current : -1;
}

void ghz_coll_backend_cuda_leave(int previous)
{
    if (previous >= 0) (void)cudaSetDevice(previous);
}

ghz_stream_t ghz_coll_backend_cuda_stream(coll_backend_t* be)
{
    return (ghz_stream_t)st_of(be)->x.stream;
}

static ghz_status_t cuda_sync(coll_backend_t* be)
{
    return drain(be, GHZ_SUCCESS);
}

static void cuda_destroy(coll_backend_t* be)
{
    cuda_state_t* s = st_of(be);
    if (!s) return;
    /* nothing of this backend's may still run when its memory goes */
    if (s->done_pending) cudaEventSynchronize(s->done);
    if (s->have_done) cudaEventDestroy(s->done);
    ghz_cuda_ctx_destroy(s->x.ctx);
    cudaFree(s->d_scratch);
    cudaFree(s->x.sum_work);
    cudaFreeHost(s->h_scratch);
    free(s);
    be->state = NULL;
}

ghz_status_t ghz_coll_backend_cuda(size_t chunk_bytes, coll_backend_t* be)
{
    static const coll_backend_t cuda = {
        .exec = GHZ_EXEC_CUDA, .nthreads = 1, .staged = 1, .has_sum_n = 1, .alloc = cuda_alloc,
        .release = cuda_release, .begin = cuda_begin, .copy = cuda_copy, .copy_async = cuda_copy_async,
        .reduce = cuda_reduce, .scale = cuda_scale, .range = cuda_range, .compress = cuda_compress,
        .decompress = cuda_decompress, .homo_binary = cuda_homo_binary, .homo_sum_n = cuda_homo_sum_n,
        .reserve_ratio = cuda_reserve_ratio, .sync = cuda_sync, .destroy = cuda_destroy};
    cuda_state_t* s;
    ghz_cuda_ctx_config_t cfg = GHZ_CUDA_CTX_CONFIG_INIT;
    ghz_status_t st;
    cudaError_t e = cudaSuccess;
    int ndev = 0;
    void* dev_h = NULL;

    memset(be, 0, sizeof *be);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
        return ghz_fail(GHZ_ERR_NO_DEVICE, "the CUDA backend needs a GPU: none is usable here");
    s = (cuda_state_t*)calloc(1, sizeof *s);
    if (!s) return ghz_fail(GHZ_ERR_NOMEM, "CUDA backend state");
    e = cudaGetDevice(&s->device);
    if (e != cudaSuccess) {
        free(s);
        return coll_cuda_fail(e, "cudaGetDevice");
    }
    be->state = s;
    be->destroy = cuda_destroy;
    /* a piece holds at most chunk_bytes of values; f32 has the most values per byte */
    s->x.max_elems = chunk_bytes / 4 + 64;
    s->chunk_bytes = chunk_bytes;
    cfg.max_batch = 1;
    cfg.max_elems = s->x.max_elems;
    st = ghz_cuda_ctx_create(&cfg, &s->x.ctx);
    if (st == GHZ_SUCCESS)
        st = ghz_cuda_homo_sum_n_workspace(GHZ_CUDA_HOMO_MAX_INPUTS, s->x.max_elems, &s->x.sum_work_bytes);
    if (st == GHZ_SUCCESS) {
        e = cudaMalloc(&s->d_scratch, SCRATCH_BYTES);
        if (e == cudaSuccess) {
            s->d_size = (uint64_t*)((char*)s->d_scratch + SCRATCH_SIZE);
            s->d_status = (int*)((char*)s->d_scratch + SCRATCH_STATUS);
        }
        if (e == cudaSuccess) e = cudaMalloc(&s->x.sum_work, s->x.sum_work_bytes ? s->x.sum_work_bytes : 1);
        /* the range kernel's accumulators start empty (reduce_cuda.h) */
        if (e == cudaSuccess) e = cudaMemset(s->d_scratch, 0, SCRATCH_BYTES);
        if (e == cudaSuccess)
            e = cudaHostAlloc(&s->h_scratch, H_SCRATCH_BYTES, cudaHostAllocPortable | cudaHostAllocMapped);
        if (e == cudaSuccess) e = cudaHostGetDevicePointer(&dev_h, s->h_scratch, 0);
        if (e == cudaSuccess) s->d_range_out = (ghz_coll_range_t*)((char*)dev_h + H_RANGE);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming);
        if (e == cudaSuccess) s->have_done = 1;
    }
    if (st != GHZ_SUCCESS || e != cudaSuccess) {
        cuda_destroy(be); /* (before the detail: destroying may set one) */
        return st != GHZ_SUCCESS ? st : coll_cuda_fail(e, "CUDA backend scratch");
    }
    *be = cuda;
    be->state = s;
    return GHZ_SUCCESS;
}
