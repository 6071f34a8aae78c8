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
 * Scope of this version: binary operations on ONE frame of each input per call (call
 * once per frame pair of a multi-frame stream); not in place (the CPU reference has
 * ghz_homo_binary_inplace). */
#ifndef GHZ_HOMO_HOMO_CUDA_H
#define GHZ_HOMO_HOMO_CUDA_H

#include <cuda_runtime_api.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/homo/homo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Workspace bytes for frames of at most max_elems elements. */
GHZ_API ghz_status_t ghz_cuda_homo_workspace(size_t max_elems, size_t* bytes);

/* Enqueues out = op(a, b). Both frames must hold dtype values and at most max_elems
 * of them (0 with a context: the context's max_elems; at most what the workspace was
 * sized for), and out->capacity must be at least ghz_compress_bound(n, dtype), else
 * *d_status = GHZ_ERR_DST_TOO_SMALL. *out->d_size (device) receives the output frame's
 * size; *d_status (device, may be NULL) GHZ_SUCCESS or the error (GHZ_ERR_MISMATCH,
 * GHZ_ERR_CORRUPT, ...), in which case the output is unspecified. Frames sealed with a
 * checksum get GHZ_ERR_UNSUPPORTED (the GPU does not verify them yet; the CPU's
 * ghz_homo_binary does). The output frame carries no checksum. */
GHZ_API ghz_status_t ghz_cuda_homo_binary(ghz_cuda_ctx_t* ctx, ghz_homo_op_t op, ghz_dtype_t dtype,
                                          const ghz_buf_t* a, const ghz_buf_t* b, ghz_buf_t* out,
                                          size_t max_elems, int* d_status, void* d_work,
                                          size_t work_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
