/* ghz/homo/homo_cuda.h: homomorphic operations on the GPU (host C API). Include after
 * (or instead of) ghz/ghz.h; link ghz::codec built with CUDA (GHZ_WITH_CUDA).
 *
 * The GPU writes exactly the bytes of the CPU reference (ghz_homo_binary), which are
 * DOC's (ghz/homo/HOMO.md). Shape and contracts as in ghz/codec/codec_cuda.h: the
 * frames are device ghz_buf_t (an input's size may live on the device, d_size; the
 * output's size is written to its d_size); calls are stream-ordered (no allocation,
 * copy or synchronisation; capturable in a CUDA graph); the workspace is the
 * context's (d_work = NULL) or the caller's, sized by the _workspace call.
 *
 * Every call takes ONE frame of each input (call once per frame of a multi-frame
 * stream). Inputs are pointers to the kernels: device memory, or mapped pinned host
 * memory (cudaHostAlloc with cudaHostAllocMapped, or a peer's IPC mapping) alike.
 * Frames sealed with a checksum are verified on the GPU (CRC-32C, as ghz_cuda_decompress
 * does) before any of their blocks is used: a mismatch is GHZ_ERR_CORRUPT in *d_status.
 * Outputs carry no checksum (as the CPU's). */
#ifndef GHZ_HOMO_HOMO_CUDA_H
#define GHZ_HOMO_HOMO_CUDA_H

#include <cuda_runtime_api.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/homo/homo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most inputs of one ghz_cuda_homo_sum_n call (more: GHZ_ERR_UNSUPPORTED; the CPU's
 * ghz_homo_sum_n takes them). The left-to-right fold of DOC cannot be cut into calls
 * whose partial results are recompressed, so larger k is refused, not split. */
#define GHZ_CUDA_HOMO_MAX_INPUTS 64

/* Workspace bytes of ghz_cuda_homo_binary for frames of at most max_elems elements. */
GHZ_API ghz_status_t ghz_cuda_homo_workspace(size_t max_elems, size_t* bytes);

/* Enqueues out = op(a, b). Both frames must hold dtype values and at most max_elems
 * of them (0 with a context: the context's max_elems; at most what the workspace was
 * sized for), and out->capacity must be at least ghz_compress_bound(n, dtype), else
 * *d_status = GHZ_ERR_DST_TOO_SMALL. Either input may be sealed with a checksum: its
 * CRC-32C is verified on the GPU before any block is combined, a mismatch is
 * GHZ_ERR_CORRUPT (the CPU's ghz_homo_binary's status), and the output carries no
 * checksum. *out->d_size (device) receives the output frame's size; *d_status
 * (device, may be NULL) GHZ_SUCCESS or the error (GHZ_ERR_MISMATCH, GHZ_ERR_CORRUPT,
 * ...), in which case the output is unspecified. */
GHZ_API ghz_status_t ghz_cuda_homo_binary(ghz_cuda_ctx_t* ctx, ghz_homo_op_t op, ghz_dtype_t dtype,
                                          const ghz_buf_t* a, const ghz_buf_t* b, ghz_buf_t* out,
                                          size_t max_elems, int* d_status, void* d_work,
                                          size_t work_bytes, cudaStream_t stream);

/* Workspace bytes of ghz_cuda_homo_sum_n of k inputs (1 <= k <=
 * GHZ_CUDA_HOMO_MAX_INPUTS) of at most max_elems elements. */
GHZ_API ghz_status_t ghz_cuda_homo_sum_n_workspace(size_t k, size_t max_elems, size_t* bytes);

/* Enqueues out = ins[0] + ins[1] + ... + ins[k-1] (HOMO.md's n-ary sum, left to right),
 * the CPU's ghz_homo_sum_n byte for byte, in one pass over the inputs: ins is an array
 * of k device frames of dtype, at most max_elems values each (0 with a context: its
 * max_elems); out must not overlap any input, out->capacity >= ghz_compress_bound(n).
 * k = 1 recompresses the frame as DOC does (ABS, no checksum). Errors as
 * ghz_cuda_homo_binary. The context's workspace serves k <= max(2, max_batch). */
GHZ_API ghz_status_t ghz_cuda_homo_sum_n(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, size_t k, const ghz_buf_t* ins,
                                         ghz_buf_t* out, size_t max_elems, int* d_status, void* d_work,
                                         size_t work_bytes, cudaStream_t stream);

/* Workspace bytes of ghz_cuda_homo_binary_batch of k pairs (k > 32 takes what 32 do:
 * the pairs go in launches of 32, one after the other on the stream). */
GHZ_API ghz_status_t ghz_cuda_homo_binary_batch_workspace(int k, size_t max_elems, size_t* bytes);

/* Enqueues out[i] = op(a[i], b[i]) for the k frame pairs (arrays of k ghz_buf_t),
 * each as ghz_cuda_homo_binary writes it, with d_status[i] (k ints, may be NULL) pair
 * i's status: one pair's mismatch or corruption does not touch the others. */
GHZ_API ghz_status_t ghz_cuda_homo_binary_batch(ghz_cuda_ctx_t* ctx, ghz_homo_op_t op, ghz_dtype_t dtype, int k,
                                                const ghz_buf_t* a, const ghz_buf_t* b, ghz_buf_t* out,
                                                size_t max_elems, int* d_status, void* d_work, size_t work_bytes,
                                                cudaStream_t stream);

/* Workspace bytes of ghz_cuda_homo_binary_inplace for frames of at most max_elems. */
GHZ_API ghz_status_t ghz_cuda_homo_binary_inplace_workspace(size_t max_elems, size_t* bytes);

/* Enqueues a = op(a, b), written over a's memory (ghZCCL's in-place operation), the
 * bytes of the CPU's ghz_homo_binary_inplace. a's frame is a->size bytes, or *a->d_size
 * when a->d_size is set; a->d_size is required and receives the result's size.
 * a->capacity must be at least ghz_homo_bound of a's frame (ghz_compress_bound(n), 4
 * more when a is sealed), whatever the data: else GHZ_ERR_DST_TOO_SMALL (in *d_status).
 * A frame that does not fit in a->capacity at all (its size above the capacity, where
 * the CPU call says INVALID_ARG) reads as GHZ_ERR_TRUNCATED. Every refusal found by the
 * header checks (these two, a bad or mismatched header) leaves a untouched, its bytes
 * and *a->d_size. b must not overlap a->data[0..capacity). On any other error a's
 * contents are unspecified. HOMO.md, GPU, says why it is safe without a copy. */
GHZ_API ghz_status_t ghz_cuda_homo_binary_inplace(ghz_cuda_ctx_t* ctx, ghz_homo_op_t op, ghz_dtype_t dtype,
                                                  ghz_buf_t* a, const ghz_buf_t* b, size_t max_elems, int* d_status,
                                                  void* d_work, size_t work_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
