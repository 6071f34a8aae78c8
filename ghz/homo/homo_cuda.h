/* ghz/homo/homo_cuda.h: homomorphic operations on the GPU (host C API). Include after
 * (or instead of) ghz/ghz.h; link ghz::codec built with CUDA (GHZ_WITH_CUDA).
 *
 * The GPU writes exactly the bytes of the CPU reference (ghz_homo_binary), which are
 * DOC's (ghz/homo/HOMO.md). Contracts as in ghz/codec/codec_cuda.h: d_ pointers are
 * device memory; calls are stream-ordered (no allocation, copy or synchronisation);
 * the workspace is the caller's, sized by the _workspace call; results the GPU alone
 * knows (output size, status) go to device memory.
 *
 * Scope of this version: binary operations on ONE frame of each input per call (call
 * once per frame pair of a multi-frame stream); not in place (the CPU reference has
 * ghz_homo_binary_inplace). */
#ifndef GHZ_HOMO_HOMO_CUDA_H
#define GHZ_HOMO_HOMO_CUDA_H

#include <cuda_runtime_api.h>

#include "ghz/homo/homo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Workspace bytes for frames of at most max_elems elements. */
GHZ_API ghz_status_t ghz_cuda_homo_workspace(size_t max_elems, size_t* bytes);

/* Enqueues d_out = op(frame at d_a, frame at d_b). a_size and b_size are the readable
 * bytes at d_a and d_b; both frames must hold dtype values. out_capacity must be at
 * least ghz_compress_bound(n, dtype) and max_elems (as given to the workspace call) at
 * least n, else *d_status = GHZ_ERR_DST_TOO_SMALL. *d_out_size (device) receives the
 * output frame's size; *d_status (device, may be NULL) GHZ_SUCCESS or the error
 * (GHZ_ERR_MISMATCH, GHZ_ERR_CORRUPT, ...), in which case the output is unspecified.
 * Frames sealed with a checksum get GHZ_ERR_UNSUPPORTED (the GPU does not verify them
 * yet; the CPU's ghz_homo_binary does). The output frame carries no checksum. */
GHZ_API ghz_status_t ghz_cuda_homo_binary(ghz_homo_op_t op, ghz_dtype_t dtype, const void* d_a,
                                          size_t a_size, const void* d_b, size_t b_size,
                                          void* d_out, size_t out_capacity, size_t max_elems,
                                          uint64_t* d_out_size, int* d_status, void* d_work,
                                          size_t work_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
