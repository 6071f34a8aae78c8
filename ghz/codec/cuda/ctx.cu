/* ghz/codec/cuda/ctx.cu: the CUDA context (codec_cuda.h): the device attributes the
 * launches need, queried once; the workspace for the largest batch and chunk it serves
 * (compress, decompress, value range and ghz/homo alike); the *_sync calls' scratch.
 * The only allocating calls of the CUDA API, and they say so. */
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/cuda/host.cuh"
#include "ghz/homo/homo_cuda.h"

namespace {

using namespace ghz::detail;

/* Workspace bytes for k chunks of max_elems values, whichever call uses it. */
ghz_status_t ctx_work_bytes(int k, size_t max_elems, size_t* bytes)
{
    size_t c = 0, d = 0, r = 0, h = 0, hn = 0, hb = 0, hi = 0;
    ghz_status_t st;
    /* malloc, not new: the static libghz is linked by C programs, without libstdc++ */
    size_t* counts = (size_t*)malloc((size_t)k * sizeof *counts);
    if (!counts) return ghz_fail(GHZ_ERR_NOMEM, "%d chunk sizes", k);
    for (int i = 0; i < k; ++i) counts[i] = max_elems;
    if ((st = ghz_cuda_compress_workspace(k, counts, &c)) == GHZ_SUCCESS &&
        (st = ghz_cuda_decompress_workspace(k, counts, &d)) == GHZ_SUCCESS &&
        (st = ghz_cuda_value_range_workspace(k, &r)) == GHZ_SUCCESS &&
        (st = ghz_cuda_homo_workspace(max_elems, &h)) == GHZ_SUCCESS &&
        /* the n-ary sum of max_batch inputs (at least the two of a binary operation) */
        (st = ghz_cuda_homo_sum_n_workspace(k < 2 ? 2 : k < GHZ_CUDA_HOMO_MAX_INPUTS ? (size_t)k
                                                                                     : GHZ_CUDA_HOMO_MAX_INPUTS,
                                            max_elems, &hn)) == GHZ_SUCCESS &&
        (st = ghz_cuda_homo_binary_batch_workspace(k, max_elems, &hb)) == GHZ_SUCCESS)
        st = ghz_cuda_homo_binary_inplace_workspace(max_elems, &hi);
    free(counts);
    if (st != GHZ_SUCCESS) return st;
    *bytes = c > d ? c : d;
    if (r > *bytes) *bytes = r;
    for (size_t x : {h, hn, hb, hi})
        if (x > *bytes) *bytes = x;
    return GHZ_SUCCESS;
}

/* The workspace grown to at least `bytes` (never shrunk). */
ghz_status_t grow_work(ghz_cuda_ctx_t* ctx, size_t bytes, const char* what)
{
    void* p = nullptr;
    if (bytes <= ctx->work_bytes) return GHZ_SUCCESS;
    cudaError_t e = cudaDeviceSynchronize(); /* work in flight may still use the old one */
    if (e == cudaSuccess) e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) return cuda_fail(e, what);
    if (ctx->d_work) (void)cudaFree(ctx->d_work);
    ctx->d_work = p;
    ctx->work_bytes = bytes;
    return GHZ_SUCCESS;
}

} // namespace

extern "C" ghz_status_t ghz_cuda_ctx_reserve(ghz_cuda_ctx_t* ctx, int max_batch, size_t max_elems)
{
    size_t bytes = 0;
    ghz_status_t st;
    ghz_clear_detail();
    if (!ctx) return ghz_fail(GHZ_ERR_INVALID_ARG, "ctx is NULL");
    if ((st = ctx_check(ctx)) != GHZ_SUCCESS) return st;
    if (max_batch < 1) return ghz_fail(GHZ_ERR_INVALID_ARG, "max_batch %d < 1", max_batch);
    if (max_batch < ctx->max_batch) max_batch = ctx->max_batch;
    if (max_elems < ctx->max_elems) max_elems = ctx->max_elems;
    if ((st = ctx_work_bytes(max_batch, max_elems, &bytes)) != GHZ_SUCCESS) return st;
    if ((st = grow_work(ctx, bytes, "reserving the context's workspace")) != GHZ_SUCCESS) return st;
    ctx->max_batch = max_batch;
    ctx->max_elems = max_elems;
    return GHZ_SUCCESS;
}

extern "C" ghz_status_t ghz_cuda_ctx_reserve_ratio(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, size_t max_elems)
{
    size_t bytes = 0;
    ghz_status_t st;
    ghz_clear_detail();
    if (!ctx) return ghz_fail(GHZ_ERR_INVALID_ARG, "ctx is NULL");
    if ((st = ctx_check(ctx)) != GHZ_SUCCESS) return st;
    if ((st = ghz_cuda_compress_ratio_workspace(dtype, 1, &max_elems, &bytes)) != GHZ_SUCCESS) return st;
    return grow_work(ctx, bytes, "reserving the context's workspace for ratio frames");
}

extern "C" ghz_status_t ghz_cuda_ctx_create(const ghz_cuda_ctx_config_t* cfg, ghz_cuda_ctx_t** out)
{
    ghz_cuda_ctx_config_t c = GHZ_CUDA_CTX_CONFIG_INIT;
    ghz_status_t st;
    cudaError_t e;
    ghz_clear_detail();
    if (!out) return ghz_fail(GHZ_ERR_INVALID_ARG, "ctx is NULL");
    *out = nullptr;
    if (cfg) {
        if (cfg->struct_size < sizeof(size_t) || cfg->struct_size > (1u << 16))
            return ghz_fail(GHZ_ERR_INVALID_ARG, "config.struct_size %zu: use GHZ_CUDA_CTX_CONFIG_INIT",
                            cfg->struct_size);
        memcpy(&c, cfg, cfg->struct_size < sizeof c ? cfg->struct_size : sizeof c);
    }
    if (c.max_batch < 1) return ghz_fail(GHZ_ERR_INVALID_ARG, "max_batch %d < 1", c.max_batch);
    int count = 0;
    if ((e = cudaGetDeviceCount(&count)) != cudaSuccess || count < 1) {
        (void)cudaGetLastError();
        return ghz_fail(GHZ_ERR_NO_DEVICE, "no CUDA device (%s)", cudaGetErrorString(e));
    }
    if (c.device < 0 && (e = cudaGetDevice(&c.device)) != cudaSuccess) return cuda_fail(e, "cudaGetDevice");
    if (c.device >= count) return ghz_fail(GHZ_ERR_INVALID_ARG, "device %d of %d", c.device, count);
    int current = 0;
    if ((e = cudaGetDevice(&current)) != cudaSuccess) return cuda_fail(e, "cudaGetDevice");
    if (current != c.device)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "device %d is not the current device (%d): cudaSetDevice first",
                        c.device, current);

    ghz_cuda_ctx* ctx = (ghz_cuda_ctx*)calloc(1, sizeof *ctx); /* a C struct: no constructor */
    if (!ctx) return ghz_fail(GHZ_ERR_NOMEM, "context");
    memset(ctx, 0, sizeof *ctx);
    ctx->device = c.device;
    ctx->max_batch = 1;
    if ((e = cudaDeviceGetAttribute(&ctx->sms, cudaDevAttrMultiProcessorCount, c.device)) != cudaSuccess ||
        (e = cudaMalloc(&ctx->d_scratch, kScratchBytes)) != cudaSuccess) {
        st = cuda_fail(e, "creating the context");
        ghz_cuda_ctx_destroy(ctx);
        return st;
    }
    if ((st = ghz_cuda_ctx_reserve(ctx, c.max_batch, c.max_elems)) != GHZ_SUCCESS) {
        ghz_cuda_ctx_destroy(ctx);
        return st;
    }
    *out = ctx;
    return GHZ_SUCCESS;
}

extern "C" ghz_status_t ghz_cuda_ctx_destroy(ghz_cuda_ctx_t* ctx)
{
    cudaError_t e = cudaSuccess, f;
    if (!ctx) return GHZ_SUCCESS;
    if (ctx->d_work || ctx->d_scratch) e = cudaDeviceSynchronize();
    if (ctx->d_work && (f = cudaFree(ctx->d_work)) != cudaSuccess && e == cudaSuccess) e = f;
    if (ctx->d_scratch && (f = cudaFree(ctx->d_scratch)) != cudaSuccess && e == cudaSuccess) e = f;
    free(ctx);
    return e == cudaSuccess ? GHZ_SUCCESS : cuda_fail(e, "destroying the context");
}
