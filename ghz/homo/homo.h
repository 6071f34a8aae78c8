/* ghz/homo/homo.h: homomorphic operations on ghz streams (host C API, CPU).
 *
 * ghz/homo/HOMO.md is the specification. Every result is byte-identical to DOC:
 * decompress the inputs, operate in the dtype's arithmetic (a position that is fill in
 * any input is fill in the result), recompress under ABS with the inputs' eb_abs.
 * The operations work on the quantized integers where HOMO.md proves that gives DOC's
 * bytes, and block by block in floating point elsewhere.
 *
 * Contracts (besides those of ghz/codec/codec.h):
 *  - Inputs and outputs are host ghz_buf_t: initialised with GHZ_BUF_INIT (struct_size
 *    >= GHZ_BUF_V1_SIZE), where == GHZ_MEM_HOST, and size <= capacity. An input's
 *    frames are data[0..size): set data, size and capacity (capacity = size when data
 *    holds nothing more), data not NULL. An output is written to data[0..capacity) and
 *    its size set: set data and capacity, size left at GHZ_BUF_INIT's 0. A buffer that
 *    breaks a rule is GHZ_ERR_INVALID_ARG, the detail naming the argument and the field.
 *    An output must not overlap any input (use the _inplace form).
 *  - Inputs must match frame by frame (frame count, n, dtype, eb_abs, fill flag and
 *    bits): otherwise GHZ_ERR_MISMATCH. Every input frame is validated as
 *    ghz_decompress does before its payload is used.
 *  - out->capacity >= ghz_homo_bound() of the first input always suffices.
 *
 * Cost: one pass over every input's compressed bytes (headers, codes and payload) and
 * one write of the result; no decompressed array is ever made. A block the integer path
 * takes costs a few integer operations a value; a block that needs floating point
 * (HOMO.md says which) is decoded, combined and re-encoded, about what decompressing
 * and compressing that block costs. Calls of up to 64 inputs allocate nothing; the
 * in-place call copies each frame's code bytes aside (one allocation per call), and
 * ghz_homo_sum_n of more than 64 inputs allocates per-input state.
 */
#ifndef GHZ_HOMO_HOMO_H
#define GHZ_HOMO_HOMO_H

#include "ghz/codec/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element-wise binary operations (HOMO.md, Operations). Values are pinned. */
typedef enum {
    GHZ_HOMO_SUM = 1, /* a + b */
    GHZ_HOMO_SUB = 2, /* a - b */
    GHZ_HOMO_MIN = 3, /* b if b < a, else a (NaN rules in HOMO.md) */
    GHZ_HOMO_MAX = 4  /* b if b > a, else a */
} ghz_homo_op_t;

/* Largest inputs of ghz_homo_sum_n and largest |factor| of ghz_homo_mul (beyond:
 * GHZ_ERR_OVERFLOW, HOMO.md, Errors). */
#define GHZ_HOMO_MAX_INPUTS ((uint64_t)1 << 32)
#define GHZ_HOMO_MAX_FACTOR 16777216

/* Bytes that always hold the result of an operation on streams shaped like src[0..
 * src_size): the sum over its frames of ghz_compress_bound(n_f), plus
 * GHZ_CHECKSUM_SIZE for each frame that carries a checksum. Also the capacity that
 * ghz_homo_binary_inplace needs. Validates the frame headers. Results are written
 * without checksums (seal them with ghz_frame_add_checksum). */
GHZ_API ghz_status_t ghz_homo_bound(const void* src, size_t src_size, size_t* bound);

/* out = op(a, b), element-wise. */
GHZ_API ghz_status_t ghz_homo_binary(ghz_homo_op_t op, const ghz_buf_t* a, const ghz_buf_t* b,
                                     ghz_buf_t* out);

/* a = op(a, b), written over a's memory: needs a->capacity >= ghz_homo_bound(a),
 * whatever the data (blocks may grow). On failure a's contents are unspecified. b must
 * not overlap a->data[0..capacity). */
GHZ_API ghz_status_t ghz_homo_binary_inplace(ghz_homo_op_t op, ghz_buf_t* a, const ghz_buf_t* b);

/* out = in[0] + in[1] + ... + in[k-1] (left to right, HOMO.md), in one pass; 1 <= k <=
 * GHZ_HOMO_MAX_INPUTS. */
GHZ_API ghz_status_t ghz_homo_sum_n(const ghz_buf_t* const* in, size_t k, ghz_buf_t* out);

/* out = -a (exact: every sign flipped). */
GHZ_API ghz_status_t ghz_homo_negate(const ghz_buf_t* a, ghz_buf_t* out);

/* out = a * factor, |factor| <= GHZ_HOMO_MAX_FACTOR. */
GHZ_API ghz_status_t ghz_homo_mul(const ghz_buf_t* a, int32_t factor, ghz_buf_t* out);

/* Decompresses a and multiplies every non-fill value by scale (finite): value
 * dtype(double(x) * scale); fill values stay. scale = 1/k turns the result of
 * ghz_homo_sum_n into a mean. dst and n_out as in ghz_decompress. */
GHZ_API ghz_status_t ghz_homo_decode_scaled(const ghz_buf_t* a, double scale, void* dst,
                                            size_t dst_capacity, size_t* n_out);

#ifdef __cplusplus
}
#endif
#endif
