/* ghz/codec/cuda/host.cuh (private): the host-side checks that every CUDA call of ghz
 * shares (codec, fixed rate, ghz/homo): which workspace, which device buffers, and how
 * a failed launch is reported. */
#ifndef GHZ_CODEC_CUDA_HOST_CUH
#define GHZ_CODEC_CUDA_HOST_CUH

#include <stdint.h>

#include "ghz/codec/cuda/launch.cuh"
#include "ghz/detail/error.h"

namespace ghz {
namespace detail {

/* A failed CUDA call of ours: GHZ_ERR_CUDA with its text. The error is cleared from the
 * thread's last-error slot (where the runtime also records it), so that the caller's
 * next cudaGetLastError does not report it a second time. */
inline ghz_status_t cuda_fail(cudaError_t e, const char* what)
{
    (void)cudaGetLastError();
    return ghz_fail(GHZ_ERR_CUDA, "%s: %s", what, cudaGetErrorString(e));
}

/* The context must belong to the current device: its workspace lives there. */
inline ghz_status_t ctx_check(const ghz_cuda_ctx* ctx)
{
    int dev = 0;
    if (!ctx) return GHZ_SUCCESS;
    const cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return cuda_fail(e, "cudaGetDevice");
    if (dev != ctx->device)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "context of device %d used on device %d", ctx->device, dev);
    return GHZ_SUCCESS;
}

/* The workspace of a call: d_work as given, or the context's when d_work is NULL. A
 * missing workspace is reported as missing, a short one as short. */
inline ghz_status_t work_pick(const ghz_cuda_ctx* ctx, void** d_work, size_t* work_bytes, size_t need)
{
    ghz_status_t st = ctx_check(ctx);
    if (st != GHZ_SUCCESS) return st;
    if (!*d_work && ctx) {
        *d_work = ctx->d_work;
        *work_bytes = ctx->work_bytes;
        if (need && (!*d_work || *work_bytes < need))
            return ghz_fail(GHZ_ERR_INVALID_ARG,
                            "the context's workspace has %zu bytes, this call needs %zu: "
                            "ghz_cuda_ctx_reserve for a larger batch or chunk",
                            *work_bytes, need);
    }
    if (!*d_work && need)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "workspace is NULL and no context was given");
    if (*work_bytes < need)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "workspace of %zu bytes, %zu needed", *work_bytes, need);
    return GHZ_SUCCESS;
}

/* A device frame to read: its bytes, how many are readable (`n`: the size, or the
 * capacity when the size lives on the device) and where the device-held size is. */
struct buf_in_t {
    const uint8_t* data;
    uint64_t n;
    const uint64_t* d_size;
};

inline ghz_status_t buf_in(const ghz_buf_t* b, const char* name, int i, buf_in_t* out)
{
    if (!b || b->struct_size < GHZ_BUF_V1_SIZE || b->struct_size > (1u << 16))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s %d: NULL or not a ghz_buf_t (GHZ_BUF_INIT)", name, i);
    const uint64_t* d_size = b->struct_size >= GHZ_BUF_V2_SIZE ? b->d_size : nullptr;
    if (b->where != GHZ_MEM_DEVICE)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s %d: a host buffer given to a GPU call", name, i);
    if (!b->data) return ghz_fail(GHZ_ERR_INVALID_ARG, "%s %d: data is NULL", name, i);
    if (!d_size && b->capacity && b->size > b->capacity)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s %d: size %zu > capacity %zu", name, i, b->size, b->capacity);
    out->data = (const uint8_t*)b->data;
    out->n = d_size ? b->capacity : b->size;
    out->d_size = d_size;
    return GHZ_SUCCESS;
}

/* A device frame to write: its bytes, capacity and where its size goes (required: only
 * the GPU knows it). */
inline ghz_status_t buf_out(ghz_buf_t* b, const char* name, int i, uint8_t** data, uint64_t** d_size)
{
    if (!b || b->struct_size < GHZ_BUF_V1_SIZE || b->struct_size > (1u << 16))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s %d: NULL or not a ghz_buf_t (GHZ_BUF_INIT)", name, i);
    if (b->where != GHZ_MEM_DEVICE)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s %d: a host buffer given to a GPU call", name, i);
    if (b->struct_size < GHZ_BUF_V2_SIZE || !b->d_size)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s %d: d_size is NULL (the GPU writes the frame's size there)",
                        name, i);
    if (!b->data) return ghz_fail(GHZ_ERR_INVALID_ARG, "%s %d: data is NULL", name, i);
    *data = (uint8_t*)b->data;
    *d_size = b->d_size;
    return GHZ_SUCCESS;
}

/* The readable bytes of a frame, on the device: n, or *d_size when that is smaller. */
__device__ __forceinline__ uint64_t readable_bytes(uint64_t n, const uint64_t* d_size)
{
    if (!d_size) return n;
    const uint64_t s = *d_size;
    return s < n ? s : n;
}

} // namespace detail
} // namespace ghz

#endif
