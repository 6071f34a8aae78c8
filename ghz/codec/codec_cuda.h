/* ghz/codec/codec_cuda.h: the CUDA codec's host C API. Include after (or instead
 * of) ghz/ghz.h in C or C++; link ghz::codec built with CUDA (GHZ_WITH_CUDA).
 *
 * The GPU writes exactly the bytes the CPU reference writes (FORMAT.md).
 * Contracts of every call here:
 *  - d_ pointers are device memory, h_ pointers host memory.
 *  - Calls are stream-ordered: they enqueue work on `stream` and return; they never
 *    allocate, memset, copy to the host or synchronise, except the *_sync
 *    conveniences, which block on `stream` and say so. All of them are capturable in a
 *    CUDA graph except the *_sync ones.
 *  - Workspace is the caller's (CUB's two-phase idiom): ask its size once with the
 *    *_workspace call, allocate it, and reuse it for any call of at most that size.
 *    One workspace serves one call at a time (per stream order).
 *  - Results that only the GPU knows (compressed sizes, decoded element counts, the
 *    status of validating a stream) are written to device memory. *d_status receives a
 *    ghz_status_t value (GHZ_SUCCESS, or e.g. GHZ_ERR_CORRUPT); it may be NULL.
 *  - Inputs may start at any element offset (any sub-range of a buffer, any alignment
 *    of its element type); outputs may start at any byte.
 */
#ifndef GHZ_CODEC_CODEC_CUDA_H
#define GHZ_CODEC_CODEC_CUDA_H

#include <cuda_runtime_api.h>

#include "ghz/codec/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most chunks one batched call takes; call again for more. */
#define GHZ_CUDA_MAX_BATCH 32

/* Workspace bytes for compressing k chunks of ns[0..k) elements in one call. */
GHZ_API ghz_status_t ghz_cuda_compress_workspace(int k, const size_t* ns, size_t* bytes);

/* Compresses k independent chunks concurrently, chunk i (ns[i] values of p->dtype at
 * d_srcs[i]) into its own frame at d_dsts[i], whose capacity dst_capacities[i] must be
 * at least ghz_compress_bound(ns[i], p->dtype). d_sizes[i] (device) receives frame i's
 * size. REL bounds are per chunk unless p->has_range gives one range for all. The
 * arrays d_srcs, ns, d_dsts, dst_capacities are host arrays (of device pointers).
 * p->checksum is not supported yet (GHZ_ERR_UNSUPPORTED): copy the frame to the host
 * and seal it with ghz_frame_add_checksum. */
GHZ_API ghz_status_t ghz_cuda_compress_batch(const ghz_params_t* p, int k,
                                             const void* const* d_srcs, const size_t* ns,
                                             void* const* d_dsts, const size_t* dst_capacities,
                                             uint64_t* d_sizes, int* d_status, void* d_work,
                                             size_t work_bytes, cudaStream_t stream);

/* One chunk: ghz_cuda_compress_batch with k = 1. */
GHZ_API ghz_status_t ghz_cuda_compress(const ghz_params_t* p, const void* d_src, size_t n,
                                       void* d_dst, size_t dst_capacity, uint64_t* d_size,
                                       int* d_status, void* d_work, size_t work_bytes,
                                       cudaStream_t stream);

/* Workspace bytes for decompressing k frames into outputs of at most max_elems[i]
 * elements each. */
GHZ_API ghz_status_t ghz_cuda_decompress_workspace(int k, const size_t* max_elems,
                                                   size_t* bytes);

/* Decompresses k single frames concurrently: frame i (src_sizes[i] readable bytes at
 * d_srcs[i]) into d_dsts[i] (dst_capacities[i] bytes). The frames must hold dtype
 * values (else GHZ_ERR_MISMATCH in *d_status). d_ns[i] (device, may be NULL) receives
 * the element count. Every frame is validated on the GPU as the CPU reader does;
 * a bad frame sets *d_status and its output is unspecified. A frame with a checksum
 * (FORMAT.md) is verified before it is decoded: on a mismatch *d_status is
 * GHZ_ERR_CORRUPT, d_ns[i] is 0 and nothing is written to d_dsts[i]. */
GHZ_API ghz_status_t ghz_cuda_decompress_batch(ghz_dtype_t dtype, int k,
                                               const void* const* d_srcs,
                                               const size_t* src_sizes, void* const* d_dsts,
                                               const size_t* dst_capacities, uint64_t* d_ns,
                                               int* d_status, void* d_work, size_t work_bytes,
                                               cudaStream_t stream);

/* One frame: ghz_cuda_decompress_batch with k = 1. */
GHZ_API ghz_status_t ghz_cuda_decompress(ghz_dtype_t dtype, const void* d_src, size_t src_size,
                                         void* d_dst, size_t dst_capacity, uint64_t* d_n,
                                         int* d_status, void* d_work, size_t work_bytes,
                                         cudaStream_t stream);

/* Blocking conveniences: enqueue the call, then SYNCHRONISE `stream` and return the
 * size (element count) and the device-side status to the host. They use
 * GHZ_CUDA_SCRATCH_BYTES of the workspace for the results, so the workspace must be
 * that much larger than the *_workspace call says. */
#define GHZ_CUDA_SCRATCH_BYTES 256u
GHZ_API ghz_status_t ghz_cuda_compress_sync(const ghz_params_t* p, const void* d_src, size_t n,
                                            void* d_dst, size_t dst_capacity, size_t* h_size,
                                            void* d_work, size_t work_bytes,
                                            cudaStream_t stream);
GHZ_API ghz_status_t ghz_cuda_decompress_sync(ghz_dtype_t dtype, const void* d_src,
                                              size_t src_size, void* d_dst,
                                              size_t dst_capacity, size_t* h_n, void* d_work,
                                              size_t work_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
