/* ghz/tools/cli/backend_cuda.c: the CUDA backend (-x cuda): the CUDA codec of
 * ghz/codec/codec_cuda.h driven from host buffers, through the CUDA runtime's C API
 * (no device code here). Built only when the library has the CUDA codec
 * (GHZ_WITH_CUDA, a public compile definition of ghz::codec); otherwise
 * cli_backend_cuda_ops() is NULL and -x cuda fails with "CUDA backend not built".
 *
 * The backend owns, on the current CUDA device:
 *  - d_raw:  the values (compression input, decompression output);
 *  - d_cmp:  one frame (compression output, decompression input), sized by
 *            ghz_compress_bound of the largest frame seen, so equal or smaller
 *            frames never grow it;
 *  - d_work: the codec's workspace, enough for compressing and for decompressing
 *            the largest frame seen, plus GHZ_CUDA_SCRATCH_BYTES for the *_sync
 *            calls' results;
 *  - a non-blocking stream all work is ordered on.
 * Buffers are allocated on the first frame and grown only when a larger frame
 * arrives, never per frame. Each call copies its input to the device, runs the
 * blocking ghz_cuda_*_sync call, copies the result back and synchronises the
 * stream, so host buffers are free again when it returns. Host memory is the
 * caller's (pageable); no pinned staging. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

#ifdef GHZ_WITH_CUDA

#include <cuda_runtime_api.h>

#include "ghz/codec/codec_cuda.h"

typedef struct {
    cudaStream_t stream;
    int has_stream;
    void* d_raw;
    size_t raw_cap;
    void* d_cmp;
    size_t cmp_cap;
    void* d_work;
    size_t work_cap;
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

/* Grows the workspace for frames of n values (either direction). */
static ghz_status_t reserve_work(cli_backend* b, cuda_state* s, size_t n)
{
    size_t wc = 0, wd = 0, need;
    ghz_status_t st;
    if ((st = ghz_cuda_compress_workspace(1, &n, &wc)) != GHZ_SUCCESS ||
        (st = ghz_cuda_decompress_workspace(1, &n, &wd)) != GHZ_SUCCESS)
        return cli_backend_lib_error(b, st);
    need = (wc > wd ? wc : wd) + GHZ_CUDA_SCRATCH_BYTES;
    return reserve(b, &s->d_work, &s->work_cap, need, "workspace");
}

/* Room on the device for a frame of n values of dtype, either direction. */
static ghz_status_t cuda_prepare(cli_backend* b, ghz_dtype_t dtype, size_t n)
{
    cuda_state* s = (cuda_state*)b->state;
    size_t elem = ghz_dtype_size(dtype), bound = ghz_compress_bound(n, dtype);
    ghz_status_t st;
    if (elem == 0 || bound == 0 || n > SIZE_MAX / elem) {
        snprintf(b->detail, sizeof b->detail, "%zu values of dtype %d", n, (int)dtype);
        return GHZ_ERR_INVALID_ARG;
    }
    if ((st = reserve(b, &s->d_raw, &s->raw_cap, n * elem, "values")) != GHZ_SUCCESS ||
        (st = reserve(b, &s->d_cmp, &s->cmp_cap, bound + GHZ_CHECKSUM_SIZE, "frame")) != GHZ_SUCCESS)
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
    st = ghz_cuda_compress_sync(&q, s->d_raw, n, s->d_cmp, s->cmp_cap, &got, s->d_work, s->work_cap,
                                s->stream);
    if (st != GHZ_SUCCESS) return cli_backend_lib_error(b, st);
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
    st = ghz_cuda_decompress_sync(info.dtype, s->d_cmp, frame_size, s->d_raw, bytes, &got, s->d_work,
                                  s->work_cap, s->stream);
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

/* One small frame of each dtype through both directions: loads the kernels (lazy
 * module loading) before anything is timed, and makes a GPU whose architecture the
 * library was not built for fail here, clearly, before any file is touched. */
static ghz_status_t warm_up(cli_backend* b)
{
    static const double zeros[64];
    unsigned char frame[GHZ_COMPRESS_BOUND(64, 8)];
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
        p.dtype = i ? GHZ_F64 : GHZ_F32;
        if ((st = cuda_compress(b, &p, zeros, 64, frame, sizeof frame, &size)) != GHZ_SUCCESS ||
            (st = cuda_decompress(b, frame, size, back, sizeof back, &n)) != GHZ_SUCCESS)
            return st;
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
    if (s->d_work) (void)cudaFree(s->d_work);
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
    if ((st = warm_up(b)) != GHZ_SUCCESS) return st;
    return GHZ_SUCCESS;
}

static const cli_backend_ops cuda_ops = {"cuda",        cuda_init,     cuda_fini,
                                         cuda_prepare,  cuda_compress, cuda_decompress};

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
