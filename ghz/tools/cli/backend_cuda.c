/* ghz/tools/cli/backend_cuda.c: the CUDA backend (-x cuda): the CUDA codecs of
 * ghz/codec/codec_cuda.h and ghz/codec/fixed_cuda.h driven from host buffers, through the CUDA runtime's C API
 * (no device code here). Built only when the library has the CUDA codec
 * (GHZ_WITH_CUDA, a public compile definition of ghz::codec); otherwise
 * cli_backend_cuda_ops() is NULL and -x cuda fails with "CUDA backend not built".
 *
 * The backend owns, on the current CUDA device:
 *  - d_raw:  the values (compression input, decompression output);
 *  - d_cmp:  one frame (compression output, decompression input), sized by
 *            ghz_compress_bound (+ checksum) or the fixed-rate size at l = 32,
 *            whichever is larger, of the largest frame seen, so equal or smaller
 *            frames of either mode never grow it; cudaMalloc's alignment is the
 *            16 bytes fixed-rate frames need;
 *  - ctx:    a ghz_cuda_ctx_t: the codec's workspace, reserved for compressing and
 *            decompressing the largest frame seen, and the *_sync calls' scratch;
 *  - d_status: the fixed-rate decoder's verdict (an int);
 *  - a non-blocking stream all work is ordered on.
 * Buffers are allocated on the first frame and grown only when a larger frame
 * arrives, never per frame. Each call copies its input to the device, runs the
 * blocking ghz_cuda_*_sync call (or enqueues the stream-ordered fixed-rate call),
 * copies the result back and synchronises the
 * stream, so host buffers are free again when it returns. Host memory is the
 * caller's (pageable); no pinned staging. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

#ifdef GHZ_WITH_CUDA

#include <cuda_runtime_api.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/codec/fixed_cuda.h"

typedef struct {
    cudaStream_t stream;
    int has_stream;
    void* d_raw;
    size_t raw_cap;
    void* d_cmp;
    size_t cmp_cap;
    ghz_cuda_ctx_t* ctx;
    void* d_status;
    size_t status_cap;
} cuda_state;

/* Records a CUDA runtime failure in b->detail; returns GHZ_ERR_CUDA. */
static ghz_status_t cuda_error(cli_backend* b, cudaError_t e, const char* what)
{
    (void)cudaGetLastError(); /* clear a non-sticky error */
    snprintf(b->detail, sizeof b->detail, "%s: %s", what, cudaGetErrorString(e));
    return GHZ_ERR_CUDA;
}

/* Makes *p a device buffer of at least `need` bytes (256 at least, so that an empty
 * frame still has a buffer). The old contents are not kept. */
static ghz_status_t reserve(cli_backend* b, void** p, size_t* cap, size_t need, const char* what)
{
    char why[96];
    void* q = NULL;
    cudaError_t e;
    if (need < 256) need = 256;
    if (*p && need <= *cap) return GHZ_SUCCESS;
    if (*p) {
        e = cudaFree(*p);
        *p = NULL;
        *cap = 0;
        if (e != cudaSuccess) return cuda_error(b, e, "cudaFree");
    }
    e = cudaMalloc(&q, need);
    if (e != cudaSuccess) {
        snprintf(why, sizeof why, "cudaMalloc of %zu bytes for the %s", need, what);
        return cuda_error(b, e, why);
    }
    *p = q;
    *cap = need;
    return GHZ_SUCCESS;
}

/* Grows the context's workspace for frames of n values (either direction). */
static ghz_status_t reserve_work(cli_backend* b, cuda_state* s, size_t n)
{
    ghz_status_t st = ghz_cuda_ctx_reserve(s->ctx, 1, n);
    return st == GHZ_SUCCESS ? st : cli_backend_lib_error(b, st);
}

/* The device frame d_cmp as a ghz_buf_t of `size` valid bytes. */
static ghz_buf_t frame_buf(const cuda_state* s, size_t size)
{
    ghz_buf_t z = GHZ_BUF_INIT;
    z.data = s->d_cmp;
    z.size = size;
    z.capacity = s->cmp_cap;
    z.where = GHZ_MEM_DEVICE;
    return z;
}

/* Room on the device for a frame of n values of dtype, either direction. */
static ghz_status_t cuda_prepare(cli_backend* b, ghz_dtype_t dtype, size_t n)
{
    cuda_state* s = (cuda_state*)b->state;
    size_t elem = ghz_dtype_size(dtype), bound = ghz_compress_bound(n, dtype);
    size_t fixed = ghz_fixed_size(n, 32); /* the largest fixed-rate frame of n values */
    ghz_status_t st;
    if (elem == 0 || bound == 0 || fixed == 0 || n > SIZE_MAX / elem) {
        snprintf(b->detail, sizeof b->detail, "%zu values of dtype %d", n, (int)dtype);
        return GHZ_ERR_INVALID_ARG;
    }
    bound += GHZ_CHECKSUM_SIZE;
    if (fixed > bound) bound = fixed;
    if ((st = reserve(b, &s->d_raw, &s->raw_cap, n * elem, "values")) != GHZ_SUCCESS ||
        (st = reserve(b, &s->d_cmp, &s->cmp_cap, bound, "frame")) != GHZ_SUCCESS)
        return st;
    return reserve_work(b, s, n);
}

/* Waits for the stream; a failure of anything queued on it shows here. */
static ghz_status_t sync_stream(cli_backend* b, cuda_state* s, const char* what)
{
    cudaError_t e = cudaStreamSynchronize(s->stream);
    return e == cudaSuccess ? GHZ_SUCCESS : cuda_error(b, e, what);
}

static ghz_status_t cuda_compress(cli_backend* b, const ghz_params_t* p, const void* src, size_t n,
                                  void* dst, size_t cap, size_t* size)
{
    cuda_state* s = (cuda_state*)b->state;
    size_t elem = ghz_dtype_size(p->dtype), got = 0;
    ghz_params_t q;
    ghz_buf_t z;
    ghz_status_t st;
    cudaError_t e;

    if ((st = cuda_prepare(b, p->dtype, n)) != GHZ_SUCCESS) return st;
    if (n) {
        e = cudaMemcpyAsync(s->d_raw, src, n * elem, cudaMemcpyHostToDevice, s->stream);
        if (e != cudaSuccess) return cuda_error(b, e, "copying the values to the GPU");
    }
    /* The GPU writes frames without a checksum (ghz_params_t.checksum): the host adds
     * it to the copy it gets back. */
    q = *p;
    q.checksum = 0;
    z = frame_buf(s, 0);
    st = ghz_cuda_compress_sync(s->ctx, &q, s->d_raw, n, &z, s->stream);
    if (st != GHZ_SUCCESS) return cli_backend_lib_error(b, st);
    got = z.size;
    if (got > cap) {
        snprintf(b->detail, sizeof b->detail, "frame of %zu bytes, %zu bytes of room", got, cap);
        return GHZ_ERR_DST_TOO_SMALL;
    }
    e = cudaMemcpyAsync(dst, s->d_cmp, got, cudaMemcpyDeviceToHost, s->stream);
    if (e != cudaSuccess) return cuda_error(b, e, "copying the frame from the GPU");
    if ((st = sync_stream(b, s, "copying the frame from the GPU")) != GHZ_SUCCESS) return st;
    if (p->checksum && (st = ghz_frame_add_checksum(dst, got, cap, &got)) != GHZ_SUCCESS)
        return cli_backend_lib_error(b, st);
    *size = got;
    return GHZ_SUCCESS;
}

static ghz_status_t cuda_decompress(cli_backend* b, const void* frame, size_t frame_size, void* dst,
                                    size_t cap, size_t* n)
{
    cuda_state* s = (cuda_state*)b->state;
    ghz_frame_info_t info;
    ghz_buf_t z;
    size_t elem, bytes, got = 0;
    ghz_status_t st;
    cudaError_t e;

    /* The dtype and size come from the header (validated here, and again with the
     * code bytes and payload on the GPU). */
    if ((st = ghz_frame_info(frame, frame_size, &info)) != GHZ_SUCCESS)
        return cli_backend_lib_error(b, st);
    if (info.frame_size != frame_size) {
        snprintf(b->detail, sizeof b->detail,
                 "%zu bytes given, the frame has %llu: the CUDA backend decodes one frame per call",
                 frame_size, (unsigned long long)info.frame_size);
        return GHZ_ERR_INVALID_ARG;
    }
    elem = ghz_dtype_size(info.dtype);
    if (info.n > SIZE_MAX / elem ||
        ghz_compress_bound((size_t)info.n, info.dtype) + GHZ_CHECKSUM_SIZE < frame_size) {
        /* ghz_frame_info already refuses a frame beyond its worst case */
        snprintf(b->detail, sizeof b->detail, "frame of %llu values in %zu bytes",
                 (unsigned long long)info.n, frame_size);
        return GHZ_ERR_CORRUPT;
    }
    bytes = (size_t)info.n * elem;
    if (bytes > cap) {
        snprintf(b->detail, sizeof b->detail, "frame of %llu values needs %zu bytes, %zu given",
                 (unsigned long long)info.n, bytes, cap);
        return GHZ_ERR_DST_TOO_SMALL;
    }
    /* d_cmp holds ghz_compress_bound(n) + GHZ_CHECKSUM_SIZE >= frame_size bytes after this. */
    if ((st = cuda_prepare(b, info.dtype, (size_t)info.n)) != GHZ_SUCCESS) return st;
    e = cudaMemcpyAsync(s->d_cmp, frame, frame_size, cudaMemcpyHostToDevice, s->stream);
    if (e != cudaSuccess) return cuda_error(b, e, "copying the frame to the GPU");
    /* Capacity exactly the frame's values: the workspace is sized for that. */
    z = frame_buf(s, frame_size);
    st = ghz_cuda_decompress_sync(s->ctx, info.dtype, &z, s->d_raw, bytes, &got, s->stream);
    if (st != GHZ_SUCCESS) return cli_backend_lib_error(b, st);
    if (got != info.n) {
        snprintf(b->detail, sizeof b->detail, "the GPU decoded %zu values, the header says %llu",
                 got, (unsigned long long)info.n);
        return GHZ_ERR_CORRUPT;
    }
    if (bytes) {
        e = cudaMemcpyAsync(dst, s->d_raw, bytes, cudaMemcpyDeviceToHost, s->stream);
        if (e != cudaSuccess) return cuda_error(b, e, "copying the values from the GPU");
        if ((st = sync_stream(b, s, "copying the values from the GPU")) != GHZ_SUCCESS) return st;
    }
    *n = got;
    return GHZ_SUCCESS;
}

/* The fixed-rate encoder on the GPU; the frame is copied back whole. */
static ghz_status_t cuda_compress_fixed(cli_backend* b, ghz_dtype_t dtype, unsigned bits,
                                        const void* src, size_t n, void* dst, size_t cap,
                                        size_t* size)
{
    cuda_state* s = (cuda_state*)b->state;
    size_t elem = ghz_dtype_size(dtype), need = ghz_fixed_size(n, bits);
    ghz_status_t st;
    cudaError_t e;

    if ((st = cuda_prepare(b, dtype, n)) != GHZ_SUCCESS) return st;
    if (need == 0) {
        snprintf(b->detail, sizeof b->detail, "fixed-rate l = %u: 8, 16 or 32", bits);
        return GHZ_ERR_UNSUPPORTED;
    }
    if (need > cap) {
        snprintf(b->detail, sizeof b->detail, "frame of %zu bytes, %zu bytes of room", need, cap);
        return GHZ_ERR_DST_TOO_SMALL;
    }
    if (n) {
        e = cudaMemcpyAsync(s->d_raw, src, n * elem, cudaMemcpyHostToDevice, s->stream);
        if (e != cudaSuccess) return cuda_error(b, e, "copying the values to the GPU");
    }
    st = ghz_cuda_fixed_compress(s->ctx, dtype, bits, s->d_raw, n, s->d_cmp, s->cmp_cap, s->stream);
    if (st != GHZ_SUCCESS) return cli_backend_lib_error(b, st);
    e = cudaMemcpyAsync(dst, s->d_cmp, need, cudaMemcpyDeviceToHost, s->stream);
    if (e != cudaSuccess) return cuda_error(b, e, "copying the frame from the GPU");
    if ((st = sync_stream(b, s, "fixed-rate encode on the GPU")) != GHZ_SUCCESS) return st;
    *size = need;
    return GHZ_SUCCESS;
}

/* The fixed-rate decoder on the GPU: the host checks the sizes (the header says
 * dtype, l and n), the GPU checks the header against them and every block, and its
 * verdict comes back with the values, in one synchronisation. */
static ghz_status_t cuda_decompress_fixed(cli_backend* b, const void* frame, size_t frame_size,
                                          const ghz_fixed_info_t* info, void* dst, size_t cap,
                                          size_t* n)
{
    cuda_state* s = (cuda_state*)b->state;
    size_t elem = ghz_dtype_size(info->dtype), bytes;
    int verdict = GHZ_ERR_CUDA;
    ghz_status_t st;
    cudaError_t e;

    if (info->frame_size != frame_size) {
        snprintf(b->detail, sizeof b->detail,
                 "%zu bytes given, the frame has %llu: the CUDA backend decodes one frame per call",
                 frame_size, (unsigned long long)info->frame_size);
        return GHZ_ERR_INVALID_ARG;
    }
    if (elem == 0 || info->n > SIZE_MAX / elem) {
        snprintf(b->detail, sizeof b->detail, "frame of %llu values", (unsigned long long)info->n);
        return GHZ_ERR_CORRUPT;
    }
    bytes = (size_t)info->n * elem;
    if (bytes > cap) {
        snprintf(b->detail, sizeof b->detail, "frame of %llu values needs %zu bytes, %zu given",
                 (unsigned long long)info->n, bytes, cap);
        return GHZ_ERR_DST_TOO_SMALL;
    }
    /* d_cmp holds ghz_fixed_size(n, 32) >= frame_size bytes after this. */
    if ((st = cuda_prepare(b, info->dtype, (size_t)info->n)) != GHZ_SUCCESS) return st;
    e = cudaMemcpyAsync(s->d_cmp, frame, frame_size, cudaMemcpyHostToDevice, s->stream);
    if (e != cudaSuccess) return cuda_error(b, e, "copying the frame to the GPU");
    st = ghz_cuda_fixed_decompress(s->ctx, info->dtype, info->bits, (size_t)info->n, s->d_cmp, frame_size,
                                   s->d_raw, s->raw_cap, (int*)s->d_status, s->stream);
    if (st != GHZ_SUCCESS) return cli_backend_lib_error(b, st);
    e = cudaMemcpyAsync(&verdict, s->d_status, sizeof verdict, cudaMemcpyDeviceToHost, s->stream);
    if (e != cudaSuccess) return cuda_error(b, e, "copying the GPU's verdict");
    if (bytes) {
        e = cudaMemcpyAsync(dst, s->d_raw, bytes, cudaMemcpyDeviceToHost, s->stream);
        if (e != cudaSuccess) return cuda_error(b, e, "copying the values from the GPU");
    }
    if ((st = sync_stream(b, s, "fixed-rate decode on the GPU")) != GHZ_SUCCESS) return st;
    if (verdict != GHZ_SUCCESS) {
        snprintf(b->detail, sizeof b->detail,
                 "the GPU's check of the fixed-rate frame (FIXED.md, Validation) failed");
        return (ghz_status_t)verdict;
    }
    *n = (size_t)info->n;
    return GHZ_SUCCESS;
}

/* One small frame of each dtype through both directions: loads the kernels (lazy
 * module loading) before anything is timed, and makes a GPU whose architecture the
 * library was not built for fail here, clearly, before any file is touched. */
static ghz_status_t warm_up(cli_backend* b)
{
    static const double zeros[64];
    unsigned char frame[GHZ_COMPRESS_BOUND(64, GHZ_F64)];
    double back[64];
    ghz_params_t p;
    size_t size = 0, n = 0;
    ghz_status_t st;
    int i;

    ghz_params_init(&p);
    p.eb_mode = GHZ_EB_ABS;
    p.eb = 1.0;
    p.exec = GHZ_EXEC_CUDA;
    for (i = 0; i < 2; ++i) {
        ghz_fixed_info_t info;
        unsigned bits;
        p.dtype = i ? GHZ_F64 : GHZ_F32;
        if ((st = cuda_compress(b, &p, zeros, 64, frame, sizeof frame, &size)) != GHZ_SUCCESS ||
            (st = cuda_decompress(b, frame, size, back, sizeof back, &n)) != GHZ_SUCCESS)
            return st;
        /* The fixed-rate kernels too: one per dtype and l, each direction. */
        for (bits = 8; bits <= 32; bits *= 2) {
            st = cuda_compress_fixed(b, p.dtype, bits, zeros, 64, frame, sizeof frame, &size);
            if (st == GHZ_SUCCESS && (st = ghz_fixed_info(frame, size, &info)) != GHZ_SUCCESS)
                return cli_backend_lib_error(b, st);
            if (st == GHZ_SUCCESS)
                st = cuda_decompress_fixed(b, frame, size, &info, back, sizeof back, &n);
            if (st != GHZ_SUCCESS) return st;
        }
    }
    return GHZ_SUCCESS;
}

static void cuda_fini(cli_backend* b)
{
    cuda_state* s = (cuda_state*)b->state;
    if (!s) return;
    if (s->has_stream) (void)cudaStreamSynchronize(s->stream);
    if (s->d_raw) (void)cudaFree(s->d_raw);
    if (s->d_cmp) (void)cudaFree(s->d_cmp);
    if (s->ctx) (void)ghz_cuda_ctx_destroy(s->ctx);
    if (s->d_status) (void)cudaFree(s->d_status);
    if (s->has_stream) (void)cudaStreamDestroy(s->stream);
    (void)cudaGetLastError();
    memset(s, 0, sizeof *s);
    b->state = NULL;
}

static ghz_status_t cuda_init(cli_backend* b)
{
    static cuda_state state; /* one backend per process */
    struct cudaDeviceProp prop;
    int count = 0, dev = 0;
    cudaError_t e;
    ghz_status_t st;

    memset(&state, 0, sizeof state);
    e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count <= 0) {
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(b->detail, sizeof b->detail, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        } else {
            snprintf(b->detail, sizeof b->detail, "cudaGetDeviceCount found no GPU");
        }
        return GHZ_ERR_NO_DEVICE;
    }
    if ((e = cudaGetDevice(&dev)) != cudaSuccess) return cuda_error(b, e, "cudaGetDevice");
    if ((e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess)
        return cuda_error(b, e, "cudaGetDeviceProperties");
    snprintf(b->device, sizeof b->device, "GPU %d: %.100s, sm_%d%d", dev, prop.name, prop.major,
             prop.minor);
    b->state = &state;
    if ((e = cudaStreamCreateWithFlags(&state.stream, cudaStreamNonBlocking)) != cudaSuccess)
        return cuda_error(b, e, "cudaStreamCreate");
    state.has_stream = 1;
    if ((st = ghz_cuda_ctx_create(NULL, &state.ctx)) != GHZ_SUCCESS) return cli_backend_lib_error(b, st);
    st = reserve(b, &state.d_status, &state.status_cap, sizeof(int), "fixed-rate verdict");
    if (st != GHZ_SUCCESS) return st;
    if ((st = warm_up(b)) != GHZ_SUCCESS) return st;
    return GHZ_SUCCESS;
}

static const cli_backend_ops cuda_ops = {"cuda",
                                         cuda_init,
                                         cuda_fini,
                                         cuda_prepare,
                                         cuda_compress,
                                         cuda_decompress,
                                         cuda_compress_fixed,
                                         cuda_decompress_fixed};

const cli_backend_ops* cli_backend_cuda_ops(void)
{
    return &cuda_ops;
}

#else /* !GHZ_WITH_CUDA */

const cli_backend_ops* cli_backend_cuda_ops(void)
{
    return NULL;
}

#endif
