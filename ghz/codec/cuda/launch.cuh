/* ghz/codec/cuda/launch.cuh (private): the context (ghz_cuda_ctx_t) as the kernels' host
 * code sees it, and the launch helper they use (ghz/detail/launch_cuda.cuh says why
 * every launch goes through cudaLaunchKernelEx). */
#ifndef GHZ_CODEC_CUDA_LAUNCH_CUH
#define GHZ_CODEC_CUDA_LAUNCH_CUH

#include <cuda_runtime.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/detail/launch_cuda.cuh"

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
