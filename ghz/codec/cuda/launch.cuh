/* ghz/codec/cuda/launch.cuh (private): kernel launches that return their own error, and
 * the context (ghz_cuda_ctx_t) as the kernels' host code sees it.
 *
 * Why launches go through cudaLaunchKernelEx: a `<<<>>>` launch reports a failure only
 * through cudaGetLastError(), which also returns (and clears) an error left behind by
 * the caller's earlier, unrelated work, so ghz would blame itself for it and erase it.
 * cudaLaunchKernelEx returns the error of this launch and nothing else. */
#ifndef GHZ_CODEC_CUDA_LAUNCH_CUH
#define GHZ_CODEC_CUDA_LAUNCH_CUH

#include <cuda_runtime.h>

#include <utility>

#include "ghz/codec/codec_cuda.h"

/* The context (codec_cuda.h): device attributes queried once, the workspace and the
 * *_sync calls' scratch. Not thread-safe: one caller at a time, as documented. */
struct ghz_cuda_ctx {
    int device;
    int sms;                /* streaming multiprocessors */
    int max_batch;          /* what the workspace was sized for */
    size_t max_elems;
    void* d_work;           /* owned */
    size_t work_bytes;
    void* d_scratch;        /* owned: kScratchBytes for the *_sync calls' results */
    int occupancy[2][2][3][2]; /* fixed.cu: CTAs per SM of each kernel (0 = not asked yet) */
};

namespace ghz {
namespace detail {

constexpr size_t kScratchBytes = 256;

template <typename... Exp, typename... Act>
cudaError_t launch(void (*kernel)(Exp...), dim3 grid, dim3 block, cudaStream_t stream, Act&&... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    cfg.attrs = nullptr;
    cfg.numAttrs = 0;
    return cudaLaunchKernelEx(&cfg, kernel, std::forward<Act>(args)...);
}

/* Streaming multiprocessors: the context's, or the current device's (132, an H100's
 * count, if the query fails). */
inline int sm_count(const ghz_cuda_ctx* ctx)
{
    if (ctx) return ctx->sms;
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms < 1)
        sms = 132;
    return sms;
}

} // namespace detail
} // namespace ghz

#endif
