/* ghz/codec/fixed_cuda.h: the CUDA fixed-rate codec's host C API (FIXED.md; stable
 * tier, docs/API.md). Include in C or C++; link ghz::codec built with CUDA
 * (GHZ_WITH_CUDA).
 *
 * The GPU writes exactly the bytes of ghz_fixed_compress. The calls follow
 * codec_cuda.h's shape and contracts (ctx, what, source, destination, device outputs,
 * stream; stream-ordered, capturable in a CUDA graph; d_ pointers are device memory).
 * No workspace is needed: a fixed rate has no sizes to scan. The context (may be NULL)
 * supplies the SM count and the kernels' occupancy, queried once. Frames are plain
 * pointers, not ghz_buf_t: a fixed-rate frame's size is ghz_fixed_size(n, bits), known
 * to the host before anything runs.
 *
 * Alignment: the frame (d_dst of compress, d_src of decompress) must be 16-byte
 * aligned; the uncompressed array needs its element type's alignment (16 bytes makes
 * it faster). */
#ifndef GHZ_CODEC_FIXED_CUDA_H
#define GHZ_CODEC_FIXED_CUDA_H

#include <cuda_runtime_api.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/codec/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Encodes n values of dtype at d_src into one fixed-rate frame of
 * ghz_fixed_size(n, bits) bytes at d_dst (dst_capacity must be at least that).
 * Everything that can fail is checked here, on the host: GHZ_ERR_UNSUPPORTED for bits
 * other than 8/16/32, GHZ_ERR_DST_TOO_SMALL, GHZ_ERR_INVALID_ARG (NULL, bad dtype,
 * misaligned pointers), GHZ_ERR_CUDA for a failed launch. */
GHZ_API ghz_status_t ghz_cuda_fixed_compress(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, unsigned bits,
                                             const void* d_src, size_t n, void* d_dst,
                                             size_t dst_capacity, cudaStream_t stream);

/* Decodes the fixed-rate frame at d_src (src_size readable bytes) into d_dst. The
 * caller states what it expects (dtype, bits, n: known in advance at a fixed rate),
 * so the host checks every size (src_size must equal ghz_fixed_size(n, bits), else
 * GHZ_ERR_MISMATCH; dst_capacity at least n values) and the GPU never reads or writes
 * out of bounds;
 * the GPU validates the header against them and every block (FIXED.md, Validation)
 * and writes a ghz_status_t to *d_status (may be NULL): GHZ_ERR_MISMATCH when the
 * header holds another dtype, l or n, GHZ_ERR_CORRUPT for a bad block, the header's
 * own errors as ghz_fixed_info names them. On an error the output is unspecified. */
GHZ_API ghz_status_t ghz_cuda_fixed_decompress(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, unsigned bits,
                                               size_t n, const void* d_src, size_t src_size,
                                               void* d_dst, size_t dst_capacity, int* d_status,
                                               cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
