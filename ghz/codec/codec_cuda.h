/* ghz/codec/codec_cuda.h: the CUDA codec's host C API (stable tier, docs/API.md).
 * Include after (or instead of) ghz/ghz.h in C or C++; link ghz::codec built with CUDA
 * (GHZ_WITH_CUDA).
 *
 * The GPU writes exactly the bytes the CPU reference writes (FORMAT.md).
 *
 * One shape for every CUDA call of ghz (codec, fixed rate, ghz/homo):
 *     ghz_cuda_<verb>[_<variant>](ctx, what, source, destination, device outputs,
 *                                 [d_work, work_bytes,] stream)
 * verb: compress, decompress, value_range, fixed_compress, fixed_decompress,
 * homo_binary; variant: _batch (k chunks), _sync (blocking), _workspace (a size query).
 * `what` is the parameters, dtype or operation; sizes follow the pointer they size.
 * In names, a "size" or "_bytes" counts bytes, an "n" or "elems" counts values.
 *
 * Contracts of every call here:
 *  - d_ pointers are device memory, h_ pointers host memory. Compressed frames are
 *    ghz_buf_t descriptors (codec.h) with where == GHZ_MEM_DEVICE: a frame the GPU
 *    writes gets its size in *d_size (device), a frame the GPU reads is d_size's bytes
 *    (when set) or `size`'s.
 *  - Calls are stream-ordered: they enqueue work on `stream` and return; they never
 *    allocate, memset, copy to the host or synchronise, except the *_sync conveniences
 *    and the context's create, reserve and destroy, which say so. All the others can be
 *    captured in a CUDA graph.
 *  - Workspace: pass a context (ctx) and d_work = NULL to use the context's, or manage
 *    it yourself in CUB's two-phase idiom: ask its size with the *_workspace call,
 *    allocate it, pass it as d_work/work_bytes (ctx may then be NULL). One workspace
 *    serves one call at a time (per stream order).
 *  - Results that only the GPU knows (compressed sizes, decoded element counts, the
 *    status of each chunk) are written to device memory. d_status receives ghz_status_t
 *    values (GHZ_SUCCESS, or e.g. GHZ_ERR_CORRUPT): one int per chunk in a _batch call,
 *    one in a single call; it may be NULL.
 *  - The host return value covers what the host can check (arguments, sizes, the
 *    launch itself: GHZ_ERR_CUDA carries that launch's own error, never one left by
 *    earlier work on the device).
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

/* ---- the context ------------------------------------------------------------------ */

/* Owns, on one device: a workspace for the largest batch and chunk it was configured
 * (or reserved) for, the scratch that the *_sync calls return results through, and the
 * device attributes the launches need (SM count, occupancy), queried once. A context is
 * used by one thread at a time, and by one stream order at a time (its workspace is
 * shared by its calls); create one per stream that runs ghz work concurrently. */
typedef struct ghz_cuda_ctx ghz_cuda_ctx_t;

typedef struct {
    size_t struct_size; /* sizeof(ghz_cuda_ctx_config_t) as the caller compiled it */
    int device;         /* CUDA device ordinal; -1: the current device */
    int max_batch;      /* chunks of the largest batched call, >= 1 */
    size_t max_elems;   /* values of the largest chunk, frame or ghz/homo operand */
} ghz_cuda_ctx_config_t;

#define GHZ_CUDA_CTX_CONFIG_INIT { sizeof(ghz_cuda_ctx_config_t), -1, 1, 0 }

/* Creates a context (cudaMalloc of its workspace: blocking). cfg may be NULL (the
 * defaults: current device, nothing reserved beyond the scratch). */
GHZ_API ghz_status_t ghz_cuda_ctx_create(const ghz_cuda_ctx_config_t* cfg, ghz_cuda_ctx_t** ctx);

/* Grows the workspace to serve batches of max_batch chunks of max_elems values (never
 * shrinks it). Blocking (synchronises the device, then reallocates): not for graph
 * capture, and not while work using the context is in flight. */
GHZ_API ghz_status_t ghz_cuda_ctx_reserve(ghz_cuda_ctx_t* ctx, int max_batch, size_t max_elems);

/* Grows the workspace to serve ratio frames (prefer = GHZ_PREFER_RATIO, RATIO.md) of up
 * to max_elems values of dtype: about n * (sizeof(T) + 5) bytes (the reconstructions and
 * the codes), far more than the block frames' workspace, so it is reserved apart.
 * Blocking, as ghz_cuda_ctx_reserve. */
GHZ_API ghz_status_t ghz_cuda_ctx_reserve_ratio(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, size_t max_elems);

/* Frees the context and its memory (synchronising the device first). NULL is accepted. */
GHZ_API ghz_status_t ghz_cuda_ctx_destroy(ghz_cuda_ctx_t* ctx);

/* ---- workspace sizes (two-phase) ---------------------------------------------------- */

/* Workspace bytes for compressing k chunks of ns[0..k) values in one call (any k >= 1). */
GHZ_API ghz_status_t ghz_cuda_compress_workspace(int k, const size_t* ns, size_t* bytes);

/* Workspace bytes for compressing k chunks of ns[0..k) values of dtype into ratio frames
 * (p->prefer == GHZ_PREFER_RATIO): the chunks are coded one after the other in stream
 * order, so this is the largest chunk's need, about n * (sizeof(T) + 5) bytes. */
GHZ_API ghz_status_t ghz_cuda_compress_ratio_workspace(ghz_dtype_t dtype, int k, const size_t* ns, size_t* bytes);

/* Workspace bytes for decompressing k frames into outputs of at most max_elems[i]
 * values each. */
GHZ_API ghz_status_t ghz_cuda_decompress_workspace(int k, const size_t* max_elems, size_t* bytes);

/* Workspace bytes for ghz_cuda_value_range_batch over k chunks. */
GHZ_API ghz_status_t ghz_cuda_value_range_workspace(int k, size_t* bytes);

/* ---- compression ------------------------------------------------------------------ */

/* Compresses k independent chunks concurrently (any k >= 1: more than one launch's worth
 * is split inside the call): chunk i, ns[i] values of p->dtype at d_srcs[i], into its
 * own frame in dsts[i] (where == GHZ_MEM_DEVICE, capacity >= ghz_compress_bound(ns[i]),
 * d_size != NULL receives the frame's size). d_srcs, ns and dsts are host arrays.
 * The bound: p->eb (ABS), or *p->d_eb_abs read on the GPU; REL: per chunk from its own
 * range, or one range for all chunks from p->has_range or *p->d_range (device).
 * d_status[i] (k ints, may be NULL) receives chunk i's status. A REL bound that is not
 * finite (the CPU's GHZ_ERR_BAD_BOUND) gives chunk i GHZ_ERR_BAD_BOUND and a size of 0:
 * no frame, as the CPU writes none. p->checksum is not supported yet
 * (GHZ_ERR_UNSUPPORTED): seal the frame on the host with ghz_frame_add_checksum.
 * Cost: one read of the values and one write of the frames, in a few launches for the
 * whole batch; a REL chunk without a given range is read once more for its range
 * (pass the range, p->has_range or p->d_range, where it is known: a collective that
 * agreed on it, a simulation that tracks it). */
GHZ_API ghz_status_t ghz_cuda_compress_batch(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, int k,
                                             const void* const* d_srcs, const size_t* ns,
                                             ghz_buf_t* dsts, int* d_status, void* d_work,
                                             size_t work_bytes, cudaStream_t stream);

/* One chunk: ghz_cuda_compress_batch with k = 1. */
GHZ_API ghz_status_t ghz_cuda_compress(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, const void* d_src,
                                       size_t n, ghz_buf_t* dst, int* d_status, void* d_work,
                                       size_t work_bytes, cudaStream_t stream);

/* ---- decompression ---------------------------------------------------------------- */

/* Decompresses k single frames concurrently (any k >= 1): frame i (srcs[i], device)
 * into d_dsts[i] (dst_capacities[i] bytes). The frames must hold dtype values (else
 * GHZ_ERR_MISMATCH). d_ns[i] (device, may be NULL) receives the element count. Every
 * frame is validated on the GPU as the CPU reader does; a bad frame sets d_status[i]
 * and its output is unspecified. A frame with a checksum (FORMAT.md) is verified before
 * it is decoded: on a mismatch d_status[i] is GHZ_ERR_CORRUPT, d_ns[i] is 0 and
 * nothing is written to d_dsts[i]. Cost: one read of each frame (its code bytes twice:
 * once to validate them and find each tile's payload) and one write of the values, in
 * a few launches for the whole batch; a checksummed frame is read once more first. */
GHZ_API ghz_status_t ghz_cuda_decompress_batch(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, int k,
                                               const ghz_buf_t* srcs, void* const* d_dsts,
                                               const size_t* dst_capacities, uint64_t* d_ns,
                                               int* d_status, void* d_work, size_t work_bytes,
                                               cudaStream_t stream);

/* Ratio frames (RATIO.md) are read by the same calls: whether a frame is one is known
 * on the device only, so every call also enqueues the ratio reader's one cooperative
 * launch, which leaves at once when no frame of the call is a ratio frame; its
 * workspace share is about max_elems / 8 + max_elems / 64 bytes per frame (the
 * specials' bitmap and the chunk table) and 50 KiB of state. Each pass is decoded
 * straight into the output buffer (a warp per chunk: prediction, context, rANS step,
 * reconstruction): no n-sized workspace. Writing them: p->prefer = GHZ_PREFER_RATIO
 * and p->dims in the compress calls, with the workspace of
 * ghz_cuda_compress_ratio_workspace (or a context grown by ghz_cuda_ctx_reserve_ratio). */

/* One frame: ghz_cuda_decompress_batch with k = 1. */
GHZ_API ghz_status_t ghz_cuda_decompress(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, const ghz_buf_t* src,
                                         void* d_dst, size_t dst_capacity, uint64_t* d_n,
                                         int* d_status, void* d_work, size_t work_bytes,
                                         cudaStream_t stream);

/* ---- value range ------------------------------------------------------------------ */

/* The range of each chunk's finite values that are not the fill value (p->dtype,
 * p->has_fill, p->fill), into d_ranges[i] (device; {+Inf, -Inf} when empty, see
 * ghz_range_t). Merge the ranges of several chunks or ranks with MIN of min and MAX of
 * max, on the GPU, then pass the result as p->d_range to compress under one REL bound
 * without a host round trip. Cost: one read of the values. */
GHZ_API ghz_status_t ghz_cuda_value_range_batch(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, int k,
                                                const void* const* d_srcs, const size_t* ns,
                                                ghz_range_t* d_ranges, void* d_work,
                                                size_t work_bytes, cudaStream_t stream);

/* One chunk: ghz_cuda_value_range_batch with k = 1. */
GHZ_API ghz_status_t ghz_cuda_value_range(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, const void* d_src,
                                          size_t n, ghz_range_t* d_range, void* d_work,
                                          size_t work_bytes, cudaStream_t stream);

/* ---- blocking conveniences -------------------------------------------------------- */

/* Enqueue the call with the context's workspace, then SYNCHRONISE `stream` and return
 * the device-side status as the call's status, and the size on the host: dst->size
 * (compress; also *dst->d_size when set) or *h_n (decompress). The context (required)
 * provides the scratch the results travel through; reserve it for n values first. */
GHZ_API ghz_status_t ghz_cuda_compress_sync(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, const void* d_src,
                                            size_t n, ghz_buf_t* dst, cudaStream_t stream);
GHZ_API ghz_status_t ghz_cuda_decompress_sync(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, const ghz_buf_t* src,
                                              void* d_dst, size_t dst_capacity, size_t* h_n,
                                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
